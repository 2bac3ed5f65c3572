package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"gotest.tools/v3/assert"
)

func annotations(from, to int) []Annotation {
	var out []Annotation
	for i := from; i <= to; i++ {
		out = append(out, Annotation{Path: "cdk.out/Stack.template.json", StartLine: i, EndLine: i, Level: "warning", Message: fmt.Sprintf("change %d", i)})
	}
	return out
}

func annotationsJSON(from, to int) string {
	var out []map[string]any
	for i := from; i <= to; i++ {
		out = append(out, map[string]any{
			"path": "cdk.out/Stack.template.json", "start_line": i, "end_line": i,
			"annotation_level": "warning", "message": fmt.Sprintf("change %d", i),
		})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

const checkRunResp = `{"id":99,"html_url":"https://github.com/o/r/runs/99"}`

func TestCreateCheckRun(t *testing.T) {
	const runs, run = "repos/o/r/check-runs", "repos/o/r/check-runs/99"
	full := CheckRun{
		Name: "cdkd diff", HeadSHA: "abc123", Status: "completed", Conclusion: "failure",
		DetailsURL: "https://example.com/run", ExternalID: "prod",
		Title: "2 changes", Summary: "summary", Text: "text",
	}
	tests := []struct {
		name  string
		run   CheckRun
		calls []call
	}{
		{
			name: "in progress, no output",
			run:  CheckRun{Name: "cdkd diff", HeadSHA: "abc123", Status: "in_progress"},
			calls: []call{{method: "POST", path: runs, status: http.StatusCreated, resp: checkRunResp,
				body: `{"name":"cdkd diff","head_sha":"abc123","status":"in_progress"}`}},
		},
		{
			name: "completed with output and a few annotations",
			run:  withAnnotations(full, annotations(1, 2)),
			calls: []call{{method: "POST", path: runs, status: http.StatusCreated, resp: checkRunResp,
				body: `{"name":"cdkd diff","head_sha":"abc123","status":"completed","conclusion":"failure",
					"details_url":"https://example.com/run","external_id":"prod",
					"output":{"title":"2 changes","summary":"summary","text":"text","annotations":` + annotationsJSON(1, 2) + `}}`}},
		},
		{
			name: "exactly 50 annotations fit in one request",
			run:  withAnnotations(full, annotations(1, 50)),
			calls: []call{{method: "POST", path: runs, status: http.StatusCreated, resp: checkRunResp,
				body: `{"name":"cdkd diff","head_sha":"abc123","status":"completed","conclusion":"failure",
					"details_url":"https://example.com/run","external_id":"prod",
					"output":{"title":"2 changes","summary":"summary","text":"text","annotations":` + annotationsJSON(1, 50) + `}}`}},
		},
		{
			name: "120 annotations in batches of 50, completed by the last",
			run:  withAnnotations(full, annotations(1, 120)),
			calls: []call{
				{method: "POST", path: runs, status: http.StatusCreated, resp: checkRunResp,
					body: `{"name":"cdkd diff","head_sha":"abc123","status":"in_progress",
						"details_url":"https://example.com/run","external_id":"prod",
						"output":{"title":"2 changes","summary":"summary","text":"text","annotations":` + annotationsJSON(1, 50) + `}}`},
				{method: "PATCH", path: run, resp: checkRunResp,
					body: `{"output":{"title":"2 changes","summary":"summary","text":"text","annotations":` + annotationsJSON(51, 100) + `}}`},
				{method: "PATCH", path: run, resp: checkRunResp,
					body: `{"status":"completed","conclusion":"failure",
						"output":{"title":"2 changes","summary":"summary","text":"text","annotations":` + annotationsJSON(101, 120) + `}}`},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, tc.calls)
			ref, err := c.CreateCheckRun(context.Background(), "o", "r", tc.run)
			assert.NilError(t, err)
			assert.Equal(t, ref, CheckRunRef{ID: 99, HTMLURL: "https://github.com/o/r/runs/99"})
		})
	}
}

func withAnnotations(cr CheckRun, as []Annotation) CheckRun {
	cr.Annotations = as
	return cr
}

func TestUpdateCheckRun(t *testing.T) {
	const run = "repos/o/r/check-runs/99"
	tests := []struct {
		name  string
		run   CheckRun
		calls []call
	}{
		{
			name: "conclusion only: name is not sent empty",
			run:  CheckRun{Status: "completed", Conclusion: "success"},
			calls: []call{{method: "PATCH", path: run, resp: checkRunResp,
				body: `{"status":"completed","conclusion":"success"}`}},
		},
		{
			name: "annotation with columns, title and details",
			run: CheckRun{Name: "cdkd drift", Title: "t", Summary: "s", Annotations: []Annotation{{
				Path: "a.json", StartLine: 3, EndLine: 3, StartColumn: 2, EndColumn: 9,
				Level: "failure", Title: "drifted", Message: "m", RawDetails: "raw",
			}}},
			calls: []call{{method: "PATCH", path: run, resp: checkRunResp,
				body: `{"name":"cdkd drift","output":{"title":"t","summary":"s","annotations":[{"path":"a.json",
					"start_line":3,"end_line":3,"start_column":2,"end_column":9,"annotation_level":"failure",
					"title":"drifted","message":"m","raw_details":"raw"}]}}`}},
		},
		{
			name: "60 annotations in two requests",
			run:  CheckRun{Name: "cdkd drift", Conclusion: "neutral", Title: "t", Summary: "s", Annotations: annotations(1, 60)},
			calls: []call{
				{method: "PATCH", path: run, resp: checkRunResp,
					body: `{"name":"cdkd drift","output":{"title":"t","summary":"s","annotations":` + annotationsJSON(1, 50) + `}}`},
				{method: "PATCH", path: run, resp: checkRunResp,
					body: `{"conclusion":"neutral","output":{"title":"t","summary":"s","annotations":` + annotationsJSON(51, 60) + `}}`},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, tc.calls)
			ref, err := c.UpdateCheckRun(context.Background(), "o", "r", 99, tc.run)
			assert.NilError(t, err)
			assert.Equal(t, ref, CheckRunRef{ID: 99, HTMLURL: "https://github.com/o/r/runs/99"})
		})
	}
}

func TestCheckRunErrors(t *testing.T) {
	c, _ := newTestClient(t, []call{
		{method: "POST", path: "repos/o/r/check-runs", status: http.StatusForbidden,
			body: `{"name":"cdkd diff","head_sha":"abc"}`,
			resp: `{"message":"Resource not accessible by integration"}`},
		{method: "POST", path: "repos/o/r/check-runs", status: http.StatusCreated, resp: checkRunResp,
			body: `{"name":"cdkd diff","head_sha":"abc","status":"in_progress","output":{"title":"t","summary":"s","annotations":` + annotationsJSON(1, 50) + `}}`},
		{method: "PATCH", path: "repos/o/r/check-runs/99", status: http.StatusUnprocessableEntity,
			body: `{"status":"completed","output":{"title":"t","summary":"s","annotations":` + annotationsJSON(51, 55) + `}}`,
			resp: `{"message":"Validation Failed"}`},
	})
	ctx := context.Background()

	_, err := c.CreateCheckRun(ctx, "o", "r", CheckRun{Name: "cdkd diff", HeadSHA: "abc"})
	assert.ErrorContains(t, err, `create check run "cdkd diff": `)
	assert.Check(t, IsForbidden(err))

	ref, err := c.CreateCheckRun(ctx, "o", "r", CheckRun{Name: "cdkd diff", HeadSHA: "abc", Status: "completed",
		Title: "t", Summary: "s", Annotations: annotations(1, 55)})
	assert.ErrorContains(t, err, `create check run "cdkd diff": send annotations 51-55 of 55: `)
	assert.Check(t, IsUnprocessable(err))
	assert.Equal(t, ref.ID, int64(99), "the run exists even though its annotations failed")
}

func TestAnnotationBatches(t *testing.T) {
	for _, tc := range []struct{ n, batches, last int }{
		{0, 1, 0}, {1, 1, 1}, {50, 1, 50}, {51, 2, 1}, {100, 2, 50}, {101, 3, 1},
	} {
		b := annotationBatches(annotations(1, tc.n))
		assert.Equal(t, len(b), tc.batches, "n=%d", tc.n)
		assert.Equal(t, len(b[len(b)-1]), tc.last, "n=%d", tc.n)
	}
}
