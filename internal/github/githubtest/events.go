package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Label events: when labels were added to an issue or pull request, which
// the deploy gate reads to tell an approval given before the merge from
// one given after.

// labelEvent is a "labeled" or "unlabeled" issue event.
type labelEvent struct {
	id           int64
	event, label string
	login        string
	at           time.Time
}

// LabelPullRequest adds label to pull request number now, as login does in
// GitHub's UI (after a seeded merge, so the label comes after merged_at).
func (s *Server) LabelPullRequest(owner, repo string, number int, label, login string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo = s.defaults(owner, repo)
	it := s.repo(owner, repo).items[number]
	if it == nil {
		s.t.Fatalf("githubtest: LabelPullRequest: no %s/%s#%d", owner, repo, number)
		return
	}
	at := s.now()
	if it.pr != nil && !it.pr.mergedAt.IsZero() && !at.After(it.pr.mergedAt) {
		at = it.pr.mergedAt.Add(time.Second)
	}
	s.labelAt(it, label, login, at)
	it.updated = at
}

// LabelNow adds label to pull request number as login does, at the
// clock's now, whether or not the pull request merged since (a seeded
// merge can be moved after it with MergeAt).
func (s *Server) LabelNow(owner, repo string, number int, label, login string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if it := s.pullItem("LabelNow", owner, repo, number); it != nil {
		at := s.now()
		s.labelAt(it, label, login, at)
		it.updated = at
	}
}

// RemoveLabelEvent records that login removed label from pull request
// number at at (zero: now), and takes the label off it.
func (s *Server) RemoveLabelEvent(owner, repo string, number int, label, login string, at time.Time) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.pullItem("RemoveLabelEvent", owner, repo, number)
	if it == nil {
		return
	}
	if at.IsZero() {
		at = s.now()
	}
	it.labels = slices.DeleteFunc(it.labels, func(l string) bool { return l == label })
	it.labelEvents = append(it.labelEvents, labelEvent{id: s.id("event"), event: "unlabeled", label: label, login: login, at: at.UTC()})
	slices.SortStableFunc(it.labelEvents, func(a, b labelEvent) int { return a.at.Compare(b.at) })
}

// labelAt puts label on it, as added by login at at. Called with s.mu
// held.
func (s *Server) labelAt(it *item, label, login string, at time.Time) {
	if !slices.Contains(it.labels, label) {
		it.labels = append(it.labels, label)
	}
	it.labelEvents = append(it.labelEvents, labelEvent{id: s.id("event"), event: "labeled", label: label, login: login, at: at})
}

// listEvents serves an issue's or pull request's label events, oldest
// first (the only events the fake records).
func (c *call) listEvents() response {
	r := c.repo()
	it := r.items[int(c.intParam("issue_number"))]
	if it == nil {
		return notFound()
	}
	lo, hi, headers := c.paginate(len(it.labelEvents))
	out := make([]map[string]any, 0, hi-lo)
	for _, e := range it.labelEvents[lo:hi] {
		out = append(out, map[string]any{
			"id":                       e.id,
			"node_id":                  fmt.Sprintf("LE_%d", e.id),
			"url":                      fmt.Sprintf("%s/issues/events/%d", c.s.repoAPIURL(r), e.id),
			"actor":                    c.s.renderUser(e.login),
			"event":                    e.event,
			"commit_id":                nil,
			"commit_url":               nil,
			"created_at":               ts(e.at),
			"performed_via_github_app": nil,
			"label":                    map[string]any{"name": e.label, "color": "ededed"},
		})
	}
	resp := jsonResponse(http.StatusOK, out)
	resp.headers = headers
	return resp
}
