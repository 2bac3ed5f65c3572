package githubtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// TestResponseShapes pins what the fake answers, so a change to the JSON a
// client decodes is reviewed (go test ./internal/github/githubtest -update).
// The server's clock and IDs are deterministic; its address is replaced.
func TestResponseShapes(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1, HeadSHA: "abc", Labels: []string{"deploy"}})
	steps := []struct{ method, path, body string }{
		{"GET", "/user", ""},
		{"POST", "/repos/o/r/issues/1/comments", `{"body":"<!-- cdkd -->\nplan"}`},
		{"GET", "/repos/o/r/pulls/1", ""},
		{"GET", "/repos/o/r/issues/1/events", ""},
		{"POST", "/repos/o/r/check-runs", `{"name":"cdkd diff","head_sha":"abc","status":"in_progress"}`},
		{"PATCH", "/repos/o/r/check-runs/200001", `{"conclusion":"success","output":{"title":"No changes","summary":"s"}}`},
		{"GET", "/repos/o/r/commits/abc/check-runs?check_name=cdkd+diff", ""},
		{"POST", "/repos/o/r/issues", `{"title":"Drift","labels":["cdkd-drift"]}`},
		{"GET", "/repos/o/r/issues?state=all", ""},
		{"POST", "/repos/o/r/deployments", `{"ref":"main","environment":"prod","payload":{"stack":"App"}}`},
		{"POST", "/repos/o/r/deployments/300001/statuses", `{"state":"success","log_url":"https://ci.example/1"}`},
		{"DELETE", "/repos/o/r/issues/comments/100001", ""},
	}
	var out bytes.Buffer
	for _, s := range steps {
		res := do(t, srv, s.method, s.path, s.body)
		assert.Assert(t, res.Status < 300, "%s %s: %d %s", s.method, s.path, res.Status, res.Body)
		fmt.Fprintf(&out, "### %s %s -> %d\n", s.method, s.path, res.Status)
		if res.Body != "" {
			var pretty bytes.Buffer
			assert.NilError(t, json.Indent(&pretty, []byte(res.Body), "", "  "))
			out.Write(pretty.Bytes())
		}
		out.WriteString("\n")
	}
	got := strings.ReplaceAll(out.String(), srv.URL, "http://github.test")
	golden.Assert(t, got, "responses.golden")
}
