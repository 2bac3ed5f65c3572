package layout1

// deployRung is one level of the deploy report's shortening ladder: what
// that level shows and how much of it. Levels are tried from the first
// until one fits the budget; each shows less than the one before.
type deployRung struct {
	// shortenedNote says the report was shortened and where the full one is.
	shortenedNote bool
	// sections: the comparison with the review, destructive changes,
	// stacks and cdkd's stderr; without them, the headline, message and
	// lock alone.
	sections bool
	// openDetails opens a stack's <details> when it has few resources.
	openDetails bool
	// paths lists a compared item's property paths.
	paths bool
	// failuresOnly keeps only failed resources in a stack's list.
	failuresOnly bool
	// stackLines gives one line per stack (failures still named) instead
	// of a section.
	stackLines bool
	// stderr shows the tail of cdkd's stderr: stderrLines lines (0: all)
	// cut to stderrWidth characters.
	stderr                   bool
	stderrLines, stderrWidth int
	// errorWidth and outputWidth cut a resource's error and an output's
	// value.
	errorWidth, outputWidth int
	// compareCap and destructiveCap cap those lists when the budget is
	// limited (0: no cap).
	compareCap, destructiveCap int
}

// deployLadder is indexed by the deploy levels (deployFull, ...).
var deployLadder = [deployLevels]deployRung{
	deployFull: {sections: true, openDetails: true, paths: true, stderr: true,
		stderrWidth: 1000, errorWidth: 1000, outputWidth: 300},
	deployCollapsed: {shortenedNote: true, sections: true, paths: true, stderr: true,
		stderrLines: 10, stderrWidth: 300, errorWidth: 1000, outputWidth: InlineMax, compareCap: 200},
	deployFailedOnly: {shortenedNote: true, sections: true, failuresOnly: true,
		errorWidth: 300, outputWidth: InlineMax, compareCap: 100},
	deployStackLines: {shortenedNote: true, sections: true, failuresOnly: true, stackLines: true,
		errorWidth: 300, outputWidth: InlineMax, compareCap: 20, destructiveCap: 20},
	deployHeadline: {shortenedNote: true, failuresOnly: true, stackLines: true,
		errorWidth: 300, outputWidth: InlineMax, compareCap: 20, destructiveCap: 20},
}

// capped is n cut to limit when the budget is limited and limit is set.
func (x *deployWriter) capped(n, limit int) int {
	if x.limited && limit > 0 {
		return min(n, limit)
	}
	return n
}
