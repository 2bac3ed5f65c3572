package main

// One leak check for every e2e step: channels collects everything a step
// wrote (GitHub, the job summary, outputs, the log as the runner shows it,
// files), and assertNoLeak searches all of it for each secret in every
// encoding a reader could decode. workspace.finish applies it to every
// step, for the secrets the workspace knows of.

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// leakSecret is one secret a step must not let out. name, shape and where
// are what a failure message says; the value is test data.
type leakSecret struct {
	name  string
	shape string
	where string
	value string
}

// declared is a value a test or the workspace knows is secret.
func declared(v string) leakSecret {
	return leakSecret{name: fmt.Sprintf("%q", v), shape: "value", where: "declared by the test", value: v}
}

// knownSecrets are the secrets every step of the workspace is checked for:
// what the test declared, what the step's environment names (envSecrets)
// and what the AWS emulator holds, less the values the test says occur by
// chance.
func (w *workspace) knownSecrets(env map[string]string) []leakSecret {
	out := append(slices.Clone(w.secrets), envSecrets(env)...)
	if w.aws != nil {
		for _, v := range w.aws.secretValues() {
			out = appendSecret(out, "the AWS emulator", v)
		}
	}
	seen := map[string]bool{}
	for _, v := range w.chance {
		seen[v] = true
	}
	return slices.DeleteFunc(out, func(s leakSecret) bool {
		dup := seen[s.value]
		seen[s.value] = true
		return dup
	})
}

// envSecrets are the secrets a step's environment names: the GitHub token,
// the runner's runtime token, the fingerprint key, each mask-values line
// and each mask-env variable's value.
func envSecrets(env map[string]string) []leakSecret {
	var out []leakSecret
	out = appendSecret(out, "github-token", env["INPUT_GITHUB-TOKEN"])
	out = appendSecret(out, "GITHUB_TOKEN", env["GITHUB_TOKEN"])
	out = appendSecret(out, "ACTIONS_RUNTIME_TOKEN", env["ACTIONS_RUNTIME_TOKEN"])
	out = appendSecret(out, "fingerprint-key", env["INPUT_FINGERPRINT-KEY"])
	for _, line := range strings.Split(env["INPUT_MASK-VALUES"], "\n") {
		out = appendSecret(out, "mask-values", strings.TrimRight(line, "\r"))
	}
	for _, name := range strings.Fields(env["INPUT_MASK-ENV"]) {
		out = appendSecret(out, "mask-env "+name, env[name])
	}
	return out
}

// appendSecret adds v, from where, to secrets. A value under 4 characters
// is hidden by position only (docs/secrets.md) and turns up by chance
// anywhere: only a test that places one declares it.
func appendSecret(secrets []leakSecret, where, v string) []leakSecret {
	if utf8.RuneCountInString(strings.TrimSpace(v)) < 4 {
		return secrets
	}
	return append(secrets, leakSecret{name: fmt.Sprintf("%q", v), shape: "value", where: where, value: v})
}

// channel is one place the action writes to.
type channel struct{ name, text string }

// channels collects everything a step left behind: the log as the
// runner shows it (::add-mask:: applied) and raw outside the ::add-mask::
// lines, the job summary, the outputs, every file written in the workspace
// during the step (RUNNER_TEMP and the report JSON included), and on GitHub
// every comment, check run (with annotations), issue, deployment and
// deployment status the step created or changed, and every API request it
// made. What an earlier step posted is that step's to answer for: a value
// may be secret for one step and not for another.
func (w *workspace) channels(res result, s *step) []channel {
	w.t.Helper()
	out := []channel{
		{"the log as the runner shows it", runnermask.Simulate(res.stdout)},
		{"the raw log outside ::add-mask:: lines", strings.Join(rawLines(res.stdout), "\n")},
		{"the job summary", res.summary},
	}
	for _, name := range slices.Sorted(maps.Keys(res.rawOutputs)) {
		out = append(out, channel{"output " + name, name + "=" + res.rawOutputs[name]})
	}
	files := written(w.t, w.dir, s.before)
	if p := res.outputs["report-json"]; p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(w.dir, p)
		}
		if !slices.Contains(files, p) {
			if _, err := os.Stat(p); err == nil {
				files = append(files, p)
			}
		}
	}
	for _, path := range files {
		name := "the file " + path
		if strings.HasSuffix(path, ".json") {
			name += " (report JSON)"
		}
		out = append(out, channel{name, readFile(w.t, path)})
	}
	for _, c := range w.github() {
		if !s.github[c] {
			out = append(out, c)
		}
	}
	for _, r := range w.gh.Requests()[s.requests:] {
		out = append(out, channel{"a GitHub API request (" + r.Method + " " + r.Operation + ")", r.Path + "?" + r.Query.Encode() + "\n" + r.Body})
	}
	return out
}

// github is what the fake GitHub holds, as channels.
func (w *workspace) github() []channel {
	var out []channel
	numbers := map[int]bool{}
	for _, pr := range w.gh.PullRequests() {
		numbers[pr.Number] = true
	}
	for _, is := range w.gh.Issues() {
		numbers[is.Number] = true
		out = append(out, channel{fmt.Sprintf("issue #%d", is.Number), is.Title + "\n" + is.Body})
	}
	for _, n := range slices.Sorted(maps.Keys(numbers)) {
		for _, c := range w.gh.Comments(owner, repo, n) {
			out = append(out, channel{fmt.Sprintf("the comment on #%d", n), c.Body})
		}
	}
	for _, cr := range w.gh.CheckRuns() {
		out = append(out,
			channel{"the check run name", cr.Name},
			channel{"the check run title", cr.Output.Title},
			channel{"the check run summary", cr.Output.Summary},
			channel{"the check run text", cr.Output.Text})
		for _, a := range cr.Annotations {
			out = append(out, channel{"a check run annotation", a.Title + "\n" + a.Message + "\n" + a.RawDetails})
		}
	}
	for _, d := range w.gh.Deployments() {
		out = append(out, channel{"a deployment", d.Description + "\n" + string(d.Payload)})
		for _, s := range d.Statuses {
			out = append(out, channel{"a deployment status", s.Description + "\n" + s.EnvironmentURL + "\n" + s.LogURL})
		}
	}
	return out
}

// fileStamp tells a file the step wrote from one that was there before.
type fileStamp struct {
	size int64
	mod  time.Time
}

// snapshot stamps every file under dir.
func snapshot(t *testing.T, dir string) map[string]fileStamp {
	t.Helper()
	out := map[string]fileStamp{}
	walkFiles(t, dir, func(path string, fi fs.FileInfo) { out[path] = fileStamp{fi.Size(), fi.ModTime()} })
	return out
}

// written lists the files under dir that are new or changed since before.
// cdk.out is cdkd's (the assembly a stand-in synthesizes holds NoEcho
// defaults by design), not a channel of the action's.
func written(t *testing.T, dir string, before map[string]fileStamp) []string {
	t.Helper()
	var out []string
	walkFiles(t, dir, func(path string, fi fs.FileInfo) {
		if was, ok := before[path]; !ok || was != (fileStamp{fi.Size(), fi.ModTime()}) {
			out = append(out, path)
		}
	})
	return out
}

func walkFiles(t *testing.T, dir string, f func(string, fs.FileInfo)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "cdk.out" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		f(path, fi)
		return nil
	})
	if err != nil {
		t.Fatalf("list the files under %s: %v", dir, err)
	}
}

// logLine is one line of the raw log and whether the runner reads it as
// ::add-mask:: (outside a stop-commands block).
type logLine struct {
	text    string
	addMask bool
}

func parseLog(stdout string) []logLine {
	var out []logLine
	stop := ""
	for _, l := range runnermask.SplitLines(stdout) {
		trimmed := strings.TrimLeft(l, " \t")
		switch {
		case stop != "":
			if trimmed == "::"+stop+"::" {
				stop = ""
			}
		case strings.HasPrefix(trimmed, "::stop-commands::"):
			stop = strings.TrimPrefix(trimmed, "::stop-commands::")
		case strings.HasPrefix(trimmed, "::add-mask::"):
			out = append(out, logLine{text: strings.TrimPrefix(trimmed, "::add-mask::"), addMask: true})
			continue
		}
		out = append(out, logLine{text: l})
	}
	return out
}

func rawLines(stdout string) []string {
	var out []string
	for _, l := range parseLog(stdout) {
		if !l.addMask {
			out = append(out, l.text)
		}
	}
	return out
}

// assertNoLeak fails for every form of every secret found in any channel,
// naming the channel, the secret and where it came from.
func assertNoLeak(t *testing.T, channels []channel, secrets ...leakSecret) {
	t.Helper()
	leaks := findLeaks(channels, secrets...)
	for _, l := range leaks {
		t.Errorf("LEAK in %s: secret %s (%s; %s) as its %s: …%s⟦here⟧%s…", l.channel, l.secret.name, l.secret.shape, l.secret.where, l.form, l.before, l.after)
	}
	if len(leaks) > 0 {
		t.Logf("%d leaks", len(leaks))
	}
}

// leak is one form of a secret found in a channel, with its surroundings.
type leak struct {
	channel       string
	secret        leakSecret
	form          string
	before, after string
}

func findLeaks(channels []channel, secrets ...leakSecret) []leak {
	var out []leak
	for _, s := range secrets {
		forms := leakForms(s.value)
		tiny := utf8.RuneCountInString(strings.TrimSpace(s.value)) < 4
		for _, c := range channels {
			for _, f := range forms {
				if i := leakIndex(c.text, f.text, tiny); i >= 0 {
					out = append(out, leak{c.name, s, f.kind, tail(c.text[:i], 40), head(c.text[i+len(f.text):], 40)})
				}
			}
		}
	}
	return out
}

// assertHidden is assertNoLeak for values the test names inline.
func assertHidden(t *testing.T, channels []channel, values ...string) {
	t.Helper()
	secrets := make([]leakSecret, len(values))
	for i, v := range values {
		secrets[i] = declared(v)
	}
	assertNoLeak(t, channels, secrets...)
}

// form is one way a secret can be written down.
type form struct{ kind, text string }

// leakForms is every form a reader could decode a secret from: the value,
// its trimmed form and meaningful lines, each raw, base64 at each of the
// three alignments (only the digits that come from the secret alone, so
// they match wherever it sits in a blob), hex, JSON-escaped, URL-escaped
// and XML-escaped. Written independently of internal/secrets on purpose.
func leakForms(v string) []form {
	if utf8.RuneCountInString(strings.TrimSpace(v)) < 4 {
		return []form{{"raw value", v}}
	}
	bases := []form{{"value", v}}
	if t := strings.TrimSpace(v); t != v {
		bases = append(bases, form{"trimmed value", t})
	}
	if strings.Contains(v, "\n") {
		for i, line := range strings.Split(v, "\n") {
			line = strings.TrimSpace(line)
			if utf8.RuneCountInString(line) >= 4 && strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
				bases = append(bases, form{fmt.Sprintf("line %d", i+1), line})
			}
		}
	}
	var out []form
	add := func(kind, text string) {
		if len(text) < 4 {
			return
		}
		for _, f := range out {
			if f.text == text {
				return
			}
		}
		out = append(out, form{kind, text})
	}
	for _, b := range bases {
		add(b.kind+" raw", b.text)
		for _, enc := range []struct {
			name string
			e    *base64.Encoding
		}{{"base64", base64.StdEncoding}, {"base64url", base64.URLEncoding}} {
			for off := 0; off < 3; off++ {
				e := enc.e.EncodeToString(append(make([]byte, off), b.text...))
				from, to := (8*off+5)/6, 8*(off+len(b.text))/6
				if to-from >= 6 {
					add(fmt.Sprintf("%s %s at offset %d", b.kind, enc.name, off), e[from:to])
				}
			}
		}
		add(b.kind+" hex", fmt.Sprintf("%x", b.text))
		add(b.kind+" HEX", fmt.Sprintf("%X", b.text))
		add(b.kind+" JSON-escaped", jsonEscape(b.text, false))
		add(b.kind+" JSON-escaped with HTML escaping", jsonEscape(b.text, true))
		add(b.kind+" URL-escaped (query)", url.QueryEscape(b.text))
		add(b.kind+" URL-escaped (path)", url.PathEscape(b.text))
		add(b.kind+" XML-escaped", html.EscapeString(b.text))
		var xb strings.Builder
		_ = xml.EscapeText(&xb, []byte(b.text))
		add(b.kind+" XML-escaped (encoding/xml)", xb.String())
	}
	// Any of those inside a JSON string, as a report shows a value.
	// (Go's encoders, the report file's and go-github's, also escape <>&.)
	for _, f := range slices.Clone(out) {
		add(f.kind+", then JSON-escaped", jsonEscape(f.text, false))
		add(f.kind+", then JSON-escaped with HTML escaping", jsonEscape(f.text, true))
	}
	return out
}

// jsonEscape is s as it appears inside a JSON string.
func jsonEscape(s string, escapeHTML bool) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	e := strings.TrimSpace(sb.String())
	return e[1 : len(e)-1]
}

// leakIndex is where text shows secret, or -1. A secret of under 4
// characters is hidden by position only (see docs/secrets.md), and three
// characters turn up by chance in any long opaque blob (the gzip+base64
// change-set line, a fingerprint): for such a secret an occurrence inside a
// run of 40 or more base64 characters is chance, not a leak.
func leakIndex(text, secret string, tiny bool) int {
	for off := 0; ; {
		i := strings.Index(text[off:], secret)
		if i < 0 {
			return -1
		}
		i += off
		if !tiny || !insideBase64Run(text, i, i+len(secret)) {
			return i
		}
		off = i + 1
	}
}

func insideBase64Run(text string, from, to int) bool {
	isB64 := func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
	}
	for from > 0 && isB64(text[from-1]) {
		from--
	}
	for to < len(text) && isB64(text[to]) {
		to++
	}
	return to-from >= 40
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for !utf8.ValidString(s) && s != "" {
		s = s[1:]
	}
	return s
}

func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) && s != "" {
		s = s[:len(s)-1]
	}
	return s
}
