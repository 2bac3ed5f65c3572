package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// What the deploy gate's approval rules read besides reviews and labels:
// each user's permission on the repository, who pushed each commit to a
// branch (the repository's activity) and when auto-merge was enabled (the
// pull request's timeline).

// Operation IDs of the approval reads.
const (
	OpGetCollaboratorPermission = "repos/get-collaborator-permission-level"
	OpListActivities            = "repos/list-activities"
	OpListTimeline              = "issues/list-events-for-timeline"
)

// roles are GitHub's repository roles and the base permission the
// permission API answers for each (maintain reads as write, triage as read).
var roles = map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}

// DefaultRole is the role of a login SetPermission was not called for: any
// signed-in account reads a public repository.
const DefaultRole = "read"

// SetPermission gives login role on owner/repo: admin, maintain, write,
// triage, read or none (owner and repo default as for AddPullRequest).
func (s *Server) SetPermission(owner, repo, login, role string) {
	s.t.Helper()
	if _, ok := roles[role]; !ok {
		s.t.Fatalf("githubtest: SetPermission: %q is no repository role", role)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo = s.defaults(owner, repo)
	r := s.repo(owner, repo)
	if r.permissions == nil {
		r.permissions = map[string]string{}
	}
	r.permissions[strings.ToLower(login)] = role
}

// activity is one push to a branch.
type activity struct {
	id                 int64
	ref, before, after string
	typ, login         string
	at                 time.Time
}

// pushed records that login moved branch from before to after. Called
// with s.mu held.
func (s *Server) pushed(r *repoState, branch, before, after, login, typ string, at time.Time) {
	r.activities = append(r.activities, activity{id: s.id("activity"), ref: "refs/heads/" + branch, before: before, after: after, typ: typ, login: login, at: at})
}

// pushTo moves pull request it's head to sha as login's push. Called with
// s.mu held.
func (s *Server) pushTo(owner, repo string, it *item, sha, login string) {
	owner, repo = s.defaults(owner, repo)
	now := s.now()
	if it.pr.forkOwner == "" {
		s.pushed(s.repo(owner, repo), it.pr.headRef, it.pr.headSHA, sha, login, "push", now)
	}
	it.pr.headSHA, it.updated = sha, now
}

// PushAs moves pull request number's head to sha as login's push to its
// branch: someone other than the author pushing to it.
func (s *Server) PushAs(owner, repo string, number int, sha, login string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if it := s.pullRequest("PushAs", owner, repo, number, false); it != nil {
		s.pushTo(owner, repo, it, sha, login)
	}
}

// autoMergeEvent is auto-merge enabled or disabled on a pull request.
type autoMergeEvent struct {
	id      int64
	enabled bool
	login   string
	at      time.Time
}

// SetAutoMerge records that login enabled (or disabled) auto-merge on pull
// request number at at.
func (s *Server) SetAutoMerge(owner, repo string, number int, enabled bool, login string, at time.Time) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if it := s.pullItem("SetAutoMerge", owner, repo, number); it != nil {
		it.autoMerge = append(it.autoMerge, autoMergeEvent{id: s.id("event"), enabled: enabled, login: login, at: at.UTC()})
		slices.SortStableFunc(it.autoMerge, func(a, b autoMergeEvent) int { return a.at.Compare(b.at) })
	}
}

// MergeAt sets when a seeded merged pull request merged (GitHub's times
// have one-second resolution).
func (s *Server) MergeAt(owner, repo string, number int, at time.Time) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if it := s.pullItem("MergeAt", owner, repo, number); it != nil {
		if !it.pr.merged {
			s.t.Fatalf("githubtest: MergeAt: #%d is not merged", number)
			return
		}
		it.pr.mergedAt, it.closed = at.UTC().Truncate(time.Second), at.UTC().Truncate(time.Second)
	}
}

// getCollaboratorPermission serves a user's permission on the repository.
func (c *call) getCollaboratorPermission() response {
	r := c.repo()
	login := c.params["username"]
	role := r.permissions[strings.ToLower(login)]
	if role == "" {
		role = DefaultRole
	}
	user := c.s.renderUser(login)
	user["permissions"] = map[string]any{"admin": role == "admin", "maintain": role == "maintain" || role == "admin",
		"push": roles[role] == "write" || role == "admin", "triage": role != "read" && role != "none", "pull": role != "none"}
	user["role_name"] = role
	return jsonResponse(http.StatusOK, map[string]any{"permission": roles[role], "role_name": role, "user": user})
}

// listActivities serves the repository's pushes, newest first, filtered
// by ref and activity_type as GitHub does (one page: the fake keeps few).
func (c *call) listActivities() response {
	r := c.repo()
	q := c.r.URL.Query()
	ref := q.Get("ref")
	if ref != "" && !strings.HasPrefix(ref, "refs/") {
		ref = "refs/heads/" + ref
	}
	out := []map[string]any{}
	for i := len(r.activities) - 1; i >= 0; i-- {
		a := r.activities[i]
		if ref != "" && a.ref != ref || q.Get("activity_type") != "" && q.Get("activity_type") != a.typ || q.Get("actor") != "" && !strings.EqualFold(q.Get("actor"), a.login) {
			continue
		}
		before := a.before
		if before == "" {
			before = strings.Repeat("0", 40)
		}
		out = append(out, map[string]any{"id": a.id, "node_id": fmt.Sprintf("RA_%d", a.id), "before": before, "after": a.after, "ref": a.ref,
			"timestamp": ts(a.at), "activity_type": a.typ, "actor": c.s.renderUser(a.login)})
	}
	return jsonResponse(http.StatusOK, out)
}

// listTimeline serves a pull request's timeline, oldest first: the label
// and auto-merge events (the only ones the fake records).
func (c *call) listTimeline() response {
	r := c.repo()
	it := r.items[int(c.intParam("issue_number"))]
	if it == nil {
		return notFound()
	}
	type event struct {
		at     time.Time
		render map[string]any
	}
	var all []event
	common := func(id int64, name, login string, at time.Time) map[string]any {
		return map[string]any{"id": id, "node_id": fmt.Sprintf("E_%d", id), "url": fmt.Sprintf("%s/issues/events/%d", c.s.repoAPIURL(r), id),
			"actor": c.s.renderUser(login), "event": name, "commit_id": nil, "commit_url": nil, "created_at": ts(at), "performed_via_github_app": nil}
	}
	for _, e := range it.labelEvents {
		m := common(e.id, e.event, e.login, e.at)
		m["label"] = map[string]any{"name": e.label, "color": "ededed"}
		all = append(all, event{e.at, m})
	}
	for _, e := range it.autoMerge {
		name := "auto_merge_disabled"
		if e.enabled {
			name = "auto_merge_enabled"
		}
		all = append(all, event{e.at, common(e.id, name, e.login, e.at)})
	}
	slices.SortStableFunc(all, func(a, b event) int { return a.at.Compare(b.at) })
	lo, hi, headers := c.paginate(len(all))
	out := make([]map[string]any, 0, hi-lo)
	for _, e := range all[lo:hi] {
		out = append(out, e.render)
	}
	return pageResponse(out, headers)
}
