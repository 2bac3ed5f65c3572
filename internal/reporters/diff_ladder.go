package reporters

// diffRung is one level of the diff report's shortening ladder: what that
// level shows and how much of it. Levels are tried from the first until
// one fits the budget; each shows less than the one before.
type diffRung struct {
	// shortenedNote says the report was shortened and where the full one is.
	shortenedNote bool
	// picture shows the picture of what the changes touch (a view: the
	// first thing a shorter level drops, before any change line).
	picture bool
	// reducedPicture shows the reduced picture (one node per stack) where
	// the full one is not shown (layout 4 on).
	reducedPicture bool
	// openDetails opens a stack's <details> when it has few changes.
	openDetails bool
	// values is how much of each changed value shows (valuesFull, ...).
	values int
	// body is what follows the headline: stack sections, a line of counts
	// per stack, or nothing.
	body diffBody
	// resourceLines lists a stack's resources one line each, without
	// their properties.
	resourceLines bool
	// calloutCap caps the destructive changes the callout names when the
	// budget is limited.
	calloutCap int
	// changedSecretsOnly lists only the secret values whose fingerprint
	// changed; secretCalloutCap (0: no cap) and noEchoCap (-1: no cap)
	// cap the other secret notes when the budget is tight.
	changedSecretsOnly bool
	secretCalloutCap   int
	noEchoCap          int
	// security is how much of the security changes shows: tables, the
	// broadening rows, or their counts (never less: a reviewer must see
	// that something widens access).
	security securityDetail
}

type diffBody int

const (
	bodySections diffBody = iota
	bodyStackCounts
	bodyHeadline
)

// diffLadder is indexed by the diff levels (levelFull, ...).
var diffLadder = [diffLevels]diffRung{
	levelFull:        {picture: true, reducedPicture: true, openDetails: true, values: valuesFull, calloutCap: calloutMax, noEchoCap: -1},
	levelCollapsed:   {shortenedNote: true, reducedPicture: true, values: valuesCollapsed, calloutCap: calloutMax, noEchoCap: -1},
	levelShortValues: {shortenedNote: true, reducedPicture: true, values: valuesShort, calloutCap: calloutMax, noEchoCap: -1},
	levelPaths:       {shortenedNote: true, reducedPicture: true, values: valuesPaths, calloutCap: calloutMax, noEchoCap: -1},
	levelResources: {shortenedNote: true, reducedPicture: true, values: valuesPaths, resourceLines: true, calloutCap: 20,
		changedSecretsOnly: true, secretCalloutCap: 10, noEchoCap: 20, security: securityBroadList},
	levelStackCounts: {shortenedNote: true, reducedPicture: true, values: valuesPaths, body: bodyStackCounts, calloutCap: 10,
		changedSecretsOnly: true, secretCalloutCap: 10, noEchoCap: 20, security: securityCount},
	levelTotals: {shortenedNote: true, values: valuesPaths, body: bodyHeadline, calloutCap: 0,
		changedSecretsOnly: true, secretCalloutCap: 10, noEchoCap: 20, security: securityCount},
}
