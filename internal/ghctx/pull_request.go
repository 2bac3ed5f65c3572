package ghctx

import "time"

// PullRequest is a pull request as the action reads it: from the event
// payload (Number, HeadSHA, BaseRef, Labels, the repositories and Fork:
// all the payload says) or from the API (every field). It is the one pull
// request type: internal/github returns it and internal/review, which reads
// no GitHub, judges it.
type PullRequest struct {
	Number  int
	HeadSHA string
	// HeadRef is the branch the head is on (in HeadRepo).
	HeadRef        string
	BaseRef        string
	MergeCommitSHA string
	HTMLURL        string
	// Open: neither merged nor closed.
	Open   bool
	Merged bool
	// MergedAt is when it was merged; zero when it was not.
	MergedAt time.Time
	Labels   []string
	// Author is who opened it: their own approval never counts.
	Author string
	// HeadRepo and BaseRepo are owner/name: a fork's pull request has
	// its head in another repository.
	HeadRepo, BaseRepo string
	// Fork: the head is in another repository (or, from the API, one GitHub
	// no longer names), whose pushes this repository's activity does not
	// record, and whose token usually cannot write comments or check runs.
	Fork bool
}
