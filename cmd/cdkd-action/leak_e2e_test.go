package main

// The leak harness: secrets of every shape, placed at every kind of
// position cdkd-action must know about, served by an in-process AWS
// emulator (kumo) and printed by a cdkd stand-in in the worst places. Then
// every channel the action writes to is searched for each secret in every
// encoding a reader could decode. Zero leaks.

import (
	cryptorand "crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// The secrets. Values are fixed; AWS names are random per run (kumo's
// storage is process-global).
var (
	pwShort4     = leakSecret{"PwShort4", "short (4 characters)", "NoEcho default", "Zq7!"}
	pwShort5     = leakSecret{"PwShort5", "short (5 characters)", "NoEcho default", "k3Y@p"}
	pwLong       = leakSecret{"PwLong", "long (305 characters)", "NoEcho default", "LONG-" + strings.Repeat("a9B8c7D6e5F4g3H2i1J0", 15)}
	pwMulti      = leakSecret{"PwMulti", "multi-line", "NoEcho default", "-----BEGIN LEAK KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFleak\nAASCBKcwggSjAgEAAoIBAQC7leak\n-----END LEAK KEY-----"}
	pwUnicode    = leakSecret{"PwUnicode", "unicode", "NoEcho default", "пароль-密码-🔑-ünï"}
	pwRegex      = leakSecret{"PwRegex", "regex metacharacters", "NoEcho default", `a.b*c+d?(e)[f]{g}|h^$\1`}
	pwQuotes     = leakSecret{"PwQuotes", "quotes and backslashes", "NoEcho default", `he said "hi" \n back\slash 'q'`}
	pwPercent    = leakSecret{"PwPercent", "percent escapes", "NoEcho default", "100%-pure%0Aenc%25%3A"}
	pwAngle      = leakSecret{"PwAngle", "angle brackets and entities", "NoEcho default", "<b>&amp;</b>&lt;x>"}
	pwURL        = leakSecret{"PwUrl", "URL-unsafe characters", "NoEcho default", "a b/c?d=e&f#g+h~"}
	pwPrefix     = leakSecret{"PwPrefix", "prefix of another secret", "NoEcho default", "prefix-secret"}
	pwPrefixLong = leakSecret{"PwPrefixLong", "extends another secret", "NoEcho default", "prefix-secret-longer-tail"}
	pwTiny       = leakSecret{"PwTiny", "under 4 characters (position and runner only)", "NoEcho default", "x7Q"}
	pwOutput     = leakSecret{"PwOutput", "output value", "NoEcho default read by an output", "noecho-output-secret-33"}
	pwNested     = leakSecret{"PwNested", "passed to a nested stack", "NoEcho default of the parent", "nested-default-pw-55"}
	stateOld     = leakSecret{"StateOld", "old NoEcho value", "NoEcho value in state (plaintext, version 8)", "old-noecho-value-in-state-v1"}
	stateOutput  = leakSecret{"StateOutput", "old output value", "NoEcho output in state (plaintext, version 8)", "noecho-output-old-value"}
	stateNested  = leakSecret{"StateNested", "old nested value", "nested stack state at a parent's NoEcho position", "nested-old-state-pw-44"}
	smJSON       = leakSecret{"SmJSON", "JSON object", "Secrets Manager, no json-key", `{"username":"json-user-4f2","password":"json-pass-\"q\"-9","port":5432}`}
	smJSONUser   = leakSecret{"SmJSON.username", "JSON field", "field of a resolved Secrets Manager JSON value", "json-user-4f2"}
	smJSONPass   = leakSecret{"SmJSON.password", "JSON field with quotes", "field of a resolved Secrets Manager JSON value", `json-pass-"q"-9`}
	smAPIKey     = leakSecret{"SmApiKey", "json-key value", "Secrets Manager with json-key", "api-key-Vq93-xx"}
	smPrevious   = leakSecret{"SmPrevious", "rotated value", "Secrets Manager with version-stage AWSPREVIOUS", "rotated-previous-pw-1"}
	smVersion    = leakSecret{"SmVersion", "current value", "Secrets Manager with version-id", "rotated-current-pw-2"}
	smCross      = leakSecret{"SmCrossRegion", "other region", "Secrets Manager ARN in eu-west-1", "cross-region-secret-eu"}
	ssmSecure    = leakSecret{"SsmSecure", "SecureString", "{{resolve:ssm-secure:...}}", "ssm-secure-value-81"}
	ssmViaPlain  = leakSecret{"SsmViaPlain", "SecureString", "plain {{resolve:ssm:...}} naming a SecureString", "ssm-via-plain-secure-72"}
	queueName    = leakSecret{"QueueName", "resource name", "queue named after a Secrets Manager value (physical id, URL, ARN)", "tenant-q-secret-name-77"}
	hiddenNew    = leakSecret{"HiddenQueueNew", "resource name", "NoEcho default naming a queue", "noecho-queue-name-new"}
	hiddenOld    = leakSecret{"HiddenQueueOld", "resource name", "physical id of a queue named after a NoEcho value (state version 11 holds ***)", "noecho-queue-name-old"}
	hiddenToken  = leakSecret{"HiddenToken", "NoEcho", "NoEcho default of a stack with state version 11", "hidden-stack-token-12"}
	maskValue1   = leakSecret{"MaskValue1", "mask-values line", "mask-values", "mask-value-line-one"}
	maskValue2   = leakSecret{"MaskValue2", "mask-values line, unicode", "mask-values", "mask-value-line-two-Ω"}
	envToken     = leakSecret{"EnvToken", "environment value", "mask-env", "env-token-9f8e7d6c"}
	envPEM       = leakSecret{"EnvPEM", "multi-line environment value", "mask-env", "pem-line-AAAA-1111\npem-line-BBBB-2222"}
)

var leakSecrets = []leakSecret{
	pwShort4, pwShort5, pwLong, pwMulti, pwUnicode, pwRegex, pwQuotes, pwPercent, pwAngle, pwURL,
	pwPrefix, pwPrefixLong, pwTiny, pwOutput, pwNested, stateOld, stateOutput, stateNested,
	smJSON, smJSONUser, smJSONPass, smAPIKey, smPrevious, smVersion, smCross, ssmSecure, ssmViaPlain,
	queueName, hiddenNew, hiddenOld, hiddenToken, maskValue1, maskValue2, envToken, envPEM,
}

// plainVisible is a plain SSM String parameter's value: not a secret, and
// it must stay readable (hiding everything is not the goal).
const plainVisible = "plain-ssm-visible-value"

// leakAWS is the emulator seeded with the harness's secrets and state.
type leakAWS struct {
	*awsEmulator
	sfx    string
	bucket string
	v2ID   string // version id of the rotated secret's current value
}

func startLeakAWS(t *testing.T) *leakAWS {
	t.Helper()
	f := &leakAWS{awsEmulator: startAWS(t), sfx: unique(t)}
	f.bucket = "leak-state-" + f.sfx
	f.secret(t, "leak-json-"+f.sfx, smJSON.value)
	f.secret(t, "leak-api-"+f.sfx, `{"apiKey":"`+smAPIKey.value+`","other":"other-field-not-referenced"}`)
	f.secret(t, "leak-rot-"+f.sfx, smPrevious.value)
	f.v2ID = f.secret(t, "leak-rot-"+f.sfx, smVersion.value)
	f.secret(t, "leak-xr-"+f.sfx, smCross.value)
	f.secret(t, "leak-qname-"+f.sfx, queueName.value)
	f.parameter(t, "/leak-"+f.sfx+"/secure", ssmSecure.value, true)
	f.parameter(t, "/leak-"+f.sfx+"/secure2", ssmViaPlain.value, true)
	f.parameter(t, "/leak-"+f.sfx+"/plain", plainVisible, false)
	states := leakStates()
	for key, body := range states {
		states[key] = strings.ReplaceAll(body, "@SFX@", f.sfx)
	}
	f.createBucket(t, f.bucket, states)
	return f
}

const (
	sqsBase  = "https://sqs.us-east-1.amazonaws.com/000000000000/"
	queueARN = "arn:aws:sqs:us-east-1:000000000000:"
)

// leakStates are the state records: version 8 (written before cdkd hid
// NoEcho values, so they hold them in plaintext) and version 11 (hidden,
// but a physical id is never hidden).
func leakStates() map[string]string {
	param := func(v string) map[string]any {
		return map[string]any{"physicalId": "/leak/param", "resourceType": "AWS::SSM::Parameter",
			"properties": map[string]any{"Type": "String", "Value": v}, "observedProperties": map[string]any{"Type": "String", "Value": v}}
	}
	leak := map[string]any{
		"version": 8, "stackName": "LeakStack", "region": "us-east-1",
		"resources": map[string]any{
			"ParamLong":       param(stateOld.value),
			"ParamShort5":     param(pwShort5.value),
			"UnchangedReader": param(pwShort5.value),
			"SecretNamedQueue": map[string]any{
				"physicalId": sqsBase + queueName.value, "resourceType": "AWS::SQS::Queue",
				"properties": map[string]any{"QueueName": "{{resolve:secretsmanager:leak-qname-@SFX@}}"},
				"attributes": map[string]any{"Arn": queueARN + queueName.value, "QueueUrl": sqsBase + queueName.value, "QueueName": queueName.value},
			},
		},
		"outputs": map[string]any{"SecretOut": stateOutput.value, "QueueUrlOut": sqsBase + queueName.value},
	}
	child := map[string]any{
		"version": 8, "stackName": "LeakStack~ChildStack", "region": "us-east-1",
		"resources": map[string]any{"ChildParam": param(stateNested.value)},
		"outputs":   map[string]any{},
	}
	hidden := map[string]any{
		"version": 11, "stackName": "LeakHidden", "region": "us-east-1",
		"resources": map[string]any{
			"NoEchoNamedQueue": map[string]any{
				"physicalId": sqsBase + hiddenOld.value, "resourceType": "AWS::SQS::Queue",
				"properties": map[string]any{"QueueName": "***"},
				"attributes": map[string]any{"Arn": "***", "QueueUrl": "***", "QueueName": "***"},
			},
			"TokenParam": param("***"),
		},
		"outputs": map[string]any{"QueueUrl": "***"},
	}
	out := map[string]string{}
	for key, v := range map[string]any{
		"cdkd/LeakStack/us-east-1/state.json":            leak,
		"cdkd/LeakStack~ChildStack/us-east-1/state.json": child,
		"cdkd/LeakHidden/us-east-1/state.json":           hidden,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err) // maps of strings always encode
		}
		out[key] = string(b)
	}
	return out
}

// assemblyDir copies testdata/leak with this run's AWS names filled in.
func (f *leakAWS) assemblyDir(t *testing.T) string {
	t.Helper()
	return copyAssembly(t, strings.NewReplacer("@SFX@", f.sfx, "@V2ID@", f.v2ID))
}

// jsJSON encodes like JavaScript's JSON.stringify: no HTML escaping.
func jsJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	assert.NilError(t, enc.Encode(v))
	return b.String()
}

func change(id, typ string, props ...map[string]any) map[string]any {
	c := map[string]any{"logicalId": id, "changeType": "UPDATE", "resourceType": typ}
	if len(props) > 0 {
		c["propertyChanges"] = props
	}
	return c
}

func prop(path string, old, new any) map[string]any {
	p := map[string]any{"path": path, "requiresReplacement": false}
	if old != nil {
		p["oldValue"] = old
	}
	if new != nil {
		p["newValue"] = new
	}
	return p
}

// userData is a base64 blob holding secrets at each of the three
// alignments of a base64 stream.
func userData() string {
	blob := "#!/bin/sh\n"
	for _, s := range []string{pwRegex.value, smJSONPass.value, pwUnicode.value} {
		for len(blob)%3 != 0 {
			blob += " "
		}
		blob += "export A=" + s + "\n" // "export A=" is 9 bytes: the secret lands at 0 mod 3
		blob += "#"                    // the next one at 1 mod 3, then 2 mod 3
	}
	return base64.StdEncoding.EncodeToString([]byte(blob))
}

// leakDiff is what the cdkd stand-in prints: cdkd 0.284 prints NoEcho
// values in plaintext, and a stand-in may put any secret anywhere.
func leakDiff(t *testing.T) string {
	t.Helper()
	var leakChanges []map[string]any
	for _, s := range []leakSecret{pwShort4, pwShort5, pwMulti, pwUnicode, pwRegex, pwQuotes, pwPercent, pwAngle, pwURL, pwPrefix, pwPrefixLong} {
		leakChanges = append(leakChanges, change("Param"+strings.TrimPrefix(s.name, "Pw"), "AWS::SSM::Parameter", prop("Value", s.value+"-old", s.value)))
	}
	leakChanges = append(leakChanges,
		change("ParamLong", "AWS::SSM::Parameter", prop("Value", stateOld.value, pwLong.value)),
		change("ParamTiny", "AWS::SSM::Parameter", prop("Value", nil, pwTiny.value)),
		change("JsonParam", "AWS::SSM::Parameter", prop("Value", "{{resolve:secretsmanager:leak-json}}", smJSON.value)),
		change("ApiKeyParam", "AWS::SSM::Parameter", prop("Value", smAPIKey.value, smAPIKey.value+"-new")),
		change("PrevParam", "AWS::SSM::Parameter", prop("Value", nil, smPrevious.value)),
		change("VerParam", "AWS::SSM::Parameter", prop("Value", nil, smVersion.value)),
		change("XrParam", "AWS::SSM::Parameter", prop("Value", nil, smCross.value)),
		change("SecureParam", "AWS::SSM::Parameter", prop("Value", ssmSecure.value, nil)),
		change("ViaPlainParam", "AWS::SSM::Parameter", prop("Value", nil, ssmViaPlain.value)),
		change("PlainParam", "AWS::SSM::Parameter", prop("Description", nil, plainVisible)),
		change("QueuePolicy", "AWS::IAM::Policy", prop("PolicyDocument.Statement.0.Resource",
			queueARN+queueName.value, []any{queueARN + queueName.value, queueARN + hiddenOld.value})),
		change("Instance", "AWS::EC2::Instance", prop("UserData", nil, userData())),
		change("Webhook", "AWS::SNS::Subscription", prop("Endpoint", "https://hooks.example.com/x",
			"https://hooks.example.com/x?token="+url.QueryEscape(pwURL.value)+"&u="+url.QueryEscape(pwUnicode.value)+"&p="+url.PathEscape(pwPercent.value))),
		change("Config", "AWS::SSM::Parameter", prop("Value", "<cfg/>",
			`<cfg pw="`+html.EscapeString(pwAngle.value)+`" q="`+html.EscapeString(pwQuotes.value)+`"/>`)),
		change("Topic", "AWS::SNS::Topic",
			prop("DisplayName", "plain", "conn=postgres://u:"+pwShort5.value+"@db/"+pwShort4.value+" "+pwPrefixLong.value+" "+pwPrefix.value),
			prop("Certificate", nil, pwMulti.value+"\n"+envPEM.value),
			prop("DeliveryPolicy", nil, jsJSON(t, map[string]any{"pw": pwQuotes.value, "json": smJSON.value, "tok": envToken.value})),
			prop("Tags", nil, []any{map[string]any{"Key": "k", "Value": pwLong.value}, map[string]any{"Key": maskValue1.value, "Value": maskValue2.value}}),
		),
	)
	nodes := []map[string]any{
		{
			"stack": "LeakStack", "region": "us-east-1",
			"changes": leakChanges,
			"outputChanges": []map[string]any{
				{"name": "SecretOut", "changeType": "MODIFY", "oldValue": stateOutput.value, "newValue": pwOutput.value, "export": false},
				{"name": "QueueUrlOut", "changeType": "ADD", "newValue": sqsBase + queueName.value, "export": false},
				{"name": "ApiOut", "changeType": "ADD", "newValue": "Bearer " + smAPIKey.value, "export": false},
			},
			"children": []map[string]any{{
				"stack": "ChildStack", "region": "us-east-1",
				"changes":       []map[string]any{change("ChildParam", "AWS::SSM::Parameter", prop("Value", stateNested.value, pwNested.value))},
				"outputChanges": []any{}, "children": []any{},
			}},
		},
		{
			"stack": "LeakHidden", "region": "us-east-1",
			"changes": []map[string]any{{
				"logicalId": "NoEchoNamedQueue", "changeType": "UPDATE", "resourceType": "AWS::SQS::Queue",
				"propertyChanges": []map[string]any{{"path": "QueueName", "oldValue": "***", "newValue": hiddenNew.value, "requiresReplacement": true}},
			}},
			"outputChanges": []map[string]any{
				{"name": "QueueUrl", "changeType": "MODIFY", "oldValue": sqsBase + hiddenOld.value, "newValue": sqsBase + hiddenNew.value, "export": false},
			},
			"children": []any{},
		},
	}
	return jsJSON(t, nodes)
}

// leakStderr is what the stand-in prints on stderr: every secret a noisy
// cdkd might log, including attempts to issue workflow commands.
func leakStderr() []cdkdtest.Line {
	var lines []string
	for _, s := range leakSecrets {
		if utf8.RuneCountInString(strings.TrimSpace(s.value)) < 4 {
			continue // matched by position and the runner only (documented)
		}
		lines = append(lines, strings.Split("resolved "+s.value, "\n")...)
	}
	lines = append(lines,
		"::warning::"+pwRegex.value,
		"::add-mask::not-a-real-mask "+queueName.value,
		"Creating queue "+sqsBase+queueName.value+" ("+queueARN+hiddenOld.value+")",
		"payload "+mustJSON(map[string]string{"pw": pwQuotes.value, "json": smJSON.value}),
		"auth "+base64.StdEncoding.EncodeToString([]byte("user:"+smJSONPass.value)),
		"url "+url.QueryEscape(pwURL.value)+" "+url.PathEscape(pwUnicode.value),
		"xml "+html.EscapeString(pwAngle.value),
	)
	out := make([]cdkdtest.Line, len(lines))
	for i, l := range lines {
		out[i] = cdkdtest.Line{Text: l}
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v) // Go's default: HTML characters escaped
	if err != nil {
		panic(err) // maps of strings always encode
	}
	return string(b)
}

// unique returns a random suffix for AWS names: kumo keeps one storage for
// the whole process.
func unique(t *testing.T) string {
	t.Helper()
	var b [4]byte
	_, err := cryptorand.Read(b[:])
	assert.NilError(t, err)
	return fmt.Sprintf("%x", b)
}

// assertMasksFirst checks that every ::add-mask:: precedes every other line
// and returns the registered values.
func assertMasksFirst(t *testing.T, stdout string) map[string]bool {
	t.Helper()
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%")
	masks := map[string]bool{}
	other := -1
	for i, l := range parseLog(stdout) {
		if !l.addMask {
			if other < 0 {
				other = i
			}
			continue
		}
		if other >= 0 {
			t.Errorf("::add-mask:: on line %d comes after other output (line %d)", i+1, other+1)
		}
		masks[unescape.Replace(l.text)] = true
	}
	return masks
}

// assertDiscovered checks that cdkd-action found every secret itself.
func assertDiscovered(t *testing.T, masks map[string]bool) {
	t.Helper()
	for _, s := range leakSecrets {
		if !masks[strings.TrimSpace(s.value)] {
			t.Errorf("secret %s (%s; %s) was not discovered: no ::add-mask:: line registers it", s.name, s.shape, s.where)
		}
	}
}

// copyAssembly copies testdata/leak with the given names filled in.
func copyAssembly(t *testing.T, r *strings.Replacer) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("testdata/leak")
	assert.NilError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata/leak", e.Name()))
		assert.NilError(t, err)
		writeFile(t, filepath.Join(dir, e.Name()), r.Replace(string(b)))
	}
	return dir
}

func leakInputs(f *leakAWS, asm string) (map[string]string, []string) {
	inputs := map[string]string{
		"all":          "true",
		"app":          asm,
		"state-bucket": f.bucket,
		"mask-values":  maskValue1.value + "\n" + maskValue2.value,
		"mask-env":     "LEAK_TOKEN LEAK_PEM",
	}
	env := []string{"LEAK_TOKEN=" + envToken.value, "LEAK_PEM=" + envPEM.value}
	return inputs, env
}

// The diff command, run twice: a diff printing every secret, then a cdkd
// failure whose error text holds secrets.
func TestLeakDiff(t *testing.T) {
	f := startLeakAWS(t)
	w := newWorkspace(t)
	w.useAWS(f.awsEmulator)
	w.declare(leakSecrets...)
	diffFile := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, diffFile, strings.ReplaceAll(leakDiff(t), "@SFX@", f.sfx))
	failure := append(leakStderr(), cdkdtest.Line{Text: "Error: Failed to create queue '" + queueName.value + "' with password " + pwShort5.value + " (token " + envToken.value + ")"})
	stub := w.stub(
		cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, Env: map[string]string{"CDKD_NO_LIVE": "1"}, StdoutFile: diffFile, StderrLines: leakStderr()},
		cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: failure, Exit: 1},
	)
	inputs, env := leakInputs(f, f.assemblyDir(t))

	res := w.run(inputs, env...)
	assert.Equal(t, res.code, 0, "exit code; log:\n%s", runnermask.Simulate(res.stdout))
	assertDiscovered(t, assertMasksFirst(t, res.stdout))

	// What must stay visible does.
	comment := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comment, 1))
	assert.Assert(t, is.Contains(comment[0].Body, plainVisible), "a plain String parameter is not a secret")
	assert.Assert(t, is.Contains(comment[0].Body, "ParamLong"))
	// Cross-region references are read in their own region.
	assert.Assert(t, f.sawScope("secretsmanager/eu-west-1"), "the eu-west-1 secret was read in eu-west-1")
	// A secret too short to match by value is warned about, without its value.
	assert.Assert(t, is.Regexp(`(?m)^::warning::.*NoEcho parameter LeakStack/PwTiny.*shorter than 4 characters`, res.stdout))
	// Position redaction carries its label into the report JSON.
	report := readFile(t, res.outputs["report-json"])
	assert.Assert(t, is.Contains(report, `"secret":"NoEcho"`))
	assert.Assert(t, is.Contains(report, `"secret":"secret"`))

	// The NoEcho notes reach every channel and are not changes.
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	for name, text := range map[string]string{"comment": comment[0].Body, "job summary": res.summary, "check run summary": runs[0].Output.Summary} {
		assert.Assert(t, is.Contains(text, "2 unchanged resources read a NoEcho parameter; cdkd cannot tell whether its value changed"), name)
		assert.Assert(t, is.Contains(text, "UnchangedReader"), name)
		assert.Assert(t, is.Contains(text, "1 unchanged resource reads a NoEcho parameter"), name)
		assert.Assert(t, is.Contains(text, "TokenParam"), name)
	}

	failed := w.run(inputs, env...)
	assert.Equal(t, failed.code, 3, "exit code; log:\n%s", runnermask.Simulate(failed.stdout))
	assertDiscovered(t, assertMasksFirst(t, failed.stdout))
	body := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(body, "Failed to create queue '***' with password ***"), "the error is shown, redacted")
	stub.AssertAllUsed(t)
}

// A stack whose only news is that unchanged resources read a NoEcho
// parameter has no changes: not for has-changes, not for fail-on-changes.
func TestLeakNoEchoNoteIsNotAChange(t *testing.T) {
	w := newWorkspace(t)
	diff := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, diff, `[{"stack":"LeakHidden","region":"us-east-1","changes":[],"outputChanges":[],"children":[]}]`)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff})
	asm := copyAssembly(t, strings.NewReplacer("@SFX@", "none", "@V2ID@", "none"))
	res := w.run(map[string]string{"stacks": "LeakHidden", "app": asm, "fail-on-changes": "true", "mask-values": maskValue1.value})
	assert.Equal(t, res.code, 0, res.stdout)
	// No AWS here: the warning saying so comes after the masks.
	masks := assertMasksFirst(t, res.stdout)
	assert.Assert(t, masks[maskValue1.value] && masks[hiddenToken.value])
	assert.Assert(t, is.Regexp(`(?m)^::warning::could not resolve \{\{resolve:secretsmanager:leak-api-none:SecretString:apiKey\}\} to mask its value, .*no AWS credentials`, res.stdout))
	assert.Equal(t, res.outputs["has-changes"], "false")
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	assert.Equal(t, runs[0].Conclusion, "success")
	note := "2 unchanged resources read a NoEcho parameter; cdkd cannot tell whether its value changed: `NoEchoNamedQueue`, `TokenParam`"
	assert.Assert(t, is.Contains(w.gh.Comments(owner, repo, prNum)[0].Body, note))
	assert.Assert(t, is.Contains(res.summary, note))
	assert.Assert(t, is.Contains(runs[0].Output.Summary, note))
}

// leakDriftJSON is `cdkd drift --json` as today's cdkd prints it: stored
// and live values in plaintext, NoEcho ones included.
func leakDriftJSON(t *testing.T) string {
	t.Helper()
	drifted := func(id, typ string, changes ...map[string]any) map[string]any {
		return map[string]any{"logicalId": id, "type": typ, "changes": changes, "referencesUnresolved": false}
	}
	dc := func(path string, state, aws any) map[string]any {
		return map[string]any{"path": path, "stateValue": state, "awsValue": aws}
	}
	res := func(id, typ string) map[string]any {
		return map[string]any{"logicalId": id, "type": typ, "referencesUnresolved": false}
	}
	stacks := []map[string]any{
		{
			"stack": "LeakStack", "region": "us-east-1",
			"drifted": []map[string]any{
				drifted("ParamLong", "AWS::SSM::Parameter", dc("Value", stateOld.value, pwLong.value)),
				drifted("ParamTiny", "AWS::SSM::Parameter", dc("Value", "***", pwTiny.value)),
				drifted("ParamMulti", "AWS::SSM::Parameter", dc("Value", pwMulti.value, pwUnicode.value)),
				drifted("ParamQuotes", "AWS::SSM::Parameter", dc("Value", pwQuotes.value, pwPercent.value)),
				drifted("SecureParam", "AWS::SSM::Parameter", dc("Value", "{{resolve:ssm-secure:/leak-@SFX@/secure}}", ssmSecure.value)),
				drifted("JsonParam", "AWS::SSM::Parameter", dc("Value", "{{resolve:secretsmanager:leak-json-@SFX@}}", smJSON.value)),
				drifted("ApiKeyParam", "AWS::SSM::Parameter", dc("Value", smAPIKey.value, smPrevious.value)),
				drifted("QueuePolicy", "AWS::IAM::Policy", dc("PolicyDocument.Statement.0.Resource", queueARN+queueName.value, queueARN+hiddenOld.value)),
				drifted("Topic", "AWS::SNS::Topic",
					dc("DisplayName", "conn="+pwShort5.value+" "+pwShort4.value+" "+pwPrefixLong.value, userData()),
					dc("Tags", []any{map[string]any{"Key": "k", "Value": pwRegex.value}}, nil),
					dc("DeliveryPolicy", mustJSON(map[string]string{"a": pwAngle.value, "u": pwURL.value}), smCross.value+" "+smVersion.value+" "+ssmViaPlain.value)),
			},
			"clean":        []map[string]any{res("UnchangedReader", "AWS::SSM::Parameter")},
			"notSupported": []map[string]any{{"logicalId": "SecretNamedQueue", "type": "AWS::SQS::Queue"}},
			"skipped":      []any{},
			"notCompared":  []map[string]any{{"logicalId": "ViaPlainParam", "type": "AWS::SSM::Parameter", "referencesUnresolved": true}},
		},
		{
			"stack": "LeakStack~ChildStack", "region": "us-east-1",
			"drifted": []map[string]any{drifted("ChildParam", "AWS::SSM::Parameter", dc("Value", stateNested.value, pwNested.value))},
			"clean":   []any{}, "notSupported": []any{}, "skipped": []any{}, "notCompared": []any{},
		},
		{
			"stack": "LeakHidden", "region": "us-east-1",
			"drifted": []map[string]any{
				drifted("NoEchoNamedQueue", "AWS::SQS::Queue", dc("QueueName", "***", hiddenOld.value)),
				drifted("TokenParam", "AWS::SSM::Parameter", dc("Value", "***", hiddenToken.value+" "+maskValue1.value+" "+maskValue2.value+" "+envToken.value)),
			},
			"clean": []any{}, "notSupported": []any{}, "skipped": []any{}, "notCompared": []any{},
		},
	}
	return jsJSON(t, stacks)
}

// The drift command through the same harness: cdkd drift's plaintext
// stored and live values, NoEcho ones included, are masked before anything
// prints, and the report is still rendered.
func TestLeakDrift(t *testing.T) {
	f := startLeakAWS(t)
	w := newWorkspace(t)
	w.useAWS(f.awsEmulator)
	w.declare(leakSecrets...)
	event := filepath.Join(w.dir, "schedule.json")
	writeFile(t, event, `{"schedule":"0 3 * * *"}`)
	w.vars["GITHUB_EVENT_NAME"] = "schedule"
	w.vars["GITHUB_EVENT_PATH"] = event
	driftFile := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, driftFile, strings.ReplaceAll(leakDriftJSON(t), "@SFX@", f.sfx))
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"drift", "--json"}, Repeat: true, StdoutFile: driftFile, StderrLines: leakStderr(), Exit: 1})
	inputs, env := leakInputs(f, f.assemblyDir(t))
	inputs["command"] = "drift"

	res := w.run(inputs, env...)
	assertDiscovered(t, assertMasksFirst(t, res.stdout))
	assert.Assert(t, is.Contains(res.summary, "ParamLong"), "the drift report was rendered; log:\n%s", runnermask.Simulate(res.stdout))
}
