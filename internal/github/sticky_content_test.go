package github

import (
	"context"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/marker"
)

func TestUnchanged(t *testing.T) {
	h := marker.Header{V: 1, Kind: "diff", Label: "prod", SHA: "abc", Run: "https://run/1"}
	stamped := func(h marker.Header, content, run string) string {
		h.Run = run
		return Stamp(h, content).String() + "\n" + content + "\n[run](" + run + ")"
	}
	tests := []struct {
		name     string
		old, new string
		want     bool
	}{
		{"equal bytes", "x", "x", true},
		{"same content, another run link", stamped(h, "report", "https://run/1"), stamped(h, "report", "https://run/2"), true},
		{"other content", stamped(h, "report", "https://run/1"), stamped(h, "report 2", "https://run/1"), false},
		{"other header field", stamped(h, "report", "r"), stamped(marker.Header{V: 1, Kind: "diff", Label: "prod", SHA: "def"}, "report", "r"), false},
		// Without a hash on both sides, a header says nothing of the body.
		{"no hash: the bytes decide", h.String() + "\nold", h.String() + "\nnew", false},
		{"hash on one side only", h.String() + "\nreport", stamped(h, "report", "https://run/1"), false},
		{"no header", "plain", "plain too", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, Unchanged(tc.old, tc.new), tc.want)
		})
	}
}

// A review comment is kept only when it shows what the run would write,
// but for the run link: an edited body is written again, though its
// header (and so its content hash) is untouched.
func TestSameBody(t *testing.T) {
	h := marker.Header{V: 1, Kind: "diff", Label: "prod", SHA: "abc"}
	stamped := func(content, body, run string) string {
		h := h
		h.Run = run
		return Stamp(h, content).String() + "\n" + body + "\n[run](" + run + ")"
	}
	tests := []struct {
		name     string
		old, new string
		want     bool
	}{
		{"equal bytes", "x", "x", true},
		{"another run link only", stamped("report", "report", "https://run/1"), stamped("report", "report", "https://run/2"), true},
		{"the body edited under the same header", stamped("report", "edited report", "https://run/1"), stamped("report", "report", "https://run/1"), false},
		{"the body edited, and another run", stamped("report", "edited report", "https://run/1"), stamped("report", "report", "https://run/2"), false},
		{"other content", stamped("report", "report", "https://run/1"), stamped("report 2", "report 2", "https://run/1"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, SameBody(tc.old, tc.new), tc.want)
		})
	}
}

func TestStampKeepsTheCallersHeader(t *testing.T) {
	h := marker.Header{Kind: "drift", Extra: map[string]string{"status": "drifted"}}
	s := Stamp(h, "content")
	assert.Equal(t, len(h.Extra), 1, "the caller's map is not written to")
	assert.Equal(t, s.Extra["status"], "drifted")
	assert.Equal(t, len(s.Extra[contentField]), 16)
	assert.Assert(t, Stamp(h, "other").Extra[contentField] != s.Extra[contentField])
}

func TestSpoofsHaveOneWording(t *testing.T) {
	got := Spoofs([]Comment{{HTMLURL: "u1", AuthorLogin: "mallory"}}, bot)
	assert.DeepEqual(t, got, []string{"ignored comment u1 by mallory: it carries cdkd-action's header but was not written by github-actions[bot] (possible spoof)"})
	got = Spoofs([]Issue{{HTMLURL: "i1", AuthorLogin: "eve"}}, "me")
	assert.DeepEqual(t, got, []string{"ignored issue i1 by eve: it carries cdkd-action's header but was not written by me (possible spoof)"})
}

// A diff comment whose report is the same as the one posted is not edited
// although the run link in its header differs: Upsert's default rule.
func TestUpsertSkipsSameContentFromAnotherRun(t *testing.T) {
	h := marker.Header{V: 1, Kind: "diff", Label: "prod", SHA: "abc"}
	body := func(run string) string {
		h := h
		h.Run = run
		return Stamp(h, "report").String() + "\nreport"
	}
	f := &fakeComments{nextID: 100, comments: []Comment{{ID: 50, Body: body("https://run/1"), AuthorLogin: bot, HTMLURL: "u50"}}}
	res, err := Upsert(context.Background(), f, target, body("https://run/2"), ModeUpdate)
	assert.NilError(t, err)
	assert.Equal(t, res.Action, ActionUnchanged)
	assert.Equal(t, len(f.writes), 0)
}
