package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"
	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/marker"
)

const bot = "github-actions[bot]"

// fakeComments is an in-memory pull request conversation that records every
// write, so tests prove both what was written and that nothing else was.
type fakeComments struct {
	comments []Comment
	nextID   int64
	writes   []string
	fail     map[string]error // by write, e.g. "edit 3"
	// beforeCreate, when set, runs once before the next create: a racing
	// run doing its work in between.
	beforeCreate func()
}

func (f *fakeComments) ListIssueComments(_ context.Context, owner, repo string, number int) ([]Comment, error) {
	if owner != "o" || repo != "r" || number != 7 {
		return nil, fmt.Errorf("wrong target %s/%s#%d", owner, repo, number)
	}
	return slices.Clone(f.comments), nil
}

func (f *fakeComments) CreateIssueComment(_ context.Context, _, _ string, _ int, body string) (Comment, error) {
	if race := f.beforeCreate; race != nil {
		f.beforeCreate = nil
		race()
	}
	f.nextID++
	w := fmt.Sprintf("create %d", f.nextID)
	f.writes = append(f.writes, w)
	if err := f.fail[w]; err != nil {
		return Comment{}, err
	}
	c := Comment{ID: f.nextID, Body: body, AuthorLogin: bot, HTMLURL: fmt.Sprintf("u%d", f.nextID)}
	f.comments = append(f.comments, c)
	return c, nil
}

func (f *fakeComments) EditIssueComment(_ context.Context, _, _ string, id int64, body string) (Comment, error) {
	w := fmt.Sprintf("edit %d", id)
	f.writes = append(f.writes, w)
	if err := f.fail[w]; err != nil {
		return Comment{}, err
	}
	for i, c := range f.comments {
		if c.ID == id {
			f.comments[i].Body = body
			return f.comments[i], nil
		}
	}
	return Comment{}, fmt.Errorf("no comment %d", id)
}

func (f *fakeComments) DeleteIssueComment(_ context.Context, _, _ string, id int64) error {
	w := fmt.Sprintf("delete %d", id)
	f.writes = append(f.writes, w)
	if err := f.fail[w]; err != nil {
		return err
	}
	f.comments = slices.DeleteFunc(f.comments, func(c Comment) bool { return c.ID == id })
	return nil
}

func (f *fakeComments) ids() []int64 {
	var out []int64
	for _, c := range f.comments {
		out = append(out, c.ID)
	}
	return out
}

// apiError is what the client returns for an HTTP status.
func apiError(code int) error {
	return fmt.Errorf("wrapped: %w", &gh.ErrorResponse{Response: &http.Response{StatusCode: code}, Message: http.StatusText(code)})
}

func reportBody(kind, label, text string) string {
	return marker.Header{Kind: kind, Label: label, SHA: "abc"}.String() + "\n\n" + text
}

var target = StickyTarget{Owner: "o", Repo: "r", Number: 7, Kind: "diff", Label: "prod", Author: bot}

func TestUpsert(t *testing.T) {
	newBody := reportBody("diff", "prod", "new report")
	old := func(id int64) Comment {
		return Comment{ID: id, Body: reportBody("diff", "prod", "old report"), AuthorLogin: bot, HTMLURL: fmt.Sprintf("u%d", id)}
	}
	// Noise present on every conversation: none of it may be touched.
	noise := []Comment{
		{ID: 1, Body: "LGTM", AuthorLogin: "alice"},
		{ID: 2, Body: reportBody("diff", "staging", "other label"), AuthorLogin: bot},
		{ID: 3, Body: reportBody("deploy", "prod", "other kind"), AuthorLogin: bot},
		{ID: 4, Body: "quoting:\n" + reportBody("diff", "prod", "header not on first line"), AuthorLogin: bot},
	}
	spoof := Comment{ID: 5, Body: reportBody("diff", "prod", "trust me"), AuthorLogin: "mallory"}

	tests := []struct {
		name     string
		existing []Comment
		mode     Mode
		fail     map[string]error
		want     StickyResult
		writes   []string
		remain   []int64
		err      string
	}{
		{
			name:     "create when absent",
			existing: noise, mode: ModeUpdate,
			want:   StickyResult{Action: ActionCreated, ID: 101, URL: "u101"},
			writes: []string{"create 101"},
			remain: []int64{1, 2, 3, 4, 101},
		},
		{
			name:     "update in place",
			existing: append(slices.Clone(noise), old(50)), mode: ModeUpdate,
			want:   StickyResult{Action: ActionUpdated, ID: 50, URL: "u50"},
			writes: []string{"edit 50"},
			remain: []int64{1, 2, 3, 4, 50},
		},
		{
			name: "unchanged body is not written",
			existing: append(slices.Clone(noise),
				Comment{ID: 50, Body: newBody, AuthorLogin: bot, HTMLURL: "u50"}),
			mode:   ModeUpdate,
			want:   StickyResult{Action: ActionUnchanged, ID: 50, URL: "u50"},
			remain: []int64{1, 2, 3, 4, 50},
		},
		{
			name:     "empty mode means update",
			existing: []Comment{old(50)},
			want:     StickyResult{Action: ActionUpdated, ID: 50, URL: "u50"},
			writes:   []string{"edit 50"},
			remain:   []int64{50},
		},
		{
			name:     "author login compared case-insensitively",
			existing: []Comment{{ID: 50, Body: reportBody("diff", "prod", "x"), AuthorLogin: "GitHub-Actions[bot]", HTMLURL: "u50"}},
			mode:     ModeUpdate,
			want:     StickyResult{Action: ActionUpdated, ID: 50, URL: "u50"},
			writes:   []string{"edit 50"},
			remain:   []int64{50},
		},
		{
			name:     "recreate: new comment first, then the old one goes",
			existing: append(slices.Clone(noise), old(50)), mode: ModeRecreate,
			want:   StickyResult{Action: ActionRecreated, ID: 101, URL: "u101"},
			writes: []string{"create 101", "delete 50"},
			remain: []int64{1, 2, 3, 4, 101},
		},
		{
			name:     "recreate when absent creates",
			existing: noise, mode: ModeRecreate,
			want:   StickyResult{Action: ActionCreated, ID: 101, URL: "u101"},
			writes: []string{"create 101"},
			remain: []int64{1, 2, 3, 4, 101},
		},
		{
			name:     "spoof by another author is ignored and reported",
			existing: append(slices.Clone(noise), spoof), mode: ModeUpdate,
			want:   StickyResult{Action: ActionCreated, ID: 101, URL: "u101", Ignored: []Comment{spoof}},
			writes: []string{"create 101"},
			remain: []int64{1, 2, 3, 4, 5, 101},
		},
		{
			name:     "spoof newer than ours is still ignored",
			existing: []Comment{old(50), spoof, {ID: 60, Body: reportBody("diff", "prod", "x"), AuthorLogin: "mallory"}},
			mode:     ModeUpdate,
			want: StickyResult{Action: ActionUpdated, ID: 50, URL: "u50", Ignored: []Comment{
				spoof, {ID: 60, Body: reportBody("diff", "prod", "x"), AuthorLogin: "mallory"},
			}},
			writes: []string{"edit 50"},
			remain: []int64{50, 5, 60},
		},
		{
			name: "duplicates from racing runs: the oldest kept, the rest deleted",
			// Listed out of order on purpose: oldest means lowest ID, the
			// one every racing run agrees on.
			existing: []Comment{old(60), old(40), noise[0], old(50)},
			mode:     ModeUpdate,
			want:     StickyResult{Action: ActionUpdated, ID: 40, URL: "u40"},
			writes:   []string{"edit 40", "delete 50", "delete 60"},
			remain:   []int64{40, 1},
		},
		{
			name: "duplicates cleaned even when unchanged",
			existing: []Comment{old(40),
				{ID: 60, Body: newBody, AuthorLogin: bot, HTMLURL: "u60"}},
			mode:   ModeUpdate,
			want:   StickyResult{Action: ActionUpdated, ID: 40, URL: "u40"},
			writes: []string{"edit 40", "delete 60"},
			remain: []int64{40},
		},
		{
			name:     "recreate deletes every duplicate",
			existing: []Comment{old(40), old(60)},
			mode:     ModeRecreate,
			want:     StickyResult{Action: ActionRecreated, ID: 101, URL: "u101"},
			writes:   []string{"create 101", "delete 40", "delete 60"},
			remain:   []int64{101},
		},
		{
			name:     "comment deleted since listing: created anew",
			existing: []Comment{old(50)},
			mode:     ModeUpdate,
			fail:     map[string]error{"edit 50": apiError(404)},
			// Listed again after writing, the stale one is still there
			// (this fake cannot edit it): ours is kept, the other deleted.
			want:   StickyResult{Action: ActionCreated, ID: 101, URL: "u101"},
			writes: []string{"edit 50", "create 101", "edit 50", "delete 50"},
			remain: []int64{101},
		},
		{
			name:     "duplicate already gone is fine",
			existing: []Comment{old(40), old(50)},
			mode:     ModeUpdate,
			fail:     map[string]error{"delete 50": apiError(404)},
			want:     StickyResult{Action: ActionUpdated, ID: 40, URL: "u40"},
			writes:   []string{"edit 40", "delete 50", "delete 50"},
			remain:   []int64{40, 50},
		},
		{
			name:     "failed duplicate delete is reported with the result",
			existing: []Comment{old(40), old(50)},
			mode:     ModeUpdate,
			fail:     map[string]error{"delete 50": apiError(500)},
			want:     StickyResult{Action: ActionUpdated, ID: 40, URL: "u40"},
			writes:   []string{"edit 40", "delete 50"},
			remain:   []int64{40, 50},
			err:      `upsert diff comment "prod" on o/r#7: remove older comments: wrapped: `,
		},
		{
			name:     "forbidden edit fails",
			existing: []Comment{old(50)},
			mode:     ModeUpdate,
			fail:     map[string]error{"edit 50": apiError(403)},
			want:     StickyResult{},
			writes:   []string{"edit 50"},
			remain:   []int64{50},
			err:      `upsert diff comment "prod" on o/r#7: wrapped: `,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeComments{comments: slices.Clone(tc.existing), nextID: 100, fail: tc.fail}
			got, err := Upsert(context.Background(), f, target, newBody, tc.mode)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
			} else {
				assert.NilError(t, err)
			}
			if tc.err == "" {
				assert.Equal(t, got.Body, newBody, "the result says what the comment holds")
			}
			got.Body = ""
			assert.DeepEqual(t, got, tc.want)
			assert.DeepEqual(t, f.writes, tc.writes)
			assert.DeepEqual(t, f.ids(), tc.remain)
		})
	}
}

// Two diff runs for one pull request and label interleave: both found no
// comment, both create one. Each lists again after writing; they agree on
// the lowest ID, so exactly one comment is left, holding a report.
func TestUpsertRacingRunsConverge(t *testing.T) {
	first, second := reportBody("diff", "prod", "report of run A"), reportBody("diff", "prod", "report of run B")
	f := &fakeComments{nextID: 100}
	f.beforeCreate = func() {
		res, err := Upsert(context.Background(), f, target, second, ModeUpdate)
		assert.NilError(t, err)
		assert.Equal(t, res.ID, int64(101))
	}
	res, err := Upsert(context.Background(), f, target, first, ModeUpdate)
	assert.NilError(t, err)
	assert.DeepEqual(t, f.ids(), []int64{101})
	assert.Equal(t, res.ID, int64(101), "the survivor is the lowest ID")
	assert.Equal(t, f.comments[0].Body, first, "the run that wrote last left its report in the survivor")
	assert.DeepEqual(t, f.writes, []string{"create 101", "create 102", "edit 101", "delete 102"})
}

func TestUpsertRefuses(t *testing.T) {
	tests := []struct {
		name   string
		target StickyTarget
		body   string
		mode   Mode
		err    string
	}{
		{"no author", withAuthor(target, ""), reportBody("diff", "prod", "x"), ModeUpdate, "sticky comment target has no author"},
		{"no kind", StickyTarget{Owner: "o", Repo: "r", Number: 7, Author: bot}, reportBody("diff", "", "x"), ModeUpdate, "has no kind"},
		{"no number", StickyTarget{Owner: "o", Repo: "r", Kind: "diff", Author: bot}, reportBody("diff", "", "x"), ModeUpdate, "o/r#0 is incomplete"},
		{"body without header", target, "## cdkd diff", ModeUpdate, "body does not start with its cdkd-action header"},
		{"header for another label", target, reportBody("diff", "staging", "x"), ModeUpdate, "body does not start with its cdkd-action header"},
		{"too long", target, reportBody("diff", "prod", strings.Repeat("ü", MaxCommentChars)), ModeUpdate, "more than GitHub's 65536"},
		{"unknown mode", target, reportBody("diff", "prod", "x"), "append", `unknown mode "append"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeComments{}
			_, err := Upsert(context.Background(), f, tc.target, tc.body, tc.mode)
			assert.ErrorContains(t, err, tc.err)
			assert.Check(t, len(f.writes) == 0)
		})
	}
}

func withAuthor(t StickyTarget, a string) StickyTarget {
	t.Author = a
	return t
}

func TestUpsertListFails(t *testing.T) {
	f := &fakeComments{}
	tgt := target
	tgt.Number = 8 // the fake refuses it
	_, err := Upsert(context.Background(), f, tgt, reportBody("diff", "prod", "x"), ModeUpdate)
	assert.ErrorContains(t, err, `upsert diff comment "prod" on o/r#8: wrong target`)
	assert.Check(t, len(f.writes) == 0)
}

func TestFind(t *testing.T) {
	spoof := Comment{ID: 9, Body: marker.Header{Kind: "diff", Label: "prod", SHA: "evil", Digest: "v1:evil"}.String(), AuthorLogin: "mallory"}
	reviewed := Comment{ID: 8, Body: marker.Header{Kind: "diff", Label: "prod", SHA: "h2", Digest: "v1:new"}.String() + "\nreport", AuthorLogin: bot}
	older := Comment{ID: 3, Body: marker.Header{Kind: "diff", Label: "prod", SHA: "h1", Digest: "v1:old"}.String(), AuthorLogin: bot}
	f := &fakeComments{comments: []Comment{reviewed, spoof, older,
		{ID: 4, Body: marker.Header{Kind: "diff", Label: "dev", SHA: "h3"}.String(), AuthorLogin: bot}}}

	c, h, ignored, err := Find(context.Background(), f, target)
	assert.NilError(t, err)
	assert.DeepEqual(t, c, &reviewed)
	assert.DeepEqual(t, h, marker.Header{V: 1, Kind: "diff", Label: "prod", SHA: "h2", Digest: "v1:new"})
	assert.DeepEqual(t, ignored, []Comment{spoof})
	assert.Check(t, len(f.writes) == 0)

	f = &fakeComments{comments: []Comment{spoof}}
	c, h, ignored, err = Find(context.Background(), f, target)
	assert.NilError(t, err)
	assert.Check(t, c == nil)
	assert.DeepEqual(t, h, marker.Header{})
	assert.DeepEqual(t, ignored, []Comment{spoof})

	_, _, _, err = Find(context.Background(), f, withAuthor(target, ""))
	assert.ErrorContains(t, err, "no author")
}

// TestUpsertOverHTTP runs the whole protocol through the client: our comment
// sits on the third page, behind a spoof and a duplicate.
func TestUpsertOverHTTP(t *testing.T) {
	const path = "repos/o/r/issues/7/comments"
	oldBody := reportBody("diff", "prod", "old")
	newBody := reportBody("diff", "prod", "new")
	c, _ := newTestClient(t, []call{
		{method: "GET", path: path, query: "per_page=100", header: nextLink(path, 2, 3),
			resp: jsonList(commentJSON(1, "alice", "hi"), commentJSON(2, bot, oldBody))},
		{method: "GET", path: path, query: "page=2&per_page=100", header: nextLink(path, 3, 3),
			resp: jsonList(commentJSON(3, "mallory", oldBody))},
		{method: "GET", path: path, query: "page=3&per_page=100",
			resp: jsonList(commentJSON(4, bot, oldBody))},
		{method: "PATCH", path: "repos/o/r/issues/comments/2", body: jsonString("body", newBody),
			resp: commentJSON(2, bot, newBody)},
		{method: "DELETE", path: "repos/o/r/issues/comments/4", status: http.StatusNoContent},
		// Listed again: one comment of ours is left.
		{method: "GET", path: path, query: "per_page=100", resp: jsonList(commentJSON(1, "alice", "hi"), commentJSON(2, bot, newBody), commentJSON(3, "mallory", oldBody))},
	})
	got, err := Upsert(context.Background(), c, target, newBody, ModeUpdate)
	assert.NilError(t, err)
	assert.Equal(t, got.Body, newBody)
	got.Body = ""
	assert.DeepEqual(t, got, StickyResult{
		Action: ActionUpdated, ID: 2, URL: "https://github.com/o/r/pull/7#issuecomment-2",
		Ignored: []Comment{comment(3, "mallory", oldBody)},
	})
}

func jsonString(key, value string) string {
	b, _ := json.Marshal(map[string]string{key: value})
	return string(b)
}
