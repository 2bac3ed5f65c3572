package github

import (
	"context"
	"fmt"
	"net/http"

	gh "github.com/google/go-github/v84/github"
)

// MaxAnnotationsPerRequest is GitHub's limit on annotations in one create or
// update of a check run; more are sent in successive updates, which append.
const MaxAnnotationsPerRequest = 50

// CheckRun is what the action reports in a check run. Status is
// "in_progress" or "completed"; Conclusion ("success", "neutral", "failure",
// "action_required", ...) goes with "completed". When Title or Summary is set
// both are required by GitHub, as is any output carrying annotations.
type CheckRun struct {
	Name        string
	HeadSHA     string
	Status      string
	Conclusion  string
	DetailsURL  string
	ExternalID  string
	Title       string
	Summary     string
	Text        string
	Annotations []Annotation
}

// Annotation marks a line of a file in the check run. Level is "notice",
// "warning" or "failure". Columns are only allowed when StartLine equals
// EndLine; zero means unset.
type Annotation struct {
	Path        string
	StartLine   int
	EndLine     int
	StartColumn int
	EndColumn   int
	Level       string
	Title       string
	Message     string
	RawDetails  string
}

// CheckRunRef identifies a check run for later updates and for links.
type CheckRunRef struct {
	ID      int64
	HTMLURL string
}

// CreateCheckRun creates a check run. With more than
// MaxAnnotationsPerRequest annotations, the run is created with the first
// batch and the rest follow in updates; a "completed" run is only completed
// by the last of them, so nobody sees it finished with half its annotations.
func (c *Client) CreateCheckRun(ctx context.Context, owner, repo string, cr CheckRun) (CheckRunRef, error) {
	batches := annotationBatches(cr.Annotations)
	status, conclusion := cr.Status, cr.Conclusion
	if len(batches) > 1 && isFinal(cr) {
		status, conclusion = "in_progress", ""
	}
	opts := gh.CreateCheckRunOptions{
		Name:       cr.Name,
		HeadSHA:    cr.HeadSHA,
		DetailsURL: optional(cr.DetailsURL),
		ExternalID: optional(cr.ExternalID),
		Status:     optional(status),
		Conclusion: optional(conclusion),
		Output:     output(cr, batches[0]),
	}
	found := false
	create := func() (CheckRunRef, error) {
		run, resp, err := c.gh.Checks.CreateCheckRun(ctx, owner, repo, opts)
		if err = madeOrUnknown(resp, err, run.GetID()); err != nil {
			return CheckRunRef{}, err
		}
		return CheckRunRef{ID: run.GetID(), HTMLURL: run.GetHTMLURL()}, nil
	}
	// The run a lost answer may have created: same name, head SHA and
	// external ID, newest first.
	find := func() (CheckRunRef, bool, error) {
		runs, err := c.ListCheckRunsForRef(ctx, owner, repo, cr.HeadSHA, cr.Name)
		if err != nil {
			return CheckRunRef{}, false, err
		}
		for i := len(runs) - 1; i >= 0; i-- {
			if r := runs[i]; r.Name == cr.Name && r.HeadSHA == cr.HeadSHA && r.ExternalID == cr.ExternalID {
				found = true
				return CheckRunRef{ID: r.ID, HTMLURL: r.HTMLURL}, true, nil
			}
		}
		return CheckRunRef{}, false, nil
	}
	ref, err := createOnce(ctx, c, fmt.Sprintf("check run %q", cr.Name), create, find)
	if err != nil {
		return CheckRunRef{}, fmt.Errorf("create check run %q: %w", cr.Name, err)
	}
	rest := cr
	rest.Name, rest.DetailsURL, rest.ExternalID = "", "", ""
	batches, sent := batches[1:], len(batches[0])
	if found {
		// Found, not made by us just now: write all of this run's report
		// into it (its annotations were sent with the lost request).
		rest = cr
		if len(batches) == 0 {
			batches = [][]Annotation{nil}
		}
	}
	if len(batches) == 0 {
		return ref, nil
	}
	if _, err := c.sendBatches(ctx, owner, repo, ref.ID, rest, batches, sent); err != nil {
		return ref, fmt.Errorf("create check run %q: %w", cr.Name, err)
	}
	return ref, nil
}

// UpdateCheckRun changes a check run; empty fields are left as they are.
// Annotations are appended to those already on the run, in batches as for
// CreateCheckRun.
func (c *Client) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, cr CheckRun) (CheckRunRef, error) {
	ref, err := c.sendBatches(ctx, owner, repo, id, cr, annotationBatches(cr.Annotations), 0)
	if err != nil {
		name := cr.Name
		if name == "" {
			name = fmt.Sprint(id)
		}
		return ref, fmt.Errorf("update check run %q: %w", name, err)
	}
	return ref, nil
}

// updateCheckRunBody is PATCH /check-runs/{id}. go-github's
// UpdateCheckRunOptions always sends "name", which would rename the run to ""
// on the follow-up requests that carry only annotations.
type updateCheckRunBody struct {
	Name       *string            `json:"name,omitempty"`
	DetailsURL *string            `json:"details_url,omitempty"`
	ExternalID *string            `json:"external_id,omitempty"`
	Status     *string            `json:"status,omitempty"`
	Conclusion *string            `json:"conclusion,omitempty"`
	Output     *gh.CheckRunOutput `json:"output,omitempty"`
}

// sendBatches PATCHes the run once per batch. Name, details URL and external
// ID go with the first request; a final status and conclusion with the last.
// sent counts the annotations of cr already sent by an earlier request.
func (c *Client) sendBatches(ctx context.Context, owner, repo string, id int64, cr CheckRun, batches [][]Annotation, sent int) (CheckRunRef, error) {
	var ref CheckRunRef
	for i, batch := range batches {
		last := i == len(batches)-1
		body := updateCheckRunBody{Output: output(cr, batch)}
		if i == 0 {
			body.Name = optional(cr.Name)
			body.DetailsURL = optional(cr.DetailsURL)
			body.ExternalID = optional(cr.ExternalID)
		}
		if last || !isFinal(cr) {
			body.Status = optional(cr.Status)
			body.Conclusion = optional(cr.Conclusion)
		}
		req, err := c.gh.NewRequest(http.MethodPatch, fmt.Sprintf("repos/%s/%s/check-runs/%d", owner, repo, id), body)
		if err != nil {
			return ref, err
		}
		var run gh.CheckRun
		if _, err := c.gh.Do(ctx, req, &run); err != nil {
			if len(batch) < len(cr.Annotations) {
				return ref, fmt.Errorf("send annotations %d-%d of %d: %w", sent+1, sent+len(batch), len(cr.Annotations), err)
			}
			return ref, err
		}
		sent += len(batch)
		ref = CheckRunRef{ID: run.GetID(), HTMLURL: run.GetHTMLURL()}
	}
	return ref, nil
}

// isFinal reports whether the run ends up completed: GitHub completes a run
// given a conclusion even without a status.
func isFinal(cr CheckRun) bool { return cr.Status == "completed" || cr.Conclusion != "" }

// annotationBatches splits annotations into request-sized batches; there is
// always at least one (possibly empty) batch, i.e. one request.
func annotationBatches(as []Annotation) [][]Annotation {
	batches := [][]Annotation{nil}
	for len(as) > 0 {
		n := min(len(as), MaxAnnotationsPerRequest)
		if batches[len(batches)-1] == nil {
			batches[len(batches)-1] = as[:n]
		} else {
			batches = append(batches, as[:n])
		}
		as = as[n:]
	}
	return batches
}

func output(cr CheckRun, batch []Annotation) *gh.CheckRunOutput {
	if cr.Title == "" && cr.Summary == "" && cr.Text == "" && len(batch) == 0 {
		return nil
	}
	out := &gh.CheckRunOutput{
		Title:   gh.Ptr(cr.Title),
		Summary: gh.Ptr(cr.Summary),
		Text:    optional(cr.Text),
	}
	for _, a := range batch {
		out.Annotations = append(out.Annotations, &gh.CheckRunAnnotation{
			Path:            gh.Ptr(a.Path),
			StartLine:       gh.Ptr(a.StartLine),
			EndLine:         gh.Ptr(a.EndLine),
			StartColumn:     optionalInt(a.StartColumn),
			EndColumn:       optionalInt(a.EndColumn),
			AnnotationLevel: gh.Ptr(a.Level),
			Message:         gh.Ptr(a.Message),
			Title:           optional(a.Title),
			RawDetails:      optional(a.RawDetails),
		})
	}
	return out
}

// optional maps "" to an absent JSON field.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optionalInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
