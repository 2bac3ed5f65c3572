package githubtest

import (
	"slices"
	"sort"
)

// What a test reads back: the objects as GitHub would show them.

// Comments returns the comments on owner/repo#number, oldest first.
func (s *Server) Comments(owner, repo string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.repo(owner, repo).comments {
		if c.IssueNumber == number {
			out = append(out, *c)
		}
	}
	return out
}

// CheckRuns returns every check run, in creation order.
func (s *Server) CheckRuns() []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]CheckRun, len(s.checkRuns))
	for i, cr := range s.checkRuns {
		out[i] = *cr
		out[i].Annotations = slices.Clone(cr.Annotations)
	}
	return out
}

// Issues returns every issue (not pull requests) of every repository, by
// repository and number.
func (s *Server) Issues() []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Issue
	for _, r := range s.sortedRepos() {
		for _, it := range r.sortedItems() {
			if it.pr == nil {
				out = append(out, s.issueView(r, it))
			}
		}
	}
	return out
}

// PullRequests returns every pull request of every repository, by
// repository and number.
func (s *Server) PullRequests() []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PR
	for _, r := range s.sortedRepos() {
		for _, it := range r.sortedItems() {
			if it.pr != nil {
				out = append(out, s.prView(r, it))
			}
		}
	}
	return out
}

// Deployments returns every deployment with its statuses, in creation order.
func (s *Server) Deployments() []Deployment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Deployment
	for _, r := range s.sortedRepos() {
		for _, d := range r.deployments {
			c := *d
			c.Statuses = slices.Clone(d.Statuses)
			c.RequiredContexts = slices.Clone(d.RequiredContexts)
			c.Payload = slices.Clone(d.Payload)
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (s *Server) sortedRepos() []*repoState {
	keys := make([]string, 0, len(s.repos))
	for k := range s.repos {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*repoState, len(keys))
	for i, k := range keys {
		out[i] = s.repos[k]
	}
	return out
}

func (r *repoState) sortedItems() []*item {
	out := make([]*item, 0, len(r.items))
	for _, it := range r.items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number < out[j].number })
	return out
}

func (s *Server) issueView(r *repoState, it *item) Issue {
	return Issue{
		Owner: r.owner, Repo: r.name,
		Number: it.number, ID: it.id,
		Title: it.title, Body: it.body, Login: it.login,
		State: it.state, StateReason: it.stateReason,
		Labels: slices.Clone(it.labels), Assignees: slices.Clone(it.assignees),
		HTMLURL:   s.itemHTMLURL(r, it),
		CreatedAt: it.created, UpdatedAt: it.updated, ClosedAt: it.closed,
	}
}

func (s *Server) prView(r *repoState, it *item) PR {
	return PR{
		Owner: r.owner, Repo: r.name,
		Number: it.number,
		Title:  it.title, Body: it.body, Login: it.login, State: it.state,
		HeadSHA: it.pr.headSHA, HeadRef: it.pr.headRef,
		BaseSHA: it.pr.baseSHA, BaseRef: it.pr.baseRef,
		MergeCommitSHA: it.pr.mergeCommitSHA,
		Merged:         it.pr.merged, Draft: it.pr.draft,
		Labels: slices.Clone(it.labels),
	}
}
