package githubtest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// This file renders stored objects the way GitHub's JSON looks: the fields a
// client is likely to read, with GitHub's names and nulls.

func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// userID gives each login a stable ID. github-actions[bot] has its real one.
// Called with s.mu held.
func (s *Server) userID(login string) int64 {
	if id, ok := s.userIDs[login]; ok {
		return id
	}
	id := int64(1000 + len(s.userIDs))
	if login == "github-actions[bot]" {
		id = 41898282
	}
	s.userIDs[login] = id
	return id
}

func (s *Server) renderUser(login string) map[string]any {
	if login == "" {
		return nil
	}
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	id := s.userID(login)
	api := s.APIURL() + "/users/" + url.PathEscape(login)
	// Every field GitHub's simple-user schema requires.
	return map[string]any{
		"login":               login,
		"id":                  id,
		"node_id":             fmt.Sprintf("U_%d", id),
		"type":                typ,
		"site_admin":          false,
		"url":                 api,
		"html_url":            s.URL + "/" + url.PathEscape(login),
		"avatar_url":          s.URL + "/avatars/" + strconv.FormatInt(id, 10),
		"gravatar_id":         "",
		"events_url":          api + "/events{/privacy}",
		"followers_url":       api + "/followers",
		"following_url":       api + "/following{/other_user}",
		"gists_url":           api + "/gists{/gist_id}",
		"organizations_url":   api + "/orgs",
		"received_events_url": api + "/received_events",
		"repos_url":           api + "/repos",
		"starred_url":         api + "/starred{/owner}{/repo}",
		"subscriptions_url":   api + "/subscriptions",
	}
}

func (s *Server) repoAPIURL(r *repoState) string {
	return fmt.Sprintf("%s/repos/%s/%s", s.APIURL(), r.owner, r.name)
}

func (s *Server) renderRepo(r *repoState) map[string]any {
	return map[string]any{
		"name":      r.name,
		"full_name": r.owner + "/" + r.name,
		"owner":     s.renderUser(r.owner),
		"url":       s.repoAPIURL(r),
		"html_url":  s.URL + "/" + r.owner + "/" + r.name,
	}
}

func (s *Server) renderComment(r *repoState, c *Comment) map[string]any {
	return map[string]any{
		"id":                 c.ID,
		"node_id":            fmt.Sprintf("IC_%d", c.ID),
		"body":               c.Body,
		"user":               s.renderUser(c.Login),
		"author_association": "NONE",
		"created_at":         ts(c.CreatedAt),
		"updated_at":         ts(c.UpdatedAt),
		"html_url":           c.HTMLURL,
		"url":                fmt.Sprintf("%s/issues/comments/%d", s.repoAPIURL(r), c.ID),
		"issue_url":          fmt.Sprintf("%s/issues/%d", s.repoAPIURL(r), c.IssueNumber),
	}
}

func (s *Server) renderLabels(names []string) []map[string]any {
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, map[string]any{
			"name":    n,
			"color":   "ededed",
			"default": false,
		})
	}
	return out
}

func (s *Server) renderIssue(r *repoState, it *item) map[string]any {
	assignees := make([]map[string]any, 0, len(it.assignees))
	for _, a := range it.assignees {
		assignees = append(assignees, s.renderUser(a))
	}
	var assignee any
	if len(assignees) > 0 {
		assignee = assignees[0]
	}
	comments := 0
	for _, c := range r.comments {
		if c.IssueNumber == it.number {
			comments++
		}
	}
	out := map[string]any{
		"id":             it.id,
		"node_id":        fmt.Sprintf("I_%d", it.id),
		"number":         it.number,
		"title":          it.title,
		"body":           orNull(it.body),
		"state":          it.state,
		"state_reason":   orNull(it.stateReason),
		"locked":         false,
		"user":           s.renderUser(it.login),
		"labels":         s.renderLabels(it.labels),
		"assignee":       assignee,
		"assignees":      assignees,
		"comments":       comments,
		"created_at":     ts(it.created),
		"updated_at":     ts(it.updated),
		"closed_at":      ts(it.closed),
		"html_url":       s.itemHTMLURL(r, it),
		"url":            fmt.Sprintf("%s/issues/%d", s.repoAPIURL(r), it.number),
		"repository_url": s.repoAPIURL(r),
		"comments_url":   fmt.Sprintf("%s/issues/%d/comments", s.repoAPIURL(r), it.number),
	}
	if it.pr != nil {
		out["pull_request"] = map[string]any{
			"url":       fmt.Sprintf("%s/pulls/%d", s.repoAPIURL(r), it.number),
			"html_url":  s.itemHTMLURL(r, it),
			"merged_at": ts(it.pr.mergedAt),
		}
	}
	return out
}

func (s *Server) renderPR(r *repoState, it *item) map[string]any {
	repo := s.renderRepo(r)
	branch := func(owner, ref, sha string, repo map[string]any) map[string]any {
		return map[string]any{
			"label": owner + ":" + ref,
			"ref":   ref,
			"sha":   sha,
			"repo":  repo,
			"user":  s.renderUser(owner),
		}
	}
	headOwner, headRepo := r.owner, repo
	if it.pr.forkOwner != "" {
		headOwner = it.pr.forkOwner
		headRepo = s.renderRepo(&repoState{owner: it.pr.forkOwner, name: it.pr.forkRepo, items: map[int]*item{}})
	}
	var mergeCommit any
	if it.pr.mergeCommitSHA != "" {
		mergeCommit = it.pr.mergeCommitSHA
	}
	return map[string]any{
		"id":               it.id,
		"node_id":          fmt.Sprintf("PR_%d", it.id),
		"number":           it.number,
		"state":            it.state,
		"title":            it.title,
		"body":             orNull(it.body),
		"user":             s.renderUser(it.login),
		"labels":           s.renderLabels(it.labels),
		"draft":            it.pr.draft,
		"merged":           it.pr.merged,
		"merge_commit_sha": mergeCommit,
		"merged_at":        ts(it.pr.mergedAt),
		"created_at":       ts(it.created),
		"updated_at":       ts(it.updated),
		"closed_at":        ts(it.closed),
		"head":             branch(headOwner, it.pr.headRef, it.pr.headSHA, headRepo),
		"base":             branch(r.owner, it.pr.baseRef, it.pr.baseSHA, repo),
		"html_url":         s.itemHTMLURL(r, it),
		"url":              fmt.Sprintf("%s/pulls/%d", s.repoAPIURL(r), it.number),
		"issue_url":        fmt.Sprintf("%s/issues/%d", s.repoAPIURL(r), it.number),
		"comments_url":     fmt.Sprintf("%s/issues/%d/comments", s.repoAPIURL(r), it.number),
	}
}

func (s *Server) renderCheckRun(cr *CheckRun) map[string]any {
	r := s.repo(cr.Owner, cr.Repo)
	return map[string]any{
		"id":           cr.ID,
		"node_id":      fmt.Sprintf("CR_%d", cr.ID),
		"name":         cr.Name,
		"head_sha":     cr.HeadSHA,
		"status":       cr.Status,
		"conclusion":   orNull(cr.Conclusion),
		"details_url":  orNull(cr.DetailsURL),
		"external_id":  orNull(cr.ExternalID),
		"started_at":   ts(cr.StartedAt),
		"completed_at": ts(cr.CompletedAt),
		"output": map[string]any{
			"title":             orNull(cr.Output.Title),
			"summary":           orNull(cr.Output.Summary),
			"text":              orNull(cr.Output.Text),
			"annotations_count": len(cr.Annotations),
			"annotations_url":   fmt.Sprintf("%s/check-runs/%d/annotations", s.repoAPIURL(r), cr.ID),
		},
		"html_url":      cr.HTMLURL,
		"url":           fmt.Sprintf("%s/check-runs/%d", s.repoAPIURL(r), cr.ID),
		"pull_requests": []any{},
		"app":           s.renderApp(cr.Login),
	}
}

// renderApp is the GitHub App a check run belongs to: the one whose bot
// created it (deployer[bot] belongs to the app deployer; github-actions[bot]
// to GitHub Actions, with its real ID). GitHub lets only apps create check
// runs; the fake lets any login, and gives a user an app named after it.
// Called with s.mu held.
func (s *Server) renderApp(login string) map[string]any {
	if login == "" {
		return nil
	}
	slug := strings.TrimSuffix(login, "[bot]")
	id, name := 2000+s.userID(login), slug
	if slug == "github-actions" {
		id, name = 15368, "GitHub Actions"
	}
	return map[string]any{
		"id":      id,
		"slug":    slug,
		"node_id": fmt.Sprintf("A_%d", id),
		"name":    name,
	}
}

func (s *Server) renderDeployment(r *repoState, d *Deployment) map[string]any {
	var payload any = map[string]any{}
	if len(d.Payload) > 0 {
		payload = json.RawMessage(d.Payload)
	}
	return map[string]any{
		"id":                     d.ID,
		"node_id":                fmt.Sprintf("DE_%d", d.ID),
		"sha":                    d.SHA,
		"ref":                    d.Ref,
		"task":                   d.Task,
		"payload":                payload,
		"environment":            d.Environment,
		"original_environment":   d.Environment,
		"description":            orNull(d.Description),
		"creator":                s.renderUser(d.Login),
		"created_at":             ts(d.CreatedAt),
		"updated_at":             ts(d.CreatedAt),
		"transient_environment":  d.TransientEnvironment,
		"production_environment": d.ProductionEnvironment,
		"url":                    fmt.Sprintf("%s/deployments/%d", s.repoAPIURL(r), d.ID),
		"statuses_url":           fmt.Sprintf("%s/deployments/%d/statuses", s.repoAPIURL(r), d.ID),
		"repository_url":         s.repoAPIURL(r),
	}
}

func (s *Server) renderDeploymentStatus(r *repoState, d *Deployment, st *DeploymentStatus) map[string]any {
	return map[string]any{
		"id":              st.ID,
		"node_id":         fmt.Sprintf("DES_%d", st.ID),
		"state":           st.State,
		"description":     st.Description,
		"environment":     st.Environment,
		"target_url":      st.TargetURL,
		"log_url":         st.LogURL,
		"environment_url": st.EnvironmentURL,
		"creator":         s.renderUser(st.Login),
		"created_at":      ts(st.CreatedAt),
		"updated_at":      ts(st.CreatedAt),
		"url":             fmt.Sprintf("%s/deployments/%d/statuses/%d", s.repoAPIURL(r), d.ID, st.ID),
		"deployment_url":  fmt.Sprintf("%s/deployments/%d", s.repoAPIURL(r), d.ID),
		"repository_url":  s.repoAPIURL(r),
	}
}

// renderCommit is a commit as a compare lists it, with the fields GitHub's
// description requires.
func (s *Server) renderCommit(r *repoState, sha string) map[string]any {
	api := s.repoAPIURL(r)
	return map[string]any{
		"url": api + "/commits/" + sha, "sha": sha, "node_id": "C_" + sha[:min(len(sha), 12)],
		"html_url":     fmt.Sprintf("%s/%s/%s/commit/%s", s.URL, r.owner, r.name, sha),
		"comments_url": api + "/commits/" + sha + "/comments",
		"commit": map[string]any{
			"author": nil, "committer": nil, "comment_count": 0, "message": "commit " + sha,
			"tree": map[string]any{"sha": sha, "url": api + "/git/trees/" + sha}, "url": api + "/git/commits/" + sha,
		},
		"author": nil, "committer": nil, "parents": []any{},
	}
}

// renderComparison is a compare of base...head listing commits.
func (s *Server) renderComparison(r *repoState, base, head string, total int, commits []map[string]any) map[string]any {
	api := s.repoAPIURL(r)
	html := fmt.Sprintf("%s/%s/%s/compare/%s...%s", s.URL, r.owner, r.name, base, head)
	baseCommit := s.renderCommit(r, base)
	return map[string]any{
		"url": api + "/compare/" + base + "..." + head, "html_url": html, "permalink_url": html,
		"diff_url": html + ".diff", "patch_url": html + ".patch",
		"base_commit": baseCommit, "merge_base_commit": baseCommit,
		"status": "ahead", "ahead_by": total, "behind_by": 0, "total_commits": total, "commits": commits,
	}
}
