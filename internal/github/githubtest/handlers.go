package githubtest

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
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
	OpListPullRequestsForCommit: (*call).listPullRequestsForCommit,
	OpListIssues:                (*call).listIssues,
	OpCreateIssue:               (*call).createIssue,
	OpUpdateIssue:               (*call).updateIssue,
	OpCreateDeployment:          (*call).createDeployment,
	OpCreateDeploymentStatus:    (*call).createDeploymentStatus,
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
	lo, hi, headers := c.paginate(len(matched))
	out := make([]map[string]any, 0, hi-lo)
	for _, cm := range matched[lo:hi] {
		out = append(out, c.s.renderComment(r, cm))
	}
	resp := jsonResponse(http.StatusOK, out)
	resp.headers = headers
	return resp
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

type checkRunBody struct {
	Name        *string `json:"name"`
	HeadSHA     *string `json:"head_sha"`
	DetailsURL  *string `json:"details_url"`
	ExternalID  *string `json:"external_id"`
	Status      *string `json:"status"`
	StartedAt   *string `json:"started_at"`
	Conclusion  *string `json:"conclusion"`
	CompletedAt *string `json:"completed_at"`
	Output      *struct {
		Title       *string      `json:"title"`
		Summary     *string      `json:"summary"`
		Text        *string      `json:"text"`
		Annotations []Annotation `json:"annotations"`
	} `json:"output"`
}

// checkCheckRun applies GitHub's rules that the schema does not (fully)
// express. It returns a reason, or "".
func checkCheckRun(b *checkRunBody, create bool) string {
	if b.Conclusion != nil && *b.Conclusion == "stale" {
		return `conclusion "stale" can only be set by GitHub`
	}
	if create && b.Status != nil && *b.Status == "completed" && b.Conclusion == nil {
		return `"conclusion" wasn't supplied for a completed check run`
	}
	if b.CompletedAt != nil && b.Conclusion == nil && create {
		return `"conclusion" wasn't supplied with "completed_at"`
	}
	o := b.Output
	if o == nil {
		return ""
	}
	if o.Title == nil {
		return `"title" wasn't supplied with "output"`
	}
	for _, f := range []struct {
		name  string
		value *string
	}{{"output.summary", o.Summary}, {"output.text", o.Text}} {
		if f.value != nil && len(*f.value) > MaxCheckRunOutputBytes {
			return fmt.Sprintf("Only %d characters are allowed; %d were supplied (%s, counted in bytes)", MaxCheckRunOutputBytes, len(*f.value), f.name)
		}
	}
	if len(o.Annotations) > MaxAnnotationsPerRequest {
		return fmt.Sprintf("%d annotations in one request; at most %d are allowed", len(o.Annotations), MaxAnnotationsPerRequest)
	}
	for i, a := range o.Annotations {
		switch {
		case a.StartLine > a.EndLine:
			return fmt.Sprintf("annotation %d: start_line %d is after end_line %d", i, a.StartLine, a.EndLine)
		case (a.StartColumn != 0 || a.EndColumn != 0) && a.StartLine != a.EndLine:
			return fmt.Sprintf("annotation %d: start_column and end_column are only allowed when start_line equals end_line", i)
		case utf8.RuneCountInString(a.Title) > 255:
			return fmt.Sprintf("annotation %d: title is longer than 255 characters", i)
		case len(a.Message) > 64*1024:
			return fmt.Sprintf("annotation %d: message is larger than 64 KB", i)
		case len(a.RawDetails) > 64*1024:
			return fmt.Sprintf("annotation %d: raw_details is larger than 64 KB", i)
		}
	}
	return ""
}

// apply copies the fields present in b onto cr.
func (c *call) applyCheckRun(cr *CheckRun, b *checkRunBody) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	setTime := func(dst *time.Time, src *string) {
		if src != nil {
			if t, err := time.Parse(time.RFC3339, *src); err == nil {
				*dst = t.UTC()
			}
		}
	}
	set(&cr.Name, b.Name)
	set(&cr.DetailsURL, b.DetailsURL)
	set(&cr.ExternalID, b.ExternalID)
	set(&cr.Status, b.Status)
	setTime(&cr.StartedAt, b.StartedAt)
	setTime(&cr.CompletedAt, b.CompletedAt)
	if b.Conclusion != nil {
		cr.Conclusion = *b.Conclusion
		cr.Status = "completed"
	}
	if cr.Status == "completed" && cr.CompletedAt.IsZero() {
		cr.CompletedAt = c.s.now()
	}
	if o := b.Output; o != nil {
		set(&cr.Output.Title, o.Title)
		set(&cr.Output.Summary, o.Summary)
		set(&cr.Output.Text, o.Text)
		cr.Annotations = append(cr.Annotations, o.Annotations...)
	}
}

func (c *call) createCheckRun() response {
	var b checkRunBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if reason := checkCheckRun(&b, true); reason != "" {
		return c.invalid(reason, invalidRequest(reason))
	}
	r := c.repo()
	cr := &CheckRun{
		ID:     c.s.id("check_run"),
		Owner:  r.owner,
		Repo:   r.name,
		Status: "queued",
		Login:  c.login,
	}
	cr.HTMLURL = fmt.Sprintf("%s/%s/%s/runs/%d", c.s.URL, r.owner, r.name, cr.ID)
	cr.HeadSHA = *b.HeadSHA
	c.applyCheckRun(cr, &b)
	if cr.StartedAt.IsZero() {
		cr.StartedAt = c.s.now()
	}
	c.s.checkRuns = append(c.s.checkRuns, cr)
	return jsonResponse(http.StatusCreated, c.s.renderCheckRun(cr))
}

func (c *call) updateCheckRun() response {
	var b checkRunBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if reason := checkCheckRun(&b, false); reason != "" {
		return c.invalid(reason, invalidRequest(reason))
	}
	r := c.repo()
	id := c.intParam("check_run_id")
	for _, cr := range c.s.checkRuns {
		if cr.ID == id && strings.EqualFold(cr.Owner+"/"+cr.Repo, r.owner+"/"+r.name) {
			c.applyCheckRun(cr, &b)
			cr.Updates++
			return jsonResponse(http.StatusOK, c.s.renderCheckRun(cr))
		}
	}
	return notFound()
}

// listCheckRunsForRef lists the repository's check runs on a commit (a
// SHA, or a branch the fake knows as a pull request's head), newest first,
// filtered by check_name and status. filter=latest (GitHub's default) keeps
// the newest run of each name; filter=all keeps every run. app_id is
// accepted and ignored.
func (c *call) listCheckRunsForRef() response {
	r := c.repo()
	q := c.r.URL.Query()
	ref := c.params["ref"]
	sha := r.resolveRef(ref)
	name, status := q.Get("check_name"), q.Get("status")
	latest := q.Get("filter") != "all"
	var matched []*CheckRun
	seen := map[string]bool{}
	for i := len(c.s.checkRuns) - 1; i >= 0; i-- { // IDs grow: newest first
		cr := c.s.checkRuns[i]
		switch {
		case !strings.EqualFold(cr.Owner+"/"+cr.Repo, r.owner+"/"+r.name):
		case cr.HeadSHA != ref && cr.HeadSHA != sha:
		case name != "" && cr.Name != name:
		case status != "" && cr.Status != status:
		case latest && seen[cr.Name]:
		default:
			seen[cr.Name] = true
			matched = append(matched, cr)
		}
	}
	lo, hi, headers := c.paginate(len(matched))
	runs := make([]map[string]any, 0, hi-lo)
	for _, cr := range matched[lo:hi] {
		runs = append(runs, c.s.renderCheckRun(cr))
	}
	resp := jsonResponse(http.StatusOK, map[string]any{"total_count": len(matched), "check_runs": runs})
	resp.headers = headers
	return resp
}

func (c *call) getPullRequest() response {
	r := c.repo()
	it := r.items[int(c.intParam("pull_number"))]
	if it == nil || it.pr == nil {
		return notFound()
	}
	return jsonResponse(http.StatusOK, c.s.renderPR(r, it))
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
	lo, hi, headers := c.paginate(len(matched))
	out := make([]map[string]any, 0, hi-lo)
	for _, it := range matched[lo:hi] {
		out = append(out, c.s.renderPR(r, it))
	}
	resp := jsonResponse(http.StatusOK, out)
	resp.headers = headers
	return resp
}

// listIssues lists issues and pull requests (as GitHub does) filtered by
// state, labels and creator, sorted by created or updated. Other filters
// (milestone, assignee, mentioned, type) are accepted and ignored.
func (c *call) listIssues() response {
	r := c.repo()
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var labels []string
	if v := q.Get("labels"); v != "" {
		for _, l := range strings.Split(v, ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
	}
	creator := q.Get("creator")
	var since time.Time
	if v := q.Get("since"); v != "" {
		since, _ = time.Parse(time.RFC3339, v)
	}

	var matched []*item
	for _, it := range r.items {
		if state != "all" && it.state != state {
			continue
		}
		if creator != "" && !strings.EqualFold(it.login, creator) {
			continue
		}
		if it.updated.Before(since) {
			continue
		}
		if !hasAllLabels(it.labels, labels) {
			continue
		}
		matched = append(matched, it)
	}
	key := func(it *item) time.Time { return it.created }
	if q.Get("sort") == "updated" {
		key = func(it *item) time.Time { return it.updated }
	}
	asc := q.Get("direction") == "asc"
	sort.Slice(matched, func(i, j int) bool {
		a, b := matched[i], matched[j]
		ka, kb := key(a), key(b)
		if !ka.Equal(kb) {
			return ka.Before(kb) == asc
		}
		return (a.number < b.number) == asc
	})

	lo, hi, headers := c.paginate(len(matched))
	out := make([]map[string]any, 0, hi-lo)
	for _, it := range matched[lo:hi] {
		out = append(out, c.s.renderIssue(r, it))
	}
	resp := jsonResponse(http.StatusOK, out)
	resp.headers = headers
	return resp
}

func hasAllLabels(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			return false
		}
	}
	return true
}

type issueBody struct {
	Title       json.RawMessage   `json:"title"`
	Body        *string           `json:"body"`
	State       *string           `json:"state"`
	StateReason *string           `json:"state_reason"`
	Labels      []json.RawMessage `json:"labels"`
	Assignees   []json.RawMessage `json:"assignees"`
	// labelsSent distinguishes "labels": [] (clear) from no labels field.
	labelsSent, assigneesSent bool
}

func (b *issueBody) UnmarshalJSON(data []byte) error {
	type plain issueBody
	if err := json.Unmarshal(data, (*plain)(b)); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	_, b.labelsSent = fields["labels"]
	_, b.assigneesSent = fields["assignees"]
	if string(fields["labels"]) == "null" {
		b.labelsSent = false
	}
	return nil
}

// title returns the title (GitHub accepts a string or an integer) and
// whether one was given.
func (b *issueBody) title() (string, bool) {
	if len(b.Title) == 0 || string(b.Title) == "null" {
		return "", false
	}
	var s string
	if err := json.Unmarshal(b.Title, &s); err == nil {
		return s, true
	}
	return string(b.Title), true
}

// names reads label or assignee items, each a string or an object with a
// name (labels) or login (assignees).
func names(items []json.RawMessage, key string) []string {
	var out []string
	for _, raw := range items {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			out = append(out, s)
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err == nil {
			if v, ok := obj[key].(string); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func (c *call) createIssue() response {
	var b issueBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	title, _ := b.title()
	if strings.TrimSpace(title) == "" {
		return c.invalid("title is blank", validationFailed("Issue", "title", "missing_field", ""))
	}
	body := ""
	if b.Body != nil {
		body = *b.Body
	}
	if resp, ok := c.checkBody("Issue", body); !ok {
		return resp
	}
	r := c.repo()
	now := c.s.now()
	it := &item{
		id:        c.s.id("issue"),
		title:     title,
		body:      body,
		login:     c.login,
		state:     "open",
		labels:    names(b.Labels, "name"),
		assignees: names(b.Assignees, "login"),
		created:   now,
		updated:   now,
	}
	if err := r.addItem(it); err != nil {
		return apiError(http.StatusInternalServerError, err.Error())
	}
	return jsonResponse(http.StatusCreated, c.s.renderIssue(r, it))
}

func (c *call) updateIssue() response {
	var b issueBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if b.Body != nil {
		if resp, ok := c.checkBody("Issue", *b.Body); !ok {
			return resp
		}
	}
	title, hasTitle := b.title()
	if hasTitle && strings.TrimSpace(title) == "" {
		return c.invalid("title is blank", validationFailed("Issue", "title", "missing_field", ""))
	}
	r := c.repo()
	it := r.items[int(c.intParam("issue_number"))]
	if it == nil {
		return notFound()
	}
	now := c.s.now()
	if hasTitle {
		it.title = title
	}
	if b.Body != nil {
		it.body = *b.Body
	}
	if b.State != nil && *b.State != it.state {
		it.state = *b.State
		it.stateReason = ""
		if b.StateReason != nil {
			it.stateReason = *b.StateReason
		} else if it.state == "closed" {
			it.stateReason = "completed"
		} else {
			it.stateReason = "reopened"
		}
		if it.state == "closed" {
			it.closed = now
		} else {
			it.closed = time.Time{}
		}
	}
	if b.labelsSent {
		it.labels = names(b.Labels, "name")
	}
	if b.assigneesSent {
		it.assignees = names(b.Assignees, "login")
	}
	it.updated = now
	return jsonResponse(http.StatusOK, c.s.renderIssue(r, it))
}

type deploymentBody struct {
	Ref                   string          `json:"ref"`
	Task                  *string         `json:"task"`
	AutoMerge             *bool           `json:"auto_merge"`
	RequiredContexts      []string        `json:"required_contexts"`
	Payload               json.RawMessage `json:"payload"`
	Environment           *string         `json:"environment"`
	Description           *string         `json:"description"`
	TransientEnvironment  *bool           `json:"transient_environment"`
	ProductionEnvironment *bool           `json:"production_environment"`
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// resolveRef finds the commit a ref names, as far as the fake knows.
func (r *repoState) resolveRef(ref string) string {
	if fullSHA.MatchString(ref) {
		return ref
	}
	short := strings.TrimPrefix(ref, "refs/heads/")
	for _, it := range r.sortedItems() {
		if it.pr != nil && it.pr.headRef == short && it.pr.headSHA != "" {
			return it.pr.headSHA
		}
	}
	return madeUpSHA(r.owner + "/" + r.name + "@" + ref)
}

// madeUpSHA is a stable 40-hex stand-in for a commit the fake does not know.
func madeUpSHA(seed string) string {
	sum := sha1.Sum([]byte(seed))
	return hex.EncodeToString(sum[:])
}

func (c *call) createDeployment() response {
	var b deploymentBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	r := c.repo()
	d := &Deployment{
		ID:          c.s.id("deployment"),
		Owner:       r.owner,
		Repo:        r.name,
		Ref:         b.Ref,
		SHA:         r.resolveRef(b.Ref),
		Task:        "deploy",
		Environment: "production",
		AutoMerge:   true,
		Login:       c.login,
		CreatedAt:   c.s.now(),
	}
	if b.Task != nil {
		d.Task = *b.Task
	}
	if b.Environment != nil {
		d.Environment = *b.Environment
	}
	if b.Description != nil {
		d.Description = *b.Description
	}
	if b.AutoMerge != nil {
		d.AutoMerge = *b.AutoMerge
	}
	if b.RequiredContexts != nil {
		d.RequiredContexts = slices.Clone(b.RequiredContexts)
	}
	if len(b.Payload) > 0 && string(b.Payload) != "null" {
		d.Payload = slices.Clone(b.Payload)
	}
	if b.TransientEnvironment != nil {
		d.TransientEnvironment = *b.TransientEnvironment
	}
	d.ProductionEnvironment = d.Environment == "production"
	if b.ProductionEnvironment != nil {
		d.ProductionEnvironment = *b.ProductionEnvironment
	}
	r.deployments = append(r.deployments, d)
	return jsonResponse(http.StatusCreated, c.s.renderDeployment(r, d))
}

type deploymentStatusBody struct {
	State          string  `json:"state"`
	TargetURL      *string `json:"target_url"`
	LogURL         *string `json:"log_url"`
	Description    *string `json:"description"`
	Environment    *string `json:"environment"`
	EnvironmentURL *string `json:"environment_url"`
	AutoInactive   *bool   `json:"auto_inactive"`
}

func (c *call) createDeploymentStatus() response {
	var b deploymentStatusBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if b.Description != nil && utf8.RuneCountInString(*b.Description) > 140 {
		reason := "description is longer than 140 characters"
		return c.invalid(reason, validationFailed("DeploymentStatus", "description", "custom", "Description is too long (maximum is 140 characters)"))
	}
	r := c.repo()
	id := c.intParam("deployment_id")
	var d *Deployment
	for _, x := range r.deployments {
		if x.ID == id {
			d = x
		}
	}
	if d == nil {
		return notFound()
	}
	st := DeploymentStatus{
		ID:          c.s.id("deployment_status"),
		State:       b.State,
		Environment: d.Environment,
		Login:       c.login,
		CreatedAt:   c.s.now(),
	}
	if n := len(d.Statuses); n > 0 {
		st.Environment = d.Statuses[n-1].Environment
	}
	if b.Environment != nil {
		st.Environment = *b.Environment
	}
	if b.Description != nil {
		st.Description = *b.Description
	}
	if b.EnvironmentURL != nil {
		st.EnvironmentURL = *b.EnvironmentURL
	}
	if b.TargetURL != nil {
		st.TargetURL = *b.TargetURL
	}
	if b.LogURL != nil {
		st.LogURL = *b.LogURL
		st.TargetURL = *b.LogURL
	}
	autoInactive := b.AutoInactive == nil || *b.AutoInactive
	if st.State == "success" && autoInactive {
		c.inactivatePrior(r, d, st)
	}
	d.Statuses = append(d.Statuses, st)
	return jsonResponse(http.StatusCreated, c.s.renderDeploymentStatus(r, d, &d.Statuses[len(d.Statuses)-1]))
}

// inactivatePrior adds an "inactive" status to earlier successful,
// non-transient, non-production deployments to the same environment, as
// GitHub's auto_inactive does.
func (c *call) inactivatePrior(r *repoState, current *Deployment, st DeploymentStatus) {
	for _, d := range r.deployments {
		if d == current || d.ID > current.ID || d.TransientEnvironment || d.ProductionEnvironment || len(d.Statuses) == 0 {
			continue
		}
		last := d.Statuses[len(d.Statuses)-1]
		if last.State != "success" || last.Environment != st.Environment {
			continue
		}
		d.Statuses = append(d.Statuses, DeploymentStatus{
			ID:           c.s.id("deployment_status"),
			State:        "inactive",
			Environment:  last.Environment,
			AutoInactive: true,
			Login:        c.login,
			CreatedAt:    st.CreatedAt,
		})
	}
}
