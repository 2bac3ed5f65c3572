package main

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// sample86 replays real cdkd 0.284.40's `cdkd drift StackD --json` over an
// ssm-secure reference: exit 0, the resource under notCompared, and a line
// on stderr stating both revert cases at once.
func sample86(t *testing.T, extra ...string) cdkdtest.Invocation {
	t.Helper()
	inv := detectStack(t, "", 0, "StackD", extra...)
	inv.StdoutFile = abs(t, "../../testdata/cdkd-samples/86-drift-stackD-ssmsecure-json.stdout")
	inv.StderrFile = abs(t, "../../testdata/cdkd-samples/86-drift-stackD-ssmsecure-json.stderr")
	return inv
}

// Issue 21, item 7: cdkd's line about an ssm-secure token states both cases
// (a whole-value token is left alone by a revert; an embedded one is
// overwritten). The report says the one the state record or the template
// shows, and "unknown", with why, when neither does; it never advises
// making the token the whole value when it already is.
func TestDriftSsmSecureSaysTheCase(t *testing.T) {
	const (
		whole      = "the token is the whole value of `DisplayName` (cdkd's state record), so a `--revert` leaves the live value there unchanged."
		embedded   = "the token is embedded in a longer string at `DisplayName` (%s), so a `--revert` writes that string back with the token literal and **overwrites** the resolved value AWS holds there."
		makeWhole  = "make the token the property's whole value"
		cdkdsQuote = "cdkd: cdkd cannot resolve {{resolve:ssm-secure:/fixture/secure-value}} — those properties are NOT compared. (…) cdkd resolves 'secretsmanager' and 'ssm' references only."
	)
	bucket := randomBucket(t)
	aws := stateAWS(t, bucket, map[string]string{"StackD": "state-stackD.json"})
	embeddedBucket := randomBucket(t)
	embeddedAWS := stateAWS(t, embeddedBucket, map[string]string{"StackD": "state-stackD-embedded.json"})
	for _, tc := range []struct {
		name    string
		aws     *awsEmulator
		inputs  map[string]string
		extra   []string
		want    string
		wantNot []string
	}{
		{
			name: "the state record: the whole value", aws: aws,
			inputs: map[string]string{"state-bucket": bucket}, extra: []string{"--state-bucket", bucket},
			want: whole, wantNot: []string{makeWhole, "overwrites", "unknown"},
		},
		{
			name: "the state record: embedded", aws: embeddedAWS,
			inputs: map[string]string{"state-bucket": embeddedBucket}, extra: []string{"--state-bucket", embeddedBucket},
			want:    strings.Replace(embedded, "%s", "cdkd's state record", 1) + " **To fix:** use a `secretsmanager` or plain `ssm` reference in the composed string, or " + makeWhole + ".",
			wantNot: []string{"leaves the live value", "unknown"},
		},
		{
			name:   "no state record: the template (Fn::Join) decides",
			inputs: map[string]string{"app": abs(t, "testdata/drift/assembly-ssmsecure")},
			want:   strings.Replace(embedded, "%s", "the template", 1), wantNot: []string{"leaves the live value", "unknown"},
		},
		{
			name:   "neither: unknown, and why",
			inputs: map[string]string{},
			want: "whether the token is its property's whole value (a `--revert` leaves it unchanged) or embedded in a longer string (a `--revert` overwrites the value AWS holds) is **unknown**: " +
				"the state record was not read (the state bucket is not known: set the state-bucket input or CDKD&#95;STATE&#95;BUCKET); no assembly was given (the app input).",
			wantNot: []string{makeWhole, "leaves the live value there unchanged"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDriftWorkspace(t)
			if tc.aws != nil {
				w.useAWS(tc.aws)
			}
			stub := w.stub(sample86(t, tc.extra...))
			res := w.run(withInputs(tc.inputs, "stacks", "StackD"))
			assert.Equal(t, res.code, 0, res.stdout)
			stub.AssertAllUsed(t)
			assert.Equal(t, res.outputs["drift-status"], "clean", "permanent: it does not make the check incomplete")
			assert.Assert(t, is.Contains(res.summary, "- `SecureTopic` · `AWS::SNS::Topic`"), res.summary)
			for _, s := range []string{res.summary, onlyCheckRun(t, w.gh).Output.Summary} {
				assert.Assert(t, is.Contains(s, tc.want), s)
				for _, not := range tc.wantNot {
					assert.Assert(t, !strings.Contains(s, not), "%q in:\n%s", not, s)
				}
				assert.Assert(t, !strings.Contains(s, "WHOLE value"), "cdkd's two-case sentence is not passed on:\n%s", s)
			}
			assert.Assert(t, is.Contains(res.summary, cdkdsQuote), res.summary)
			assert.Assert(t, is.Contains(readFile(t, res.outputs["report-json"]), `"ssmSecure"`))
			assertHidden(t, res.channels, "securepw1")
		})
	}
}
