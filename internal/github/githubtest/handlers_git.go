package githubtest

import (
	"slices"
	"strings"
)

// SetRef points the ref name (refs/heads/...) at sha, creating it: a merge
// queue's entry is one, refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>.
func (s *Server) SetRef(owner, repo, name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo = s.defaults(owner, repo)
	r := s.repo(owner, repo)
	if r.refs == nil {
		r.refs = map[string]string{}
	}
	r.refs[name] = sha
}

// DeleteRef removes the ref name, as the queue does when an entry leaves.
func (s *Server) DeleteRef(owner, repo, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo = s.defaults(owner, repo)
	delete(s.repo(owner, repo).refs, name)
}

// listMatchingRefs answers every ref whose name starts with refs/<ref>,
// sorted by name, as GitHub does: a prefix, not a pattern, so
// heads/gh-readonly-queue/main/ lists main's queue and nothing of main-2's.
// An empty answer is an empty list, not a 404.
func (c *call) listMatchingRefs() response {
	r := c.repo()
	prefix := "refs/" + c.params["ref"]
	var names []string
	for name := range r.refs {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	api := c.s.repoAPIURL(r)
	out := make([]map[string]any, 0, len(names))
	for _, name := range names {
		sha := r.refs[name]
		out = append(out, map[string]any{
			"ref": name, "node_id": "REF_" + name, "url": api + "/git/" + name,
			"object": map[string]any{"type": "commit", "sha": sha, "url": api + "/git/commits/" + sha},
		})
	}
	return jsonResponse(200, out)
}
