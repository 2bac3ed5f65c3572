package main

// Issue 45, items 1 and 2: each leaf of a value cdkd reports whole is
// decided from the template, so the public settings beside a NoEcho value
// stay visible and are never masked; and a secret that occurs inside a
// literal the template writes in public is said to be no secret, not
// redacted inside that literal.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// The orders app's API keys: the new one is the NoEcho default, the old one
// is what the deployed function holds (cdkd 0.284 prints both).
const (
	ordersKeyNew = "orders-api-key-7Qx9v2Lm"
	ordersKeyOld = "orders-api-key-OLD-4f2c9d"
)

// ordersPublic are public values of the orders app that a reviewer needs
// and that the whole-value rule used to mask everywhere.
var ordersPublic = []string{"prod", "us-east-1", "orders-prod", "orders-prod-handler", "info", "warn"}

// ordersApp writes the orders app's cloud assembly and the diff cdkd prints
// for it: a Lambda function whose Environment.Variables hold public
// settings and, withKey, the NoEcho ApiKey; cdkd reports Environment whole.
func ordersApp(t *testing.T, withKey bool) (app, diff string) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "manifest.json"), `{"version":"55.0.0","artifacts":{"Orders":{"type":"aws:cloudformation:stack",
"environment":"aws://123456789012/us-east-1","properties":{"templateFile":"Orders.template.json"},"displayName":"Orders"}}}`)
	params, keyRef := `{}`, ``
	if withKey {
		params = `{"ApiKey": {"Type": "String", "NoEcho": true, "Default": "` + ordersKeyNew + `"}}`
		keyRef = `, "API_KEY": {"Ref": "ApiKey"}`
	}
	writeFile(t, filepath.Join(dir, "Orders.template.json"), `{
 "Parameters": `+params+`,
 "Resources": {
  "Handler": {"Type": "AWS::Lambda::Function", "Properties": {
   "FunctionName": "orders-prod-handler", "Runtime": "nodejs20.x", "Handler": "index.handler", "MemorySize": 512, "Timeout": 30,
   "Role": "arn:aws:iam::123456789012:role/orders-prod-handler-role", "Description": "Orders API handler (prod, us-east-1)",
   "Environment": {"Variables": {"STAGE": "prod", "REGION": "us-east-1", "TABLE_NAME": "orders-prod", "LOG_LEVEL": "info",
    "QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/orders-prod-events"`+keyRef+`}}}},
  "Table": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "orders-prod", "BillingMode": "PAY_PER_REQUEST"}},
  "Events": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "orders-prod-events", "VisibilityTimeout": 60}},
  "Errors": {"Type": "AWS::CloudWatch::Alarm", "Properties": {"AlarmName": "orders-prod-handler-errors", "AlarmDescription": "Errors of orders-prod-handler in us-east-1"}}
 },
 "Outputs": {"HandlerArn": {"Value": "arn:aws:lambda:us-east-1:123456789012:function:orders-prod-handler"}}
}`)
	env := func(level, key string) map[string]any {
		v := map[string]any{"STAGE": "prod", "REGION": "us-east-1", "TABLE_NAME": "orders-prod", "LOG_LEVEL": level,
			"QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/orders-prod-events"}
		if withKey {
			v["API_KEY"] = key
		}
		return map[string]any{"Variables": v}
	}
	prop := func(path string, old, new any) map[string]any {
		return map[string]any{"path": path, "oldValue": old, "newValue": new, "requiresReplacement": false}
	}
	diff = filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, diff, mustJSON([]map[string]any{{
		"stack": "Orders", "region": "us-east-1",
		"changes": []map[string]any{
			{"logicalId": "Handler", "changeType": "UPDATE", "resourceType": "AWS::Lambda::Function", "propertyChanges": []map[string]any{
				prop("Environment", env("warn", ordersKeyOld), env("info", ordersKeyNew)),
				prop("Description", "Orders API handler (prod)", "Orders API handler (prod, us-east-1)"),
				prop("MemorySize", 256, 512),
			}},
			{"logicalId": "Table", "changeType": "UPDATE", "resourceType": "AWS::DynamoDB::Table", "propertyChanges": []map[string]any{
				prop("BillingMode", "PROVISIONED", "PAY_PER_REQUEST")}},
			{"logicalId": "Events", "changeType": "UPDATE", "resourceType": "AWS::SQS::Queue", "propertyChanges": []map[string]any{
				prop("VisibilityTimeout", 30, 60)}},
			{"logicalId": "Errors", "changeType": "CREATE", "resourceType": "AWS::CloudWatch::Alarm"},
		},
		"outputChanges": []map[string]any{{"name": "HandlerArn", "changeType": "ADD",
			"newValue": "arn:aws:lambda:us-east-1:123456789012:function:orders-prod-handler", "export": false}},
		"children": []any{},
	}}))
	return dir, diff
}

// runOrders runs the pull request's diff of the orders app and returns the
// step and the comment's body.
func runOrders(t *testing.T, withKey bool) (result, string, string) {
	t.Helper()
	w := newWorkspace(t)
	if withKey {
		w.secret(ordersKeyNew, ordersKeyOld)
	}
	app, diff := ordersApp(t, withKey)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff})
	res := w.run(map[string]string{"all": "true", "app": app, "resolve-secrets": "false"})
	assert.Equal(t, res.code, 0, res.stdout)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1))
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	return res, comments[0].Body, runs[0].Output.Summary + runs[0].Output.Text
}

// hiddenParts are the parts of a comment a reader does not see, and the
// parts of two runs' reports that differ whatever redaction does: the fake
// GitHub's address, the digest, a line diff's hunk header (the secret's
// line shifts it).
var hiddenParts = regexp.MustCompile(`(?s)<!--.*?-->|http://127\.0\.0\.1:[0-9]+|v3:[0-9a-f]+|@@ [^@]* @@`)

// lostShare is the share of the visible text of control (the same report
// without the secret) that text lost: the characters of the words of
// control that text does not hold as many times, over all of control's.
// A word masked in part ("orders-***-handler") is lost whole.
func lostShare(control, text string) float64 {
	words := func(s string) []string {
		return strings.FieldsFunc(hiddenParts.ReplaceAllString(s, ""), func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune("\"'`|(){}[],<>", r)
		})
	}
	have := map[string]int{}
	for _, w := range words(text) {
		have[w]++
	}
	lost, total := 0, 0
	for _, w := range words(control) {
		total += len(w)
		if have[w] > 0 {
			have[w]--
		} else {
			lost += len(w)
		}
	}
	return float64(lost) / float64(total)
}

// The public settings beside a NoEcho value in a Lambda function's
// Environment stay visible in the comment, the check run and the job
// summary, are never registered with ::add-mask::, and the comment loses
// under 1% against the same comment without the secret; both API keys
// stay hidden on every channel (the harness's leak check).
func TestPublicLeavesBesideANoEchoValueStayVisible(t *testing.T) {
	res, comment, check := runOrders(t, true)
	control, controlComment, controlCheck := runOrders(t, false)

	for _, l := range parseLog(res.stdout) {
		if l.addMask {
			for _, v := range ordersPublic {
				assert.Assert(t, l.text != v && !strings.Contains(v, l.text), "::add-mask::%s masks the public %q in every later line of the job", l.text, v)
			}
		}
	}
	assert.Assert(t, is.Contains(res.stdout, "::add-mask::"+ordersKeyNew+"\n"), "the NoEcho default is masked")
	assert.Assert(t, is.Contains(res.stdout, "::add-mask::"+ordersKeyOld+"\n"), "the old key, learned at its secret position, is masked")
	for name, text := range map[string]string{"comment": comment, "check run": check, "job summary": res.summary} {
		for _, v := range []string{"arn:aws:lambda:us-east-1:123456789012:function:orders-prod-handler", "orders-prod-handler", "STAGE", "us-east-1"} {
			assert.Assert(t, is.Contains(text, v), "%s hides the public %q", name, v)
		}
		assert.Assert(t, !strings.Contains(text, "orders-***"), name)
		assert.Assert(t, !strings.Contains(text, ":***:"), name)
	}
	for name, pair := range map[string][2]string{"comment": {controlComment, comment}, "check run": {controlCheck, check}, "job summary": {control.summary, res.summary}} {
		share := lostShare(pair[0], pair[1])
		t.Logf("%s: %.2f%% lost to the secret (%d characters without it)", name, 100*share, len(pair[0]))
		assert.Assert(t, share < 0.01, "%s loses %.2f%% to over-redaction:\n%s\nwithout the secret:\n%s", name, 100*share, pair[1], pair[0])
	}
	assert.Assert(t, is.Contains(comment, "API_KEY"), "the secret's key is shown, its value hidden")
}

// The oracle app: a NoEcho parameter whose value occurs inside the name a
// queue is given as a literal.
const oracleValue, oracleLiteral = "fixture-queue", "fixture-queue-v1"

// oracleApp writes the oracle app's cloud assembly and its diff.
func oracleApp(t *testing.T) (dir, diff string) {
	t.Helper()
	const value, literal = oracleValue, oracleLiteral
	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "manifest.json"), `{"version":"55.0.0","artifacts":{"App":{"type":"aws:cloudformation:stack",
"environment":"aws://123456789012/us-east-1","properties":{"templateFile":"App.template.json"},"displayName":"App"}}}`)
	writeFile(t, filepath.Join(dir, "App.template.json"), `{
 "Parameters": {"QueueParam": {"Type": "String", "NoEcho": true, "Default": "`+value+`"}},
 "Resources": {
  "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "`+literal+`", "VisibilityTimeout": 60}},
  "Param": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "String", "Value": {"Ref": "QueueParam"}}}
 }
}`)
	diff = filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, diff, mustJSON([]map[string]any{{
		"stack": "App", "region": "us-east-1",
		"changes": []map[string]any{
			{"logicalId": "Queue", "changeType": "UPDATE", "resourceType": "AWS::SQS::Queue", "propertyChanges": []map[string]any{
				{"path": "QueueName", "oldValue": "fixture-queue-v0", "newValue": literal, "requiresReplacement": true}}},
			{"logicalId": "Param", "changeType": "UPDATE", "resourceType": "AWS::SSM::Parameter", "propertyChanges": []map[string]any{
				{"path": "Value", "oldValue": "old-queue-param", "newValue": value, "requiresReplacement": false}}},
		},
		"outputChanges": []any{}, "children": []any{},
	}}))
	return dir, diff
}

// A NoEcho value that occurs inside a literal the template writes in
// public is not redacted there (***-v1 would tell it), and the report says
// that it is not secret, naming the parameter and where the literal is,
// never the value; it is still hidden at its own position.
func TestSecretInsideAPublicLiteralIsSaid(t *testing.T) {
	const value, literal = oracleValue, oracleLiteral
	w := newWorkspace(t)
	w.chance = append(w.chance, value) // checked below: only inside the literal
	dir, diff := oracleApp(t)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff})
	res := w.run(map[string]string{"all": "true", "app": dir, "resolve-secrets": "false"})
	assert.Equal(t, res.code, 0, res.stdout)
	comment := w.gh.Comments(owner, repo, prNum)[0].Body
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	report := readFile(t, res.outputs["report-json"])
	for name, text := range map[string]string{"comment": comment, "job summary": res.summary, "check run": runs[0].Output.Summary, "report JSON": report} {
		assert.Assert(t, is.Contains(text, literal), "%s redacts inside the public literal", name)
		assert.Assert(t, !strings.Contains(text, "***-v1"), name)
		assert.Assert(t, is.Contains(text, "QueueParam"), "%s names the parameter", name)
		assert.Assert(t, is.Contains(strings.ReplaceAll(strings.ReplaceAll(text, "<code>", "`"), "</code>", "`"), "`Queue`.`QueueName` in App"), "%s names where the literal is", name)
		assert.Assert(t, is.Contains(text, "not secret and should be changed"), name)
		assert.Assert(t, is.Contains(strings.ReplaceAll(strings.ReplaceAll(text, "<code>", "`"), "</code>", "`"), "the literal `"+literal+"`"), "%s names the literal", name)
	}
	// The value is hidden everywhere but inside the literal.
	for _, c := range res.channels {
		if strings.Contains(c.name, "as the runner shows it") {
			continue // the runner masks it there too: ***-v1
		}
		rest := strings.ReplaceAll(c.text, literal, "")
		assert.Assert(t, !strings.Contains(rest, value), "%s shows the secret outside the public literal: %s", c.name, fmt.Sprint(len(rest)))
	}
	// The runner still masks the registered value, in the literal too.
	assert.Assert(t, is.Contains(res.stdout, "::add-mask::"+value+"\n"))
}

// A review whose values were hidden leaf by leaf is the change set the
// gate computes again: the deploy finds it reviewed (same digest, the
// visible report rendered again to the byte) and runs cdkd deploy.
func TestDeployOfALeafByLeafReview(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.secret(ordersKeyNew, ordersKeyOld)
	app, diff := ordersApp(t, true)
	in := map[string]string{"all": "true", "app": app, "resolve-secrets": "false"}
	deployed := filepath.Join(t.TempDir(), "deploy.stdout")
	writeFile(t, deployed, "Deploying stack: Orders\n")
	stub := w.stub(
		cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff}, // the review
		cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff}, // the gate
		cdkdtest.Invocation{ArgsContain: []string{"deploy"}, StdoutFile: deployed, Exit: 1},
	)
	reviewed := w.review(reviewedSHA, in)
	body := prComment(t, w.gh).Body
	assert.Assert(t, is.Contains(body, `"STAGE": "prod"`), "the review shows the public leaves")

	deploy := map[string]string{"command": "deploy"}
	for k, v := range in {
		deploy[k] = v
	}
	res := w.run(deploy)
	assert.Equal(t, res.outputs["digest"], reviewed.Digest, res.stdout)
	assert.Assert(t, res.outputs["failure-reason"] != "diff-changed" && res.outputs["failure-reason"] != "diff-edited", res.stdout)
	assert.Assert(t, is.Contains(res.summary, "reviewed at `8888888`"), res.summary)
	ran := false
	for _, c := range stub.Calls(t) {
		ran = ran || (len(c.Args) > 0 && c.Args[0] == "deploy")
	}
	assert.Assert(t, ran, "cdkd deploy ran: %s", res.stdout)
}

// Drift decides each leaf too: a drifted Environment shows its public
// settings (and the live region a person set by hand) in the check run, the
// job summary and the tracking issue, and hides the live secret and the
// leaf the state stores as "***"; nothing public is given to ::add-mask::.
func TestDriftShowsPublicLeavesBesideANoEchoValue(t *testing.T) {
	const live = "orders-live-key-b71e44"
	w := newDriftWorkspace(t)
	w.secret(live)
	app, _ := ordersApp(t, true)
	drift := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, drift, mustJSON([]map[string]any{{"stack": "Orders", "region": "us-east-1",
		"drifted": []map[string]any{{"logicalId": "Handler", "type": "AWS::Lambda::Function", "referencesUnresolved": false,
			"changes": []map[string]any{{"path": "Environment",
				"stateValue": map[string]any{"Variables": map[string]any{"STAGE": "prod", "REGION": "us-east-1", "API_KEY": "***"}},
				"awsValue":   map[string]any{"Variables": map[string]any{"STAGE": "prod", "REGION": "us-west-2", "API_KEY": live}}}}}},
		"clean": []any{}, "notSupported": []any{}, "skipped": []any{}, "notCompared": []any{}}}))
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"drift", "Orders", "--json"}, StdoutFile: drift, Exit: 1})
	res := w.run(map[string]string{"stacks": "Orders", "app": app, "issue": "true", "resolve-secrets": "false"})
	assert.Equal(t, res.code, 1, res.stdout)
	for name, text := range map[string]string{"job summary": res.summary, "check run": onlyCheckRun(t, w.gh).Output.Summary + onlyCheckRun(t, w.gh).Output.Text,
		"tracking issue": w.gh.Issues()[0].Body, "report JSON": readFile(t, res.outputs["report-json"])} {
		for _, v := range []string{"STAGE", "prod", "us-west-2", "API_KEY"} {
			assert.Assert(t, is.Contains(text, v), "%s hides the public %q: %s", name, v, text)
		}
	}
	for _, l := range parseLog(res.stdout) {
		if l.addMask {
			for _, v := range ordersPublic {
				assert.Assert(t, l.text != v, "::add-mask::%s masks a public value", l.text)
			}
		}
	}
	assert.Assert(t, is.Contains(res.stdout, "::add-mask::"+live+"\n"), "the live secret is learned")
}

// A review that shows a public literal holding a secret deploys: the gate
// leaves the literal unredacted as the diff did, so the digest and the
// visible report are the review's.
func TestDeployOfAReviewWithASecretInAPublicLiteral(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.chance = append(w.chance, oracleValue)
	app, diff := oracleApp(t)
	in := map[string]string{"all": "true", "app": app, "resolve-secrets": "false", "allow-destructive": "true"}
	deployed := filepath.Join(t.TempDir(), "deploy.stdout")
	writeFile(t, deployed, "Deploying stack: App\n")
	stub := w.stub(
		cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff}, // the review
		cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff}, // the gate
		cdkdtest.Invocation{ArgsContain: []string{"deploy"}, StdoutFile: deployed, Exit: 1},
	)
	reviewed := w.review(reviewedSHA, in)
	assert.Assert(t, is.Contains(prComment(t, w.gh).Body, `"`+oracleLiteral+`"`), "the review shows the literal")
	deploy := map[string]string{"command": "deploy"}
	for k, v := range in {
		deploy[k] = v
	}
	res := w.run(deploy)
	assert.Equal(t, res.outputs["digest"], reviewed.Digest, res.stdout)
	assert.Assert(t, is.Contains(res.summary, "reviewed at `8888888`"), res.summary)
	ran := false
	for _, c := range stub.Calls(t) {
		ran = ran || (len(c.Args) > 0 && c.Args[0] == "deploy")
	}
	assert.Assert(t, ran, "cdkd deploy ran: %s", res.stdout)
}

// Without a cloud assembly nothing is decided per leaf: every changed value
// is hidden whole, as before, and the report says so.
func TestNoAssemblyHidesWholeAndSaysSo(t *testing.T) {
	w := newWorkspace(t)
	w.secret(ordersKeyNew, ordersKeyOld)
	_, diff := ordersApp(t, true)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json", "--app", "node app.js"}, StdoutFile: diff})
	res := w.run(map[string]string{"all": "true", "app": "node app.js", "resolve-secrets": "false"})
	assert.Equal(t, res.code, 0, res.stdout)
	comment := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(comment, "`Environment`: `***` → `***` · 🔒 unknown position"), comment)
	assert.Assert(t, is.Contains(comment, "> ℹ️ "+unknownPositionsNote))
	assert.Assert(t, is.Contains(comment, "every changed value is hidden"))
	assert.Assert(t, !strings.Contains(comment, `"STAGE"`), "nothing is shown per leaf")
}

// A function being created is shown with the properties it is created
// with (bound from the template): its Environment leaf by leaf too.
func TestCreatedFunctionShowsItsPublicLeaves(t *testing.T) {
	w := newWorkspace(t)
	w.secret(ordersKeyNew)
	app, _ := ordersApp(t, true)
	diff := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, diff, mustJSON([]map[string]any{{"stack": "Orders", "region": "us-east-1",
		"changes":       []map[string]any{{"logicalId": "Handler", "changeType": "CREATE", "resourceType": "AWS::Lambda::Function"}},
		"outputChanges": []any{}, "children": []any{}}}))
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff})
	res := w.run(map[string]string{"all": "true", "app": app, "resolve-secrets": "false"})
	assert.Equal(t, res.code, 0, res.stdout)
	comment := w.gh.Comments(owner, repo, prNum)[0].Body
	for _, v := range []string{`"STAGE": "prod"`, `"REGION": "us-east-1"`, `"API_KEY": "***"`} {
		assert.Assert(t, is.Contains(comment, v), comment)
	}
}

// Drift says it too, in the check run and the tracking issue, and shows the
// literal unredacted.
func TestDriftSaysASecretInsideAPublicLiteral(t *testing.T) {
	w := newDriftWorkspace(t)
	w.chance = append(w.chance, oracleValue)
	app, _ := oracleApp(t)
	drift := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, drift, mustJSON([]map[string]any{{"stack": "App", "region": "us-east-1",
		"drifted": []map[string]any{{"logicalId": "Queue", "type": "AWS::SQS::Queue", "referencesUnresolved": false,
			"changes": []map[string]any{{"path": "VisibilityTimeout", "stateValue": 60, "awsValue": 90}}}},
		"clean": []map[string]any{{"logicalId": "Param", "type": "AWS::SSM::Parameter"}}, "notSupported": []any{}, "skipped": []any{}, "notCompared": []any{}}}))
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"drift", "App", "--json"}, StdoutFile: drift, Exit: 1})
	res := w.run(map[string]string{"stacks": "App", "app": app, "issue": "true", "resolve-secrets": "false"})
	assert.Equal(t, res.code, 1, res.stdout)
	for name, text := range map[string]string{"job summary": res.summary, "check run": onlyCheckRun(t, w.gh).Output.Summary, "tracking issue": w.gh.Issues()[0].Body} {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "<code>", "`"), "</code>", "`")
		assert.Assert(t, is.Contains(text, "the literal `"+oracleLiteral+"`"), "%s: %s", name, text)
		assert.Assert(t, is.Contains(text, "not secret and should be changed"), name)
		assert.Assert(t, !strings.Contains(text, "***-v1"), name)
	}
}
