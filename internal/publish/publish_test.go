package publish

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// render is a report that says which budget it was rendered for, and
// carries the secret (which every target must hide).
func render(b reporters.Budget) string {
	return "## report for " + b.Channel + "\n\nvalue " + secret + "\n\nhint: " + b.Hint + "\n"
}

// A local run is the list without the API targets: the report JSON, the
// job summary, stdout and the outputs, each redacted.
func TestPublishOffline(t *testing.T) {
	h := newHarness(t)
	ws := t.TempDir()
	var stdout bytes.Buffer
	p := &Publication{Kind: "diff", Result: map[string]string{"value": secret}, Render: render,
		Outputs: map[string]string{"has-changes": "true"}}
	err := h.pub.Publish(context.Background(), p,
		&ReportJSON{Workspace: ws, Label: "prod/eu", Output: "report-json"},
		&Summary{Append: h.runner.AppendSummary, ReportJSONOutput: "report-json"},
		&Stdout{W: &stdout},
		Outputs{},
	)
	assert.NilError(t, err)
	assert.DeepEqual(t, h.outputs, map[string]string{"report-json": ".cdkd-action/diff-prod_eu.json", "has-changes": "true"})
	b, err := os.ReadFile(filepath.Join(ws, ".cdkd-action", "diff-prod_eu.json"))
	assert.NilError(t, err)
	assert.Equal(t, string(b), `{"value":"***"}`+"\n")
	assert.Assert(t, is.Contains(h.runner.Summary(), "## report for the job summary"))
	assert.Assert(t, is.Contains(h.runner.Summary(), "hint: the report JSON file `.cdkd-action/diff-prod_eu.json` (the `report-json` output)"))
	assert.Assert(t, is.Contains(stdout.String(), "## report for \n"), "stdout gets the unlimited report")
	for name, got := range map[string]string{"summary": h.runner.Summary(), "stdout": stdout.String(), "log": h.log.String()} {
		assert.Assert(t, !strings.Contains(got, secret), "%s leaks the secret", name)
	}
	assert.Equal(t, h.log.String(), "")
}

// Outside a workspace each run has a folder of its own, and the path is
// absolute; a file that cannot be written is a warning, not a failure.
func TestReportJSONOutsideAWorkspace(t *testing.T) {
	h := newHarness(t)
	tmp := t.TempDir()
	target := &ReportJSON{RunnerTemp: tmp, Output: "report-json"}
	p := &Publication{Kind: "drift", Result: []int{1}}
	assert.NilError(t, h.pub.Publish(context.Background(), p, target))
	path := h.outputs["report-json"]
	assert.Assert(t, filepath.IsAbs(path) && strings.HasPrefix(path, tmp), path)
	assert.Equal(t, filepath.Base(path), "drift.json")

	blocked := filepath.Join(tmp, "file")
	assert.NilError(t, os.WriteFile(blocked, nil, 0o644))
	h = newHarness(t)
	assert.NilError(t, h.pub.Publish(context.Background(), p, &ReportJSON{Workspace: blocked, Output: "report-json"}))
	assert.Assert(t, is.Contains(h.log.String(), "::warning::write report JSON: create "))
	assert.Equal(t, h.outputs["report-json"], "")
}

// failing is a target that fails with err.
type failing struct {
	err error
	pol Policy
}

func (f failing) Policy(*View) Policy { return f.pol }
func (f failing) Publish(context.Context, *Publisher, *View, *Written) error {
	return f.err
}

// Every failed write is said in the log; a missing permission is a
// warning where the target allows it; only API errors of targets that are
// not optional fail the run.
func TestPublishFailures(t *testing.T) {
	comment := Policy{What: "the pull request comment", Denied: "cannot write the pull request comment (no permission?): %v", Errors: gitHub}
	// A sink that is not GitHub reads its own errors.
	bucket := Policy{What: "the report in the bucket", Denied: "cannot write the bucket (no s3:PutObject?): %v", Errors: bucketErrors{}}
	tests := []struct {
		name    string
		target  failing
		budget  time.Duration
		expired bool
		log     string
		failed  bool
	}{
		{name: "missing permission is a warning", target: failing{apiError(403), comment},
			log: "::warning::cannot write the pull request comment (no permission?): wrapped: "},
		{name: "not found fails", target: failing{apiError(404), comment}, failed: true,
			log: "::warning::the pull request comment was not posted (HTTP 404): wrapped: "},
		{name: "forbidden without a Denied wording fails", target: failing{apiError(403), Policy{What: "the deployment", Errors: gitHub}}, failed: true,
			log: "::warning::the deployment was not posted (HTTP 403)"},
		{name: "no answer", target: failing{errors.New("connection reset with " + secret), comment}, failed: true,
			log: "::warning::the pull request comment was not posted (no answer): connection reset with ***"},
		{name: "optional is said, not failed", target: failing{apiError(500), Policy{What: "the deployment's success status", Optional: true, Errors: gitHub}},
			log: "::warning::the deployment's success status was not posted (HTTP 500)"},
		{name: "another sink's missing permission is its warning", target: failing{errAccessDenied, bucket},
			log: "::warning::cannot write the bucket (no s3:PutObject?): AccessDenied"},
		{name: "another sink names its own status", target: failing{errSlowDown, bucket}, failed: true,
			log: "::warning::the report in the bucket was not posted (S3 SlowDown): SlowDown"},
		{name: "a GitHub status means nothing to another sink", target: failing{apiError(403), bucket}, failed: true,
			log: "::warning::the report in the bucket was not posted (no answer): wrapped: "},
		{name: "a cancelled run's budget ran out", target: failing{context.DeadlineExceeded, comment}, budget: 30 * time.Second, expired: true, failed: true,
			log: "was not posted (no answer): context deadline exceeded; the 30s given to the report after the cancellation ran out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.pub.ReportBudget = tc.budget
			ctx := context.Background()
			if tc.expired {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 0)
				defer cancel()
			}
			err := h.pub.Publish(ctx, &Publication{}, tc.target, Outputs{})
			assert.Equal(t, err != nil, tc.failed, "%v", err)
			assert.Assert(t, is.Contains(h.log.String(), tc.log))
			assert.Assert(t, !strings.Contains(h.log.String(), secret))
		})
	}
}

// The targets run in order: a check run after the comment vouches for
// the comment that was written.
func TestCheckRunSeesTheCommentWritten(t *testing.T) {
	h := newHarness(t)
	api := &fakeAPI{prHead: headSHA}
	p := &Publication{Kind: "diff", Render: render,
		Comment: &CommentFields{Header: marker.Header{V: 1, Kind: prcomment.KindDiff, SHA: headSHA}, Render: commentRender},
		CheckRun: &CheckRunFields{Name: "cdkd diff", HeadSHA: headSHA, Conclusion: "neutral", Title: "1 to update " + secret,
			ExternalID: func(w *Written) string { return "cdkd-action:diff:" + itoa(w.Comment.ID) }}}
	err := h.pub.Publish(context.Background(), p, commentTarget(api), &CheckRun{API: api, Owner: owner, Repo: repo, DetailsURL: "https://run/1", Output: "check-run-url"})
	assert.NilError(t, err)
	assert.Equal(t, len(api.checkRuns), 1)
	cr := api.checkRuns[0]
	assert.Equal(t, cr.ExternalID, "cdkd-action:diff:"+itoa(api.comments[0].ID))
	assert.Equal(t, cr.Status, "completed")
	assert.Equal(t, cr.Title, "1 to update ***")
	assert.Assert(t, is.Contains(cr.Summary, "## report for the check run"))
	assert.Equal(t, h.outputs["check-run-url"], "https://github.com/o/r/runs/1")
	assert.Equal(t, h.outputs["comment-url"], api.comments[0].HTMLURL)
	assert.Assert(t, !strings.Contains(api.everything(), secret))

	// No commit, no check run.
	p.CheckRun.HeadSHA = ""
	api.checkRuns = nil
	assert.NilError(t, h.pub.Publish(context.Background(), p, &CheckRun{API: api, Owner: owner, Repo: repo}))
	assert.Equal(t, len(api.checkRuns), 0)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

var (
	errAccessDenied = errors.New("AccessDenied")
	errSlowDown     = errors.New("SlowDown")
)

// bucketErrors reads the errors of a sink that is not GitHub (an S3 bucket,
// say): the Publisher reports them in the sink's own words.
type bucketErrors struct{}

func (bucketErrors) Denied(err error) bool { return errors.Is(err, errAccessDenied) }
func (bucketErrors) Status(err error) string {
	if errors.Is(err, errSlowDown) {
		return "S3 SlowDown"
	}
	return ""
}

// A check run's Summary and the SummaryNote are written from what the
// targets before them wrote: the comment, or no comment when its write was
// denied. Both pass the redactor, and the report JSON is written again.
func TestWrittenAfterTheComment(t *testing.T) {
	for _, deny := range []bool{false, true} {
		h := newHarness(t)
		api := &fakeAPI{prHead: headSHA}
		if deny {
			api.fail = map[string]error{"create comment": apiError(403)}
		}
		said := func(w *Written) string {
			if w.Comment.ID == 0 {
				return "no comment " + secret
			}
			return "comment " + itoa(w.Comment.ID)
		}
		var summary []string
		dir := t.TempDir()
		report := &ReportJSON{Workspace: dir}
		p := &Publication{Kind: "diff", Render: render, Result: map[string]string{"picture": "before"},
			Comment:     &CommentFields{Header: marker.Header{V: 1, Kind: prcomment.KindDiff, SHA: headSHA}, Render: commentRender},
			CheckRun:    &CheckRunFields{Name: "cdkd diff", HeadSHA: headSHA, Conclusion: "neutral", Summary: func(_ reporters.Budget, w *Written) string { return said(w) }},
			SummaryNote: said,
			ResultAfter: func(w *Written) any { return map[string]string{"picture": said(w)} }}
		note := &SummaryNote{Summary: &Summary{Append: func(md string) error { summary = append(summary, md); return nil }}, Report: report}
		assert.NilError(t, h.pub.Publish(context.Background(), p, report, commentTarget(api), &CheckRun{API: api, Owner: owner, Repo: repo}, note))
		want := "comment " + itoa(101)
		if deny {
			want = "no comment ***"
		} else {
			assert.Equal(t, api.checkRuns[0].Summary, want)
		}
		assert.DeepEqual(t, summary, []string{"\n" + want})
		b, err := os.ReadFile(filepath.Join(dir, ".cdkd-action", "diff.json"))
		assert.NilError(t, err)
		assert.Assert(t, is.Contains(string(b), want), "deny %v", deny)
	}
}
