package main

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// Nothing about fingerprints is silent: when a deploy of a stack with
// secret positions records no fingerprint, the log and the deploy report
// say which positions stay unknown and why. The replayed events carry the
// real, old timestamps cdkd wrote, as a capture replayed today does: no run
// started after this deploy began.
func TestFingerprintsUnrecordedAreSaid(t *testing.T) {
	tests := []struct {
		name   string
		events cdkdtest.Invocation
		why    string
	}{
		{
			name:   "no matching run",
			events: fpInvocation(t, "events-replayed.json", "events", "FpStack", "--json"),
			why:    "cdkd events lists no deploy run of FpStack that started after this deploy began (",
		},
		{
			name: "events unreadable",
			events: cdkdtest.Invocation{ArgsContain: []string{"events", "FpStack", "--json"}, Exit: 1,
				StderrLines: []cdkdtest.Line{{Text: "AccessDenied: not allowed to read the state bucket"}}},
			why: "its deploy events could not be read (",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := startFingerprintBucket(t)
			w := newDeployWorkspace(t, reviewedSHA)
			w.onPush()
			stub := w.stub(
				fpInvocation(t, "diff-create.json", "diff", "--all", "--json"),
				fpInvocation(t, "deploy.stdout", "deploy", "FpStack", "--exclusively", "-y"),
				tc.events,
				fpInvocation(t, "state.json", "state", "show", "FpStack", "--json"),
			)
			res := w.run(map[string]string{"command": "deploy", "all": "true", "app": fpAssembly(t, fpDbV1, fpAdV1), "state-bucket": b.bucket, "require-reviewed-diff": "false"}, b.env()...)
			assert.Equal(t, res.code, 0, res.stdout)
			stub.AssertAllUsed(t)
			_, recorded := b.awsEmulator.object(t, b.bucket, fpKey)
			assert.Assert(t, !recorded, "a fingerprint was recorded")
			want := "FpStack: no fingerprint recorded for 2 secret position(s), which stay unknown (Db.MasterUserPassword, Directory.Password): " + tc.why
			assert.Assert(t, is.Contains(res.stdout, "::warning::"+want), res.stdout)
			assert.Assert(t, is.Contains(res.summary, want), res.summary)
			assert.Assert(t, is.Contains(res.summary, "until a deploy records them"), res.summary)
			if tc.name == "no matching run" {
				assert.Assert(t, is.Contains(res.stdout, "the newest, 2026-11-29T12-59-18-548Z-deploy, started at 2026-11-29T12:59:18Z"), res.stdout)
			}
		})
	}
}
