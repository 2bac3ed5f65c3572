package reporters

// driftRung is one level of the drift report's shortening ladder: what
// that level shows and how much of it. Levels are tried from the first
// until one fits the budget; each shows less than the one before. A
// failed run's report walks the first errorLevels rungs.
type driftRung struct {
	// shortenedNote says the report was shortened and where the full one is.
	shortenedNote bool
	// openDetails opens a stack's <details> when it has few entries.
	openDetails bool
	// values is how much of each drifted value shows (valuesFull, ...).
	values int
	// body is what follows the headline: stack sections, a line of counts
	// per stack, or nothing.
	body diffBody
	// details shows the per-resource detail: the resolution's summary,
	// cdkd's plan warnings, an outcome's reason, a hidden entry's paths.
	details bool
	// causeDetails shows why a resource was not compared (the basis and
	// cdkd's reason).
	causeDetails bool
	// resolutionText shows cdkd's resolution text, at most
	// resolutionLines lines (0: all).
	resolutionText  bool
	resolutionLines int
	// namesOnly lists drifted and uncompared resources by name (lists
	// capped at listMax when the budget is limited).
	namesOnly bool
}

// driftLadder is indexed by the drift levels (driftFull, ...).
var driftLadder = [driftLevels]driftRung{
	driftFull: {openDetails: true, values: valuesFull, details: true, causeDetails: true, resolutionText: true},
	driftCollapsed: {shortenedNote: true, values: valuesCollapsed, details: true, causeDetails: true,
		resolutionText: true, resolutionLines: 40},
	driftShortValues: {shortenedNote: true, values: valuesShort, details: true, causeDetails: true,
		resolutionText: true, resolutionLines: 40},
	driftPaths:       {shortenedNote: true, values: valuesPaths, details: true},
	driftResources:   {shortenedNote: true, values: valuesPaths, namesOnly: true},
	driftStackCounts: {shortenedNote: true, values: valuesPaths, body: bodyStackCounts, namesOnly: true},
	driftHeadline:    {shortenedNote: true, values: valuesPaths, body: bodyHeadline, namesOnly: true},
}
