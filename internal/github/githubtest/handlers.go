package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// GitHub's limits, as GitHub counts them.
const (
	// MaxCommentRunes is the longest issue or comment body, in characters.
	MaxCommentRunes = 65536
	// MaxCheckRunOutputBytes is the longest check run output summary or
	// text, in bytes (GitHub's docs say "characters"; it counts bytes).
	MaxCheckRunOutputBytes = 65535
	// MaxAnnotationsPerRequest is how many annotations one create or update
	// may carry.
	MaxAnnotationsPerRequest = 50
)

// handler serves one operation. It runs with the server's lock held.
type handler func(*call) response

// handlers maps operation IDs to their implementation; it is fixed at
// compile time and never modified.
var handlers = map[string]handler{
	OpGetAuthenticatedUser:      (*call).getUser,
	OpListIssueComments:         (*call).listComments,
	OpListIssueEvents:           (*call).listEvents,
	OpCreateIssueComment:        (*call).createComment,
	OpUpdateIssueComment:        (*call).updateComment,
	OpDeleteIssueComment:        (*call).deleteComment,
	OpCreateCheckRun:            (*call).createCheckRun,
	OpUpdateCheckRun:            (*call).updateCheckRun,
	OpListCheckRunsForRef:       (*call).listCheckRunsForRef,
	OpGetPullRequest:            (*call).getPullRequest,
	OpListReviews:               (*call).listReviews,
	OpListPullRequestsForCommit: (*call).listPullRequestsForCommit,
	OpCompareCommits:            (*call).compareCommits,
	OpListMatchingRefs:          (*call).listMatchingRefs,
	OpListPullRequests:          (*call).listPullRequests,
	OpListIssues:                (*call).listIssues,
	OpCreateIssue:               (*call).createIssue,
	OpUpdateIssue:               (*call).updateIssue,
	OpCreateDeployment:          (*call).createDeployment,
	OpCreateDeploymentStatus:    (*call).createDeploymentStatus,
	OpGetCollaboratorPermission: (*call).getCollaboratorPermission,
	OpListActivities:            (*call).listActivities,
	OpListTimeline:              (*call).listTimeline,
}

// call is one request being served.
type call struct {
	s      *Server
	r      *http.Request
	path   string
	params map[string]string
	body   []byte
	login  string
	rec    *Request
	// rejection, when set, reports the request as invalid once the lock is
	// released.
	rejection string
}

// invalid answers 422 with GitHub's body and marks the request as a client
// error to report.
func (c *call) invalid(reason string, resp response) response {
	c.rejection = reason
	return resp
}

func invalidRequest(reason string) response {
	return apiError(http.StatusUnprocessableEntity, "Invalid request.\n\n"+reason)
}

func validationFailed(resource, field, code, message string) response {
	e := map[string]any{"resource": resource, "field": field, "code": code}
	if message != "" {
		e["message"] = message
	}
	return apiError(http.StatusUnprocessableEntity, "Validation Failed", e)
}

func notFound() response { return apiError(http.StatusNotFound, "Not Found") }

func (c *call) repo() *repoState { return c.s.repo(c.params["owner"], c.params["repo"]) }

// intParam reads a path parameter the spec declares as an integer (already
// validated).
func (c *call) intParam(name string) int64 {
	n, _ := strconv.ParseInt(c.params[name], 10, 64)
	return n
}

func (c *call) decode(v any) (response, bool) {
	dec := json.NewDecoder(bytes.NewReader(c.body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return c.invalid("decode body: "+err.Error(), apiError(http.StatusBadRequest, "Problems parsing JSON")), false
	}
	return response{}, true
}

// paginate slices n items the way GitHub pages them: per_page (default 30,
// at most 100) and page (from 1), with a Link header naming the prev, next,
// last and first pages when there are several.
// renderPage renders the page of items the request asks for, with the Link
// headers that name the other pages.
func renderPage[T any](c *call, items []T, render func(T) map[string]any) ([]map[string]any, map[string]string) {
	lo, hi, headers := c.paginate(len(items))
	out := make([]map[string]any, 0, hi-lo)
	for _, it := range items[lo:hi] {
		out = append(out, render(it))
	}
	return out, headers
}

// pageResponse answers one page of a listing.
func pageResponse(body any, headers map[string]string) response {
	resp := jsonResponse(http.StatusOK, body)
	resp.headers = headers
	return resp
}

func (c *call) paginate(n int) (lo, hi int, headers map[string]string) {
	q := c.r.URL.Query()
	perPage, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page <= 0 {
		page = 1
	}
	last := max(1, (n+perPage-1)/perPage)
	lo = min(n, (page-1)*perPage)
	hi = min(n, lo+perPage)

	link := func(p int, rel string) string {
		q := c.r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		u := url.URL{Path: c.r.URL.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s%s>; rel=%q", c.s.URL, u.String(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(min(page-1, last), "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		headers = map[string]string{"Link": strings.Join(links, ", ")}
	}
	return lo, hi, headers
}

func (c *call) getUser() response {
	if c.login == "" {
		return apiError(http.StatusUnauthorized, "Requires authentication")
	}
	return jsonResponse(http.StatusOK, c.s.renderUser(c.login))
}

func (c *call) listComments() response {
	r := c.repo()
	number := int(c.intParam("issue_number"))
	if r.items[number] == nil {
		return notFound()
	}
	var since time.Time
	if v := c.r.URL.Query().Get("since"); v != "" {
		since, _ = time.Parse(time.RFC3339, v)
	}
	var matched []*Comment
	for _, cm := range r.comments {
		if cm.IssueNumber == number && !cm.UpdatedAt.Before(since) {
			matched = append(matched, cm)
		}
	}
	out, headers := renderPage(c, matched, func(cm *Comment) map[string]any { return c.s.renderComment(r, cm) })
	return pageResponse(out, headers)
}

type commentBody struct {
	Body string `json:"body"`
}

// checkBody applies GitHub's rules for issue and comment bodies.
func (c *call) checkBody(resource, body string) (response, bool) {
	if strings.TrimSpace(body) == "" && resource == "IssueComment" {
		return c.invalid("body is blank", validationFailed(resource, "body", "missing_field", "Body cannot be blank")), false
	}
	if n := utf8.RuneCountInString(body); n > MaxCommentRunes {
		msg := fmt.Sprintf("Body is too long (maximum is %d characters)", MaxCommentRunes)
		return c.invalid(fmt.Sprintf("body has %d characters, more than GitHub's %d", n, MaxCommentRunes),
			validationFailed(resource, "body", "custom", msg)), false
	}
	return response{}, true
}

func (c *call) createComment() response {
	var b commentBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if resp, ok := c.checkBody("IssueComment", b.Body); !ok {
		return resp
	}
	r := c.repo()
	it := r.items[int(c.intParam("issue_number"))]
	if it == nil {
		return notFound()
	}
	cm := c.s.newComment(r, it, c.login, b.Body)
	it.updated = cm.CreatedAt
	return jsonResponse(http.StatusCreated, c.s.renderComment(r, cm))
}

func (c *call) findComment() (*repoState, int, response, bool) {
	r := c.repo()
	id := c.intParam("comment_id")
	for i, cm := range r.comments {
		if cm.ID == id {
			// Only the author may change a comment: GitHub answers an
			// integration that tries to edit someone else's with 403.
			if cm.Login != c.login {
				return nil, 0, apiError(http.StatusForbidden, "Resource not accessible by integration"), false
			}
			return r, i, response{}, true
		}
	}
	return nil, 0, notFound(), false
}

func (c *call) updateComment() response {
	var b commentBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if resp, ok := c.checkBody("IssueComment", b.Body); !ok {
		return resp
	}
	r, i, resp, ok := c.findComment()
	if !ok {
		return resp
	}
	cm := r.comments[i]
	cm.Body = b.Body
	cm.UpdatedAt = c.s.now()
	return jsonResponse(http.StatusOK, c.s.renderComment(r, cm))
}

func (c *call) deleteComment() response {
	r, i, resp, ok := c.findComment()
	if !ok {
		return resp
	}
	r.comments = slices.Delete(r.comments, i, i+1)
	return response{status: http.StatusNoContent}
}

func (c *call) getPullRequest() response {
	r := c.repo()
	it := r.items[int(c.intParam("pull_number"))]
	if it == nil || it.pr == nil {
		return notFound()
	}
	return jsonResponse(http.StatusOK, c.s.renderPR(r, it))
}

// listPullRequests serves GET /pulls with GitHub's state (default open) and
// head ("user:ref", the head repository's owner and branch) filters.
func (c *call) listPullRequests() response {
	r := c.repo()
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	headOwner, headRef, byHead := strings.Cut(q.Get("head"), ":")
	var matched []*item
	for _, it := range r.sortedItems() {
		if it.pr == nil || (state != "all" && it.state != state) {
			continue
		}
		if byHead && (!strings.EqualFold(it.pr.headOwner(r), headOwner) || it.pr.headRef != headRef) {
			continue
		}
		matched = append(matched, it)
	}
	out, headers := renderPage(c, matched, func(it *item) map[string]any { return c.s.renderPR(r, it) })
	return pageResponse(out, headers)
}

func (c *call) listPullRequestsForCommit() response {
	r := c.repo()
	sha := c.params["commit_sha"]
	var matched []*item
	for _, it := range r.sortedItems() {
		if it.pr == nil {
			continue
		}
		if it.pr.headSHA == sha || (it.pr.merged && it.pr.mergeCommitSHA == sha) {
			matched = append(matched, it)
		}
	}
	out, headers := renderPage(c, matched, func(it *item) map[string]any { return c.s.renderPR(r, it) })
	return pageResponse(out, headers)
}

// compareCommits answers a compare of base...head with the commits a test
// seeded for it (SetCommits), oldest first; an unknown pair is 404, as for
// a commit GitHub does not have.
func (c *call) compareCommits() response {
	r := c.repo()
	base, head, ok := strings.Cut(c.params["basehead"], "...")
	shas, known := r.commits[base+"..."+head]
	if !ok || !known {
		return notFound()
	}
	commits, headers := renderPage(c, shas, func(sha string) map[string]any { return c.s.renderCommit(r, sha) })
	return pageResponse(c.s.renderComparison(r, base, head, len(shas), commits), headers)
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)
