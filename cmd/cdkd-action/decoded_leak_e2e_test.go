package main

// Leak tests of issue 35: a known secret spelled by an encoder nobody
// listed (real tools' output, from testdata/secret-encodings), in another
// case or normalization, or wrapped at any column, in a diff value and in
// cdkd's error output; and a secret used as a resource's name.

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// The password, and a non-ASCII one (NFC).
const (
	decodedPW  = "ENC0DED-pw/Secret+Value=77?x"
	decodedUni = "pässwörd-ünï-🔑-秘密"
)

// encodedForms returns, for secret, what the real encoders of
// scripts/secret-encodings wrote (Node, Python, jq, od) and the escapes
// the issue names, spelled here by fmt: hex either case, %xx lower-case,
// every character \uXXXX, numeric entities.
func encodedForms(t *testing.T, secret string) []form {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "secret-encodings", "encoded.json"))
	assert.NilError(t, err)
	var file struct {
		Records []struct{ Encoder, Secret, Encoded string } `json:"records"`
	}
	assert.NilError(t, json.Unmarshal(b, &file))
	var out []form
	for _, r := range file.Records {
		if r.Secret == secret {
			out = append(out, form{r.Encoder, r.Encoded})
		}
	}
	assert.Assert(t, len(out) >= 18, "the fixtures hold %d encodings of %q", len(out), secret)
	var pct, u, hexEnt, decEnt strings.Builder
	for i := 0; i < len(secret); i++ {
		fmt.Fprintf(&pct, "%%%02x", secret[i])
	}
	for _, r := range secret {
		for _, unit := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&u, `\u%04x`, unit)
		}
		fmt.Fprintf(&hexEnt, "&#x%X;", r)
		fmt.Fprintf(&decEnt, "&#%d;", r)
	}
	return append(out,
		form{"hex", fmt.Sprintf("%x", secret)}, form{"HEX", fmt.Sprintf("%X", secret)},
		form{"%xx lower-case", pct.String()}, form{`every character \uXXXX`, u.String()},
		form{"hex entities", hexEnt.String()}, form{"decimal entities", decEnt.String()})
}

// assertNoForm fails for each form found in a channel as written, inside
// a JSON string, or HTML-escaped (as a Markdown report shows it).
func assertNoForm(t *testing.T, channels []channel, forms []form) {
	t.Helper()
	for _, c := range channels {
		for _, f := range forms {
			for _, shown := range []string{f.text, jsonEscape(f.text, false), jsonEscape(f.text, true), html.EscapeString(f.text)} {
				if len(shown) >= 4 && strings.Contains(c.text, shown) {
					i := strings.Index(c.text, shown)
					t.Errorf("LEAK in %s: the secret as %s: …%s⟦%s⟧%s…", c.name, f.kind, tail(c.text[:i], 40), shown, head(c.text[i+len(shown):], 40))
					break
				}
			}
		}
	}
}

// decodedAssembly is a cloud assembly of one stack: a NoEcho parameter
// that is part of a queue's name, a plain parameter for values, and a
// parameter that reads the Secrets Manager secret named ref.
func decodedAssembly(t *testing.T, ref string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "manifest.json"), `{"version":"55.0.0","artifacts":{"Named":{"type":"aws:cloudformation:stack",
"environment":"aws://unknown-account/us-east-1","properties":{"templateFile":"Named.template.json"},"displayName":"Named"}}}`)
	writeFile(t, filepath.Join(dir, "Named.template.json"), `{
 "Parameters": {"DbPassword": {"Type": "String", "Default": "noecho-db-password-v7x", "NoEcho": true}},
 "Resources": {
  "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Fn::Sub": "${DbPassword}-v1"}}},
  "Param": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "String", "Value": "plain"}},
  "Secret": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "String", "Value": "{{resolve:secretsmanager:`+ref+`}}"}}
 },
 "Outputs": {"QueueUrl": {"Value": {"Ref": "Queue"}}}
}`)
	return dir
}

// decodedWorkspace is a workspace whose AWS holds the password in
// Secrets Manager, as the attacker's known secret: the run learns it from
// the {{resolve:...}} reference the assembly holds (see decodedAssembly),
// never from an input. ref is the secret's name.
func decodedWorkspace(t *testing.T) (*workspace, string) {
	t.Helper()
	e := startAWS(t)
	ref := "decoded-pw-" + unique(t)
	e.secret(t, ref, decodedPW)
	w := newWorkspace(t)
	w.useAWS(e)
	return w, ref
}

// A known secret written by any of the encoders, in a diff value, reaches
// no sink: PR comment, check run, job summary, report JSON,
// .cdkd-action/diff.json, the log.
func TestDecodedFormsInADiffValueDoNotLeak(t *testing.T) {
	var forms []form
	values := map[string]string{}
	for _, secret := range []string{decodedPW, decodedUni} {
		for i, f := range encodedForms(t, secret) {
			forms = append(forms, f)
			values[fmt.Sprintf("%s %d %s", f.kind, i, secret[:3])] = "v=" + f.text + ";"
		}
	}
	diff := mustJSON([]map[string]any{{
		"stack": "Named", "region": "us-east-1",
		"changes": []map[string]any{{"logicalId": "Param", "changeType": "UPDATE", "resourceType": "AWS::SSM::Parameter",
			"propertyChanges": []map[string]any{{"path": "Value", "oldValue": "plain", "newValue": values, "requiresReplacement": false}}}},
		"outputChanges": []any{}, "children": []any{},
	}})
	w, ref := decodedWorkspace(t)
	file := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, file, diff)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: file})
	res := w.run(map[string]string{"stacks": "Named", "app": decodedAssembly(t, ref), "mask-values": decodedUni})
	assert.Equal(t, res.code, 0, res.stdout)
	assertNoForm(t, res.channels, forms)
	comment := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comment, 1))
	assert.Assert(t, is.Contains(comment[0].Body, "v=***;"), "the value is shown, the secret in it redacted")
	var sinks []string
	for _, c := range res.channels {
		sinks = append(sinks, c.name)
	}
	assert.Assert(t, is.Contains(strings.Join(sinks, "\n"), ".cdkd-action/diff.json"), "every sink was searched: %v", sinks)
}

// looseText is what a reader recovers from a channel: line breaks (real,
// escaped, <br>) and the indentation after them removed, NFC, lower-case.
func looseText(s string) string {
	for _, brk := range []string{"\r\n", "\n", "\r", `\r\n`, `\n`, "<br>"} {
		parts := strings.Split(s, brk)
		for i := 1; i < len(parts); i++ {
			parts[i] = strings.TrimLeft(parts[i], " \t")
		}
		for i := 0; i < len(parts)-1; i++ {
			parts[i] = strings.TrimRight(parts[i], " \t")
		}
		s = strings.Join(parts, "")
	}
	return strings.ToLower(norm.NFC.String(s))
}

// cdkd's error output holding the secret upper-cased, in NFD, wrapped at
// a column with and without indentation, and in escapes no encoder list
// held reaches no sink: log, job summary, PR comment, check run, report.
func TestErrorOutputShapesDoNotLeak(t *testing.T) {
	nfd := norm.NFD.String(decodedUni)
	assert.Assert(t, nfd != decodedUni)
	forms := append(encodedForms(t, decodedPW), encodedForms(t, decodedUni)...)
	lines := []cdkdtest.Line{
		{Text: "Error: the password " + strings.ToUpper(decodedPW) + " was rejected"},
		{Text: "ValidationError: value " + nfd + " is not allowed"},
		{Text: "Error: value " + decodedPW[:11]},
		{Text: "    " + decodedPW[11:] + " is too long"},
		{Text: "Error: " + strings.ToUpper(decodedUni[:9])},
		{Text: strings.ToUpper(decodedUni[9:]) + " does not match"},
	}
	for _, f := range forms {
		lines = append(lines, cdkdtest.Line{Text: "Error: bad value " + f.text + " (" + f.kind + ")"})
	}
	lines = append(lines, cdkdtest.Line{Text: "Error: Failed to create queue with password " + strings.ToLower(decodedPW)})
	w, ref := decodedWorkspace(t)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: lines, Exit: 1})
	res := w.run(map[string]string{"all": "true", "app": decodedAssembly(t, ref), "mask-values": decodedUni})
	assert.Equal(t, res.code, 3, res.stdout)
	assertNoForm(t, res.channels, forms)
	for _, c := range res.channels {
		text := looseText(c.text)
		for _, secret := range []string{decodedPW, decodedUni} {
			want := strings.ToLower(norm.NFC.String(secret))
			if i := strings.Index(text, want); i >= 0 {
				t.Errorf("LEAK in %s: %q in another case, normalization or wrapped: …%s⟦here⟧%s…", c.name, secret, tail(text[:i], 40), head(text[i+len(want):], 40))
			}
		}
	}
	assert.Assert(t, is.Contains(res.summary, "Failed to create queue with password ***"), res.summary)
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	assert.Assert(t, is.Contains(runs[0].Output.Summary+runs[0].Output.Text, "password ***"))
}

// A NoEcho value that is part of a queue's name stays hidden inside the
// name and the URL (***-v1), and the report says once, in the comment, the
// job summary and the check run, that AWS shows it there.
func TestSecretInANameIsSaid(t *testing.T) {
	const pw = "noecho-db-password-v7x"
	const url = "https://sqs.us-east-1.amazonaws.com/000000000000/" + pw + "-v1"
	diff := mustJSON([]map[string]any{{
		"stack": "Named", "region": "us-east-1",
		"changes": []map[string]any{{"logicalId": "Param", "changeType": "UPDATE", "resourceType": "AWS::SSM::Parameter",
			"propertyChanges": []map[string]any{{"path": "Value", "oldValue": "plain", "newValue": "queue " + url, "requiresReplacement": false}}}},
		"outputChanges": []map[string]any{{"name": "QueueUrl", "changeType": "ADD", "newValue": url, "export": false}},
		"children":      []any{},
	}})
	w := newWorkspace(t)
	w.secret(pw)
	file := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, file, diff)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: file})
	res := w.run(map[string]string{"stacks": "Named", "app": decodedAssembly(t, "unused")})
	assert.Equal(t, res.code, 0, res.stdout)
	comment := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(comment, "queue https://sqs.us-east-1.amazonaws.com/000000000000/***-v1"), "hidden inside the name")
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	report := readFile(t, res.outputs["report-json"])
	for name, text := range map[string]string{"comment": comment, "job summary": res.summary, "check run": runs[0].Output.Summary, "report JSON": report} {
		// Once per position: the comment also carries its notes in its
		// hidden header, which the deploy renders the report from.
		assert.Equal(t, strings.Count(text, "ℹ️ The value of"), min(1, strings.Count(text, "ℹ️")), "%s says it once: %s", name, text)
		assert.Assert(t, is.Contains(text, "is part of the name of"), name)
		if name == "report JSON" {
			assert.Equal(t, strings.Count(text, "is part of the name of"), 1, text)
		}
		for _, want := range []string{"DbPassword", "Queue", "AWS shows it there", "Do not use a secret as a name"} {
			assert.Assert(t, is.Contains(text, want), name)
		}
	}
}
