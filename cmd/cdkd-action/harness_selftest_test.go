package main

// Tests of the harness itself: the leak check must be able to fail.

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// Every encoding a reader could decode is found, wherever the secret sits
// in a blob; a secret of under 4 characters inside a long opaque run is
// chance.
func TestFindLeaksSeesEveryEncoding(t *testing.T) {
	const secret = `s3cret "Value"/+9<&>`
	b64 := func(enc *base64.Encoding, prefix string) string {
		return enc.EncodeToString([]byte(prefix + secret + "-tail"))
	}
	quoted, err := json.Marshal(secret)
	assert.NilError(t, err)
	tests := []struct{ name, text string }{
		{"raw", "x " + secret + " y"},
		{"base64 at offset 0", b64(base64.StdEncoding, "")},
		{"base64 at offset 1", b64(base64.StdEncoding, "a")},
		{"base64 at offset 2", b64(base64.StdEncoding, "ab")},
		{"base64url", b64(base64.URLEncoding, "abc")},
		{"hex", "0x" + hex.EncodeToString([]byte(secret))},
		{"URL query", "?q=" + url.QueryEscape(secret)},
		{"URL path", "/p/" + url.PathEscape(secret)},
		{"JSON", `{"v":` + string(quoted) + `}`},
		{"JSON in JSON", mustJSON(map[string]string{"body": string(quoted)})},
		{"HTML", "<td>" + strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", `"`, "&#34;").Replace(secret) + "</td>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leaks := findLeaks([]channel{{"a channel", tc.text}}, declared(secret))
			assert.Assert(t, len(leaks) > 0, "not found in %q", tc.text)
			assert.Equal(t, leaks[0].channel, "a channel")
		})
	}
	assert.Assert(t, is.Len(findLeaks([]channel{{"a channel", "nothing to see"}}, declared(secret)), 0))
	tiny := leakSecret{name: "tiny", value: "x7Q"}
	assert.Assert(t, is.Len(findLeaks([]channel{{"a blob", strings.Repeat("A", 30) + "x7Q" + strings.Repeat("B", 30)}}, tiny), 0))
	assert.Assert(t, is.Len(findLeaks([]channel{{"a sentence", "the pin is x7Q."}}, tiny), 1))
}

// A step's channels hold everything it wrote: with values the action
// shows openly declared secret, the check finds them on every channel,
// and not on what an earlier step posted.
func TestEveryChannelOfAStepIsSearched(t *testing.T) {
	w := newWorkspace(t)
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"), diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	step := func() result {
		s := w.newStep(all, nil)
		var log syncBuffer
		code := s.app(w.dir, &log, &log, nil).Run(context.Background())
		return w.collect(s, log.String(), int(code))
	}
	res := step()
	assert.Equal(t, res.code, 0, res.stdout)
	shown := []leakSecret{
		declared("QueueName"),                                // a changed property
		declared("Failed to resolve create-only"),            // cdkd's stderr
		declared(filepath.Join(".cdkd-action", "diff.json")), // where the report JSON goes
	}
	var hit []string
	for _, l := range findLeaks(res.channels, shown...) {
		name := l.channel
		if strings.HasPrefix(name, "the file ") {
			name = "a file"
		} else if strings.HasPrefix(name, "a GitHub API request") {
			name = "a GitHub API request"
		}
		if !slices.Contains(hit, name) {
			hit = append(hit, name)
		}
	}
	for _, want := range []string{
		"the log as the runner shows it", "the raw log outside ::add-mask:: lines", "the job summary",
		"output report-json", "a file", "the comment on #7", "the check run summary", "a GitHub API request",
	} {
		assert.Assert(t, slices.Contains(hit, want), "%s was not searched; found leaks in %v", want, hit)
	}
	// The same diff again: the comment and check run are edited to what
	// they were, and the step is answerable for what it sent only.
	again := step()
	for _, c := range again.channels {
		assert.Assert(t, !strings.HasPrefix(c.name, "the comment on"), "the earlier step's comment is searched again")
	}
}

// The secrets every step is checked for without a test naming them.
func TestKnownSecretsOfAStep(t *testing.T) {
	w := &workspace{secrets: []leakSecret{declared("declared-secret-1")}, chance: []string{"1111"}}
	got := w.knownSecrets(map[string]string{
		"INPUT_GITHUB-TOKEN":    "ghs_token_value",
		"INPUT_FINGERPRINT-KEY": "fp-key-value",
		"INPUT_MASK-VALUES":     "mask-one\r\nab\n1111\nmask-two",
		"INPUT_MASK-ENV":        "MY_SECRET",
		"MY_SECRET":             "env-secret-value",
	})
	var values []string
	for _, s := range got {
		values = append(values, s.value)
	}
	assert.DeepEqual(t, values, []string{"declared-secret-1", "ghs_token_value", "fp-key-value", "mask-one", "mask-two", "env-secret-value"})
}
