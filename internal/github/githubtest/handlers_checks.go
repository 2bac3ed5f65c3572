package githubtest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Check runs: create, update, list for a ref.

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
	runs, headers := renderPage(c, matched, c.s.renderCheckRun)
	return pageResponse(map[string]any{"total_count": len(matched), "check_runs": runs}, headers)
}
