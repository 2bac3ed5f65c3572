package main

// Leak tests of issue 45 item 3: a secret inside an encoded blob
// (PowerShell's -EncodedCommand, a Kubernetes Secret manifest in UserData,
// cloud-init's gz+b64, zlib, base32), in a diff value, a drifted value and
// cdkd's output, reaches no channel; a public blob of the same shapes is
// shown as it is.

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/reviewstore"
)

const blobE2ESecret = "blob-e2e-Pa55w0rd-71"

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func compress(t *testing.T, gz bool, s []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser = zlib.NewWriter(&buf)
	if gz {
		w = gzip.NewWriter(&buf)
	}
	_, err := w.Write(s)
	assert.NilError(t, err)
	assert.NilError(t, w.Close())
	return buf.Bytes()
}

// secretBlobs are the issue's blobs around blobE2ESecret; publicBlobs are
// blobs of the same shapes holding nothing secret.
func secretBlobs(t *testing.T) []form {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString
	manifest := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: " + b64([]byte(blobE2ESecret)) + "\n"
	return []form{
		{"PowerShell -EncodedCommand", b64(utf16LE(`New-LocalUser admin -Password (ConvertTo-SecureString "` + blobE2ESecret + `" -AsPlainText -Force)`))},
		{"a Kubernetes Secret manifest in UserData", b64([]byte("#!/bin/bash\ncat <<EOF | kubectl apply -f -\n" + manifest + "EOF\n"))},
		{"cloud-init gz+b64", b64(compress(t, true, []byte("DB_PASSWORD="+blobE2ESecret+"\nDB_HOST=db.internal\n")))},
		{"zlib then base64", b64(compress(t, false, []byte("export TOKEN="+blobE2ESecret+"\n")))},
		{"base32", base32.StdEncoding.EncodeToString([]byte("otpauth://totp/ops?secret=" + blobE2ESecret))},
	}
}

func publicBlobs(t *testing.T) []form {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString
	return []form{
		{"public -EncodedCommand", b64(utf16LE("Install-WindowsFeature Web-Server"))},
		{"public gz+b64", b64(compress(t, true, []byte("#cloud-config\npackages: [nginx]\n")))},
	}
}

// declareBlobs makes every later step fail when a blob, or a piece of one
// a reader could decode, reaches a channel.
func declareBlobs(w *workspace, blobs []form) {
	for _, b := range blobs {
		w.declare(leakSecret{name: b.kind, shape: "blob", where: "the test", value: b.text})
	}
}

// lineBreaks are a wrapped blob's line breaks as a channel may write them.
var lineBreaks = regexp.MustCompile(`(\r?\n|\\r\\n|\\n|<br>)[ \t]*`)

// blobRuns are the runs of base64's and base32's alphabets.
var blobRuns = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}`)

// decodesTo reports whether text holds a blob that decodes to secret:
// base64 (either alphabet, any of four alignments), base32, then gzip,
// zlib or UTF-16LE, three levels deep. Written independently of
// internal/secrets on purpose: it is the reader's decoder.
func decodesTo(text, secret string, depth int) bool {
	if depth == 0 {
		return false
	}
	if strings.Contains(text, secret) {
		return true
	}
	for _, run := range blobRuns.FindAllString(lineBreaks.ReplaceAllString(text, ""), -1) {
		var outs [][]byte
		for off := range 4 {
			r := run[off:]
			r = r[:len(r)/4*4]
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				if b, err := enc.DecodeString(strings.TrimRight(r, "=")); err == nil {
					outs = append(outs, b)
				}
			}
		}
		for off := range 8 {
			if off < len(run) {
				r := run[off:]
				if b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(r[:len(r)/8*8]); err == nil {
					outs = append(outs, b)
				}
			}
		}
		for _, b := range outs {
			for _, x := range expand(b) {
				if decodesTo(string(x), secret, depth-1) {
					return true
				}
			}
		}
	}
	return false
}

// expand is b, inflated when it is gzip or zlib, and read as UTF-16LE.
func expand(b []byte) [][]byte {
	out := [][]byte{b}
	if r, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
		if x, err := io.ReadAll(r); err == nil || len(x) > 0 {
			out = append(out, x)
		}
	}
	if r, err := zlib.NewReader(bytes.NewReader(b)); err == nil {
		if x, err := io.ReadAll(r); err == nil || len(x) > 0 {
			out = append(out, x)
		}
	}
	for _, x := range out[:] {
		if bytes.IndexByte(x, 0) >= 0 {
			units := make([]uint16, len(x)/2)
			for i := range units {
				units[i] = uint16(x[2*i]) | uint16(x[2*i+1])<<8
			}
			out = append(out, []byte(string(utf16.Decode(units))))
		}
	}
	return out
}

// assertNoBlobLeak fails for each channel a reader decodes the secret from.
func assertNoBlobLeak(t *testing.T, channels []channel, secret string) {
	t.Helper()
	var names []string
	for _, c := range channels {
		names = append(names, c.name)
		if decodesTo(c.text, secret, 4) {
			t.Errorf("LEAK in %s: a blob decodes to the secret", c.name)
		}
	}
	t.Logf("searched %d channels: %s", len(channels), strings.Join(names, "; "))
}

// blobAssembly is a cloud assembly of one stack whose parameter's value
// is a literal: a change of it is shown.
func blobAssembly(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "manifest.json"), `{"version":"55.0.0","artifacts":{"Named":{"type":"aws:cloudformation:stack",
"environment":"aws://unknown-account/us-east-1","properties":{"templateFile":"Named.template.json"},"displayName":"Named"}}}`)
	writeFile(t, filepath.Join(dir, "Named.template.json"), `{"Resources": {
  "Param": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "String", "Value": "plain"}}}}`)
	return dir
}

// The diff: a value holding every blob, and cdkd's log printing them
// (one wrapped at 76 columns), reach no channel of the diff (PR comment,
// check run, job summary, outputs, report JSON, the log) nor the review
// object kept in the state bucket when the change set does not fit the
// comment; the public blobs and the text around the secret ones are shown.
func TestBlobsHoldingASecretInADiffDoNotLeak(t *testing.T) {
	for _, tc := range []struct {
		name  string
		noise int
	}{{"in the comment", 0}, {"kept in the state bucket", 3000}} {
		t.Run(tc.name, func(t *testing.T) { blobDiffCase(t, tc.noise) })
	}
}

// blobDiffCase runs the diff of the blobs' change and noise more changes
// (3,000 are more than the comment's hidden line holds).
func blobDiffCase(t *testing.T, noise int) {
	secret, public := secretBlobs(t), publicBlobs(t)
	var value []string
	for _, b := range append(append([]form(nil), secret...), public...) {
		value = append(value, b.kind+": "+b.text)
	}
	changes := []map[string]any{{"logicalId": "Param", "changeType": "UPDATE", "resourceType": "AWS::SSM::Parameter",
		"propertyChanges": []map[string]any{{"path": "Value", "oldValue": "plain", "newValue": strings.Join(value, " | "), "requiresReplacement": false}}}}
	for i := range noise {
		sum := sha256.Sum256([]byte(itoa(int64(i))))
		changes = append(changes, map[string]any{"logicalId": "Q" + hex.EncodeToString(sum[:8]), "changeType": "UPDATE", "resourceType": "AWS::SQS::Queue",
			"propertyChanges": []map[string]any{{"path": "Tags", "requiresReplacement": false}}})
	}
	diff := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, diff, mustJSON([]map[string]any{{"stack": "Named", "region": "us-east-1", "changes": changes, "outputChanges": []any{}, "children": []any{}}}))
	var lines []cdkdtest.Line
	for _, b := range secret {
		lines = append(lines, cdkdtest.Line{Text: "debug: user data " + b.text})
	}
	long := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("#cloud-config\n", 6) + "password: " + blobE2ESecret + "\n"))
	for ; len(long) > 76; long = long[76:] {
		lines = append(lines, cdkdtest.Line{Text: "    " + long[:76]})
	}
	lines = append(lines, cdkdtest.Line{Text: "    " + long}, cdkdtest.Line{Text: "debug: " + public[0].text})

	aws := startAWS(t)
	bucket := "blobs-" + unique(t)
	aws.createBucket(t, bucket, nil)
	w := newWorkspace(t)
	w.useAWS(aws)
	w.secret(blobE2ESecret)
	declareBlobs(w, secret)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff, StderrLines: lines})
	res := w.run(map[string]string{"stacks": "Named", "app": blobAssembly(t), "mask-values": blobE2ESecret}, "CDKD_STATE_BUCKET="+bucket)
	assert.Equal(t, res.code, 0, res.stdout)

	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1))
	h, ok := marker.Parse(comments[0].Body)
	assert.Assert(t, ok)
	channels := res.channels
	shown := []channel{{"the job summary", res.summary}}
	raw, stored := aws.object(t, bucket, reviewstore.Key("", h.Digest))
	assert.Equal(t, stored, noise > 0, "the change set is kept in the state bucket only when it does not fit the comment")
	if stored {
		zr, err := gzip.NewReader(strings.NewReader(raw))
		assert.NilError(t, err)
		b, err := io.ReadAll(zr)
		assert.NilError(t, err)
		object := channel{"the review object in the state bucket", string(b)}
		channels = append(channels, object)
		shown = append(shown, object)
		assertNoLeak(t, []channel{object}, w.secrets...)
	} else {
		shown = append(shown, channel{"the PR comment", comments[0].Body}, channel{"the check run", diffCheck(t, w.gh).Output.Summary + diffCheck(t, w.gh).Output.Text})
		// What the comment loses is the blobs that hold the secret, no
		// more: against the same comment with each blob shown.
		lost := 0
		for _, b := range secret {
			lost += len(b.text) - len("***")
		}
		t.Logf("the comment lost %d of %d bytes (%.1f%%) to the blobs holding the secret", lost, len(comments[0].Body)+lost, 100*float64(lost)/float64(len(comments[0].Body)+lost))
	}
	assertNoBlobLeak(t, channels, blobE2ESecret)
	for _, c := range shown {
		for _, p := range public {
			assert.Check(t, is.Contains(c.text, p.kind+": "+p.text), "%s shows %s", c.name, p.kind)
		}
		assert.Check(t, is.Contains(c.text, "cloud-init gz+b64: ***"), "%s", c.name)
	}
	assert.Check(t, is.Contains(res.stdout, "debug: "+public[0].text), "the log shows the public blob")
}

// Drift: a drifted value holding the blobs, and cdkd's log, reach neither
// the tracking issue nor the drift check run, the job summary, outputs,
// report JSON or the log; the public blobs are shown.
func TestBlobsHoldingASecretInADriftDoNotLeak(t *testing.T) {
	secret, public := secretBlobs(t), publicBlobs(t)
	var value []string
	for _, b := range append(append([]form(nil), secret...), public...) {
		value = append(value, b.kind+": "+b.text)
	}
	fixture := strings.Replace(readFile(t, "testdata/drift/drifted.json"), `"awsValue": "changed-out-of-band"`, `"awsValue": `+mustJSON(strings.Join(value, " | ")), 1)
	assert.Assert(t, strings.Contains(fixture, public[0].text))
	file := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, file, fixture)
	w := newDriftWorkspace(t)
	w.secret(blobE2ESecret)
	declareBlobs(w, secret)
	inv := detect(t, "", 1)
	inv.StdoutFile = file
	inv.Stderr = "TopicBFC7AF6E (AWS::SNS::Topic): DisplayName differs (" + secret[2].text + ")\n"
	w.stub(inv)
	res := w.run(withAssembly(t, withInputs(all, "issue", "true", "mask-values", blobE2ESecret)))
	assert.Equal(t, res.code, 1, res.stdout)
	assertNoBlobLeak(t, res.channels, blobE2ESecret)
	issues := w.gh.Issues()
	assert.Assert(t, is.Len(issues, 1))
	for _, c := range []struct{ name, text string }{{"the tracking issue", issues[0].Body}, {"the check run", onlyCheckRun(t, w.gh).Output.Text + onlyCheckRun(t, w.gh).Output.Summary}, {"the job summary", res.summary}} {
		for _, p := range public {
			assert.Check(t, is.Contains(c.text, p.kind+": "+p.text), "%s shows %s", c.name, p.kind)
		}
	}
}

// blobLines is cdkd's output printing every blob, and a public one.
func blobLines(secret, public []form) []cdkdtest.Line {
	var lines []cdkdtest.Line
	for _, b := range secret {
		lines = append(lines, cdkdtest.Line{Text: "Error: user data " + b.text + " rejected"})
	}
	return append(lines, cdkdtest.Line{Text: "Error: also " + public[1].text})
}

// A failing deploy and a merge-queue verify whose cdkd prints the blobs:
// neither the deploy nor the verify check run, the job summary,
// the PR comment's deploy section, the deployment statuses, outputs,
// report JSON or log shows one, and the public blob is shown.
func TestBlobsHoldingASecretInDeployAndVerifyDoNotLeak(t *testing.T) {
	secret, public := secretBlobs(t), publicBlobs(t)
	in := func(base map[string]string) map[string]string {
		base["mask-values"] += "\n" + blobE2ESecret
		return base
	}
	t.Run("deploy", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.secret(blobE2ESecret)
		declareBlobs(w, secret)
		deploy := deployInvocation(t)
		deploy.StderrLines, deploy.Exit = blobLines(secret, public), 1
		w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, "testdata/deploy/diff-safe.json"), deploy},
			resultInvocations(t, "events-StackA-run.json")...)...)
		w.review(reviewedSHA, in(diffInputs()))
		res := w.run(in(deployInputs()))
		assert.Equal(t, res.code, 3, res.stdout)
		channels := res.channels
		for _, c := range w.gh.Comments(owner, repo, deployPR) {
			channels = append(channels, channel{"the PR comment's deploy section", c.Body})
		}
		assertNoBlobLeak(t, channels, blobE2ESecret)
		check := deployCheck(t, w.gh)
		assert.Check(t, is.Contains(check.Output.Summary+check.Output.Text, public[1].text), "the deploy check run shows the public blob")
	})
	t.Run("verify", func(t *testing.T) {
		group := gateDiff(t, "testdata/deploy/diff-safe.json")
		group.StderrLines, group.Exit = blobLines(secret, public), 1
		w, _ := queueWorkspace(t, group)
		w.secret(blobE2ESecret)
		declareBlobs(w, secret)
		w.onMergeGroup()
		res := w.run(in(verifyInputs()))
		runs := checkRunsOn(w.gh, "cdkd merge queue", groupHead)
		assert.Assert(t, is.Len(runs, 1))
		assertNoBlobLeak(t, res.channels, blobE2ESecret)
		assert.Check(t, is.Contains(res.stdout, "Error: also "+public[1].text), "the log shows the public blob")
	})
}
