package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Pull request reviews: the deploy gate counts APPROVED reviews of the
// reviewed head, given before the merge, by someone other than the author.

// Review is a pull request review as seeded: who, what state (APPROVED,
// CHANGES_REQUESTED, COMMENTED, DISMISSED), on which commit, and when.
type Review struct {
	ID          int64
	Login       string
	State       string
	CommitID    string
	SubmittedAt time.Time
	// AuthorAssociation is what GitHub says of the reviewer's relation to
	// the repository (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...);
	// default MEMBER. It says nothing of write access: the gate reads the
	// permission API (SetPermission).
	AuthorAssociation string
}

// ReviewPullRequest adds a review to pull request number. A zero
// SubmittedAt is now; a zero CommitID is the pull request's head.
func (s *Server) ReviewPullRequest(owner, repo string, number int, rv Review) Review {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.pullItem("ReviewPullRequest", owner, repo, number)
	if it == nil {
		return Review{}
	}
	if rv.SubmittedAt.IsZero() {
		rv.SubmittedAt = s.now()
	}
	if rv.CommitID == "" {
		rv.CommitID = it.pr.headSHA
	}
	if rv.AuthorAssociation == "" {
		rv.AuthorAssociation = "MEMBER"
	}
	rv.ID = s.id("review")
	it.pr.reviews = append(it.pr.reviews, rv)
	slices.SortStableFunc(it.pr.reviews, func(a, b Review) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
	return rv
}

// AddLabelEvent records that login added label to pull request number at
// at (before the merge, say), and puts the label on it.
func (s *Server) AddLabelEvent(owner, repo string, number int, label, login string, at time.Time) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if it := s.pullItem("AddLabelEvent", owner, repo, number); it != nil {
		s.labelAt(it, label, login, at.UTC())
		slices.SortStableFunc(it.labelEvents, func(a, b labelEvent) int { return a.at.Compare(b.at) })
	}
}

// pullItem is pull request number, or nil after failing the test. Called
// with s.mu held.
func (s *Server) pullItem(caller, owner, repo string, number int) *item {
	owner, repo = s.defaults(owner, repo)
	it := s.repo(owner, repo).items[number]
	if it == nil || it.pr == nil {
		s.t.Fatalf("githubtest: %s: %s/%s#%d is no pull request", caller, owner, repo, number)
		return nil
	}
	return it
}

// listReviews serves a pull request's reviews, oldest first, as GitHub
// does.
func (c *call) listReviews() response {
	r := c.repo()
	it := r.items[int(c.intParam("pull_number"))]
	if it == nil || it.pr == nil {
		return notFound()
	}
	lo, hi, headers := c.paginate(len(it.pr.reviews))
	out := make([]map[string]any, 0, hi-lo)
	for _, rv := range it.pr.reviews[lo:hi] {
		html := fmt.Sprintf("%s#pullrequestreview-%d", c.s.itemHTMLURL(r, it), rv.ID)
		prURL := fmt.Sprintf("%s/pulls/%d", c.s.repoAPIURL(r), it.number)
		out = append(out, map[string]any{
			"id":                 rv.ID,
			"node_id":            fmt.Sprintf("PRR_%d", rv.ID),
			"user":               c.s.renderUser(rv.Login),
			"body":               "",
			"state":              rv.State,
			"commit_id":          rv.CommitID,
			"html_url":           html,
			"pull_request_url":   prURL,
			"_links":             map[string]any{"html": map[string]any{"href": html}, "pull_request": map[string]any{"href": prURL}},
			"submitted_at":       ts(rv.SubmittedAt),
			"author_association": rv.AuthorAssociation,
		})
	}
	resp := jsonResponse(http.StatusOK, out)
	resp.headers = headers
	return resp
}
