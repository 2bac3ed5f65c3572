package main

// Leak tests of the hardening issue's secret items: text transformed on
// its way to a sink (folding, truncating, escaping), credentials the runner
// hands the container, and secrets wrapped across lines.

import (
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// A secret holding a tab, two spaces or a Unicode space in cdkd's error
// line: folding the line first would turn it into a different string that
// the redactor no longer finds.
func TestErrorLineFoldedAfterRedaction(t *testing.T) {
	for _, secret := range []string{
		"tab\tsecret-value-91",
		"two  spaces-secret-92",
		"nbsp\u00a0thin\u2009secret-93",
		"ideographic\u3000secret-94",
	} {
		t.Run(strings.Fields(secret)[0], func(t *testing.T) {
			w := newWorkspace(t)
			w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: []cdkdtest.Line{
				{Text: "Error: parameter rejected: " + secret + " is not valid"},
			}, Exit: 1})
			res := w.run(map[string]string{"all": "true", "mask-values": secret})
			assert.Equal(t, res.code, 3, res.stdout)
			// The secret itself is checked on every step; its folded form too.
			assertHidden(t, res.channels, strings.Join(strings.Fields(secret), " "))
			assert.Assert(t, strings.Contains(res.summary, "parameter rejected: *** is not valid"), res.summary)
		})
	}
}

// Every credential the runner hands the container is masked before
// anything else is printed, by its name: the runner's own tokens, and any
// variable whose name ends in TOKEN, SECRET, PASSWORD or _KEY.
func TestRunnerCredentialsAreMasked(t *testing.T) {
	creds := map[string]string{
		"ACTIONS_RUNTIME_TOKEN":          "runtime-token-eyJ0eXAiOi-81",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-request-token-eyJhbGci-82",
		"NPM_TOKEN":                      "npm_token_value_83",
		"DEPLOY_SECRET":                  "deploy-secret-value-84",
		"DB_PASSWORD":                    "db-password-value-85",
		"STRIPE_API_KEY":                 "sk_live_stripe_key_86",
	}
	w := newWorkspace(t)
	w.secret(slices.Collect(maps.Values(creds))...)
	var env []string
	var lines []cdkdtest.Line
	for name, v := range creds {
		env = append(env, name+"="+v)
		lines = append(lines, cdkdtest.Line{Text: "debug: " + name + "=" + v})
	}
	// Not credentials: short values and flags under a credential's name.
	env = append(env, "CACHE_KEY=v1", "USE_TOKEN=true")
	lines = append(lines, cdkdtest.Line{Text: "Error: synth failed with " + creds["DB_PASSWORD"]})
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: lines, Exit: 1})
	res := w.run(map[string]string{"all": "true"}, env...)
	assert.Equal(t, res.code, 3, res.stdout)
	masks := assertMasksFirst(t, res.stdout)
	for name, v := range creds {
		assert.Assert(t, masks[v], "%s is not registered with ::add-mask::", name)
	}
	assert.Assert(t, !masks["v1"] && !masks["true"], "a flag or short value was masked: %v", masks)
}

// A secret whose value is JSON is hidden by its leaves at any depth and its
// re-serializations, wherever cdkd prints them; the fields that only say
// where a database is stay readable.
func TestStructuredSecretLeavesAreRedacted(t *testing.T) {
	const doc = `{"engine":"postgres","host":"orders.cluster.example","port":5432,"dbname":"orders",` +
		`"creds":{"users":[{"name":"svc-orders","password":"deep-nested-pw-31"}]},"pin":98765432,"rotate":true}`
	w := newWorkspace(t)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: []cdkdtest.Line{
		{Text: "connecting to orders.cluster.example as svc-orders with deep-nested-pw-31"},
		{Text: "pin 98765432 rejected by postgres"},
		{Text: `payload {"creds": {"users": [{"name": "svc-orders", "password": "deep-nested-pw-31"}]}}`},
		{Text: "Error: login failed for svc-orders"},
	}, Exit: 1})
	res := w.run(map[string]string{"all": "true", "mask-values": doc})
	assert.Equal(t, res.code, 3, res.stdout)
	channels := res.channels
	assertHidden(t, channels, "deep-nested-pw-31", "svc-orders", "98765432")
	log := runnermask.Simulate(res.stdout)
	assert.Assert(t, strings.Contains(log, "connecting to orders.cluster.example as ***"), log)
	assert.Assert(t, strings.Contains(log, "rejected by postgres"), log)
	assert.Assert(t, strings.Contains(res.summary, "login failed for ***"), res.summary)
}

// A secret's base64 wrapped at 64 or 76 columns (PEM, MIME, `base64`)
// printed by cdkd must not survive as lines that join back into it: not in
// the streamed log, not in the stderr tail of the reports.
func TestWrappedBase64IsRedacted(t *testing.T) {
	const secret = "wrapped-b64-secret-value-5150"
	blob := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 40) + secret + strings.Repeat("v", 30)))
	for _, width := range []int{64, 76} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			lines := []cdkdtest.Line{{Text: "-----BEGIN CERTIFICATE-----"}}
			for b := blob; b != ""; {
				n := min(width, len(b))
				lines = append(lines, cdkdtest.Line{Text: b[:n]})
				b = b[n:]
			}
			lines = append(lines, cdkdtest.Line{Text: "-----END CERTIFICATE-----"}, cdkdtest.Line{Text: "Error: certificate rejected"})
			w := newWorkspace(t)
			w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: lines, Exit: 1})
			res := w.run(map[string]string{"all": "true", "mask-values": secret})
			assert.Equal(t, res.code, 3, res.stdout)
			unwrap := strings.NewReplacer("\r", "", "\n", "", "<br>", "", `\n`, "")
			var joined []channel
			for _, c := range res.channels {
				joined = append(joined, channel{c.name + " (lines joined)", unwrap.Replace(c.text)})
			}
			assertHidden(t, joined, secret)
			assert.Assert(t, strings.Contains(runnermask.Simulate(res.stdout), "-----BEGIN CERTIFICATE-----"))
		})
	}
}

// A 50 MB stderr line without a newline must not cost hundreds of MB: the
// line buffer is capped, what overflows is hidden and said, and the end of
// the line (where cdkd's reason is) still reaches the report, redacted.
func TestHugeStderrLineIsBounded(t *testing.T) {
	const early, late = "early-secret-in-huge-line-11", "late-secret-in-huge-line-22"
	w := newWorkspace(t)
	path := filepath.Join(t.TempDir(), "huge.stderr")
	f, err := os.Create(path)
	assert.NilError(t, err)
	_, err = f.WriteString("Error: " + early + " ")
	assert.NilError(t, err)
	chunk := strings.Repeat("0123456789abcdef", 4096)
	for i := 0; i < 50<<20/len(chunk); i++ {
		_, err = f.WriteString(chunk)
		assert.NilError(t, err)
	}
	_, err = f.WriteString(" the stack is broken because of " + late + "\n")
	assert.NilError(t, err)
	assert.NilError(t, f.Close())

	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrFile: path, Exit: 1})
	// A process of its own: peak memory is the kernel's count (rusage).
	res := w.runBinary(map[string]string{"all": "true", "mask-values": early + "\n" + late})
	assert.Equal(t, res.code, 3, head(res.stdout, 2000))
	t.Logf("peak memory %d MiB", res.maxRSSKiB>>10)
	assert.Assert(t, res.maxRSSKiB < 150<<10, "peak memory %d MiB for a 50 MB line", res.maxRSSKiB>>10)
	assertHidden(t, res.channels, early, late)
	assert.Assert(t, len(res.stdout) < 1<<20, "the log holds %d bytes", len(res.stdout))
	assert.Assert(t, strings.Contains(res.stdout, "bytes of this line were hidden"), head(res.stdout, 2000))
	assert.Assert(t, strings.Contains(res.summary, "the stack is broken because of ***"), head(res.summary, 3000))
}

// The deploy side gets the leak tests the diff and drift sides have: stack
// outputs (the stack-outputs output), events and their error messages,
// cdkd's stderr, deployment statuses and the deploy section of the PR
// comment, with secrets a fold, a JSON leaf or a line break would hide from
// a naive redactor; and a hostile logical id stays inert.
func TestDeployChannelsDoNotLeak(t *testing.T) {
	for _, exit := range []int{2, 1} { // a partial deploy; cdkd failing
		t.Run(fmt.Sprint("exit ", exit), func(t *testing.T) { deployLeakCase(t, exit) })
	}
}

func deployLeakCase(t *testing.T, exit int) {
	const (
		sTab    = "dep\tloy-secret-61"
		sOutput = "deploy-output-secret-62"
		sEvent  = "event-error-secret-63"
		sNBSP   = "nb\u00a0sp-secret-64"
		sLeaf   = "structured-leaf-secret-65"
		evil    = "Evil</details><img src=x onerror=alert(1)>@octocat"
	)
	structured := `{"engine":"mysql","password":"` + sLeaf + `"}`
	dir := t.TempDir()
	runID := "2999-01-01T00-00-00-000Z-deploy"
	events := []map[string]any{
		{"timestamp": "2999-01-01T00:00:00.000Z", "eventType": "RUN_STARTED", "stackName": "StackA", "command": "deploy", "region": "us-east-1", "cdkdVersion": "0.284.40"},
		{"timestamp": "2999-01-01T00:00:00.010Z", "eventType": "RESOURCE_STARTED", "stackName": "StackA", "operation": "CREATE", "logicalId": evil, "resourceType": "AWS::SQS::Queue"},
		{"timestamp": "2999-01-01T00:00:00.051Z", "eventType": "RESOURCE_FAILED", "stackName": "StackA", "operation": "CREATE", "logicalId": evil, "resourceType": "AWS::SQS::Queue", "durationMs": 41,
			"error": map[string]any{"name": "ValidationError", "message": "value " + sTab + " and " + sEvent + " and " + sNBSP + " rejected; " + structured}},
		{"timestamp": "2999-01-01T00:00:00.090Z", "eventType": "RUN_FINISHED", "stackName": "StackA", "result": "FAILED", "durationMs": 90, "counts": map[string]int{"created": 0, "updated": 0, "deleted": 0, "failed": 1}},
	}
	writeFile(t, filepath.Join(dir, "run.json"), mustJSON(events))
	// The stack's outputs, as its state records them after the deploy.
	state := strings.Replace(readFile(t, "testdata/deploy/state-StackA.json"), `"outputs": {`,
		`"outputs": {"Token": `+mustJSON(sOutput)+`, "Creds": `+mustJSON(structured)+`, "Spaced": `+mustJSON("x "+sTab+" y")+`,`, 1)
	writeFile(t, filepath.Join(dir, "state.json"), state)
	invocation := func(file string, args ...string) cdkdtest.Invocation {
		return cdkdtest.Invocation{Args: args, StdoutFile: abs(t, file)}
	}
	w := newDeployWorkspace(t, reviewedSHA)
	w.stub(
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		cdkdtest.Invocation{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"},
			Stdout: "Deploying stack: StackA\nOutputs:\n  StackA.Token = " + sOutput + "\n  StackA.Creds = " + structured + "\n",
			Stderr: "Error: 1 resource(s) failed: " + sTab + " / " + sNBSP + "\n", Exit: exit},
		invocation("testdata/deploy/events-StackA.json", "events", "StackA", "--json"),
		invocation(filepath.Join(dir, "run.json"), "events", "StackA", "--json", "--run", runID),
		invocation(filepath.Join(dir, "state.json"), "state", "show", "StackA", "--json"),
		invocation("testdata/deploy/events-StackB.json", "events", "StackB", "--json"),
		invocation("testdata/deploy/state-StackB.json", "state", "show", "StackB", "--json"),
	)
	w.review(reviewedSHA, diffInputs())
	in := deployInputs("environment", "production")
	in["mask-values"] += "\n" + strings.Join([]string{sTab, sOutput, sEvent, sNBSP, structured}, "\n")
	res := w.run(in)
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Assert(t, len(w.gh.Deployments()) == 1 && len(w.gh.Deployments()[0].Statuses) > 0, "a deployment status was written")

	channels := res.channels
	for _, c := range w.gh.Comments(owner, repo, deployPR) {
		channels = append(channels, channel{"the PR comment's deploy section", c.Body})
	}
	for _, d := range w.gh.Deployments() {
		for _, s := range d.Statuses {
			channels = append(channels, channel{"a deployment status", s.Description + "\n" + s.EnvironmentURL})
		}
	}
	var folded []channel
	for _, c := range channels {
		folded = append(folded, channel{c.name + " (whitespace folded)", strings.Join(strings.Fields(c.text), " ")})
	}
	assertHidden(t, append(channels, folded...), sTab, sOutput, sEvent, sNBSP, sLeaf, strings.Join(strings.Fields(sTab), " "), strings.Join(strings.Fields(sNBSP), " "))
	assert.Assert(t, strings.Contains(res.outputs["stack-outputs"], `"Token":"***"`), res.outputs["stack-outputs"])
	// Inside a code span the logical id is literal text; anywhere else its
	// HTML would be live.
	codeSpan := regexp.MustCompile("`[^`]*`|<code>.*?</code>")
	for _, c := range channels {
		if strings.Contains(c.name, "request") || strings.Contains(c.name, "report JSON") || strings.HasPrefix(c.name, "output") || strings.Contains(c.name, "log") {
			continue // not Markdown
		}
		rest := codeSpan.ReplaceAllString(c.text, "")
		assert.Assert(t, !strings.Contains(rest, "<img") && !strings.Contains(rest, "@octocat"), "the logical id is live in %s: %s", c.name, rest)
	}
}
