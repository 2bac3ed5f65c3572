package github

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/marker"
)

// fakeIssues is an in-memory repository's issues that records every write.
type fakeIssues struct {
	issues   []Issue // newest first, as GitHub lists them
	comments map[int][]string
	writes   []string
	listErr  error
	fail     map[string]error
	listed   ListIssuesOptions
	// beforeList runs once, before the next listing: a racing run.
	beforeList func(*fakeIssues)
}

func (f *fakeIssues) ListIssues(_ context.Context, _, _ string, opts ListIssuesOptions) ([]Issue, error) {
	if f.listed.State == "" {
		f.listed = opts // the first listing, which finds the issue
	}
	if f.beforeList != nil {
		hook := f.beforeList
		f.beforeList = nil
		hook(f)
	}
	return slices.Clone(f.issues), f.listErr
}

func (f *fakeIssues) CreateIssue(_ context.Context, _, _ string, title, body string, labels []string) (Issue, error) {
	f.writes = append(f.writes, "create")
	if err := f.fail["create"]; err != nil {
		return Issue{}, err
	}
	n := 100 + len(f.issues)
	is := Issue{Number: n, Title: title, Body: body, State: "open", HTMLURL: fmt.Sprintf("i%d", n), AuthorLogin: bot, Labels: labels}
	f.issues = append([]Issue{is}, f.issues...)
	return is, nil
}

func (f *fakeIssues) EditIssue(_ context.Context, _, _ string, number int, e IssueEdit) (Issue, error) {
	w := fmt.Sprintf("edit %d", number)
	if e.State != nil {
		w += " " + *e.State
	}
	if e.Labels != nil {
		w += " labels=" + strings.Join(*e.Labels, ",")
	}
	f.writes = append(f.writes, w)
	if err := f.fail["edit"]; err != nil {
		return Issue{}, err
	}
	for i, is := range f.issues {
		if is.Number == number {
			f.issues[i].Title, f.issues[i].Body = *e.Title, *e.Body
			if e.State != nil {
				f.issues[i].State = *e.State
			}
			return f.issues[i], nil
		}
	}
	return Issue{}, errors.New("no such issue")
}

func (f *fakeIssues) CreateIssueComment(_ context.Context, _, _ string, number int, body string) (Comment, error) {
	f.writes = append(f.writes, fmt.Sprintf("comment %d", number))
	if f.comments == nil {
		f.comments = map[int][]string{}
	}
	f.comments[number] = append(f.comments[number], body)
	return Comment{}, f.fail["comment"]
}

func TestSyncIssue(t *testing.T) {
	tgt := IssueTarget{Owner: "o", Repo: "r", Kind: "drift", Label: "prod", Author: bot, Labels: []string{"drift"}, What: "drift tracking issue"}
	content := func(state IssueState, text string) IssueContent {
		return IssueContent{State: state, Title: "cdkd drift: " + text, Header: marker.Header{V: 1, Kind: "drift", Label: "prod"},
			Content: text + "\n", Footer: "\nLast updated by [run](https://run/" + text + ")\n", Closing: "no drift; closing"}
	}
	// existing is an issue of ours as a previous run left it.
	existing := func(number int, state, text string, labels ...string) Issue {
		c := content(IssueOpen, text)
		body := Stamp(c.Header, c.Content).String() + "\n" + c.Content + "\nLast updated by an earlier run\n"
		return Issue{Number: number, State: state, Body: body, HTMLURL: fmt.Sprintf("i%d", number), AuthorLogin: bot, Labels: labels}
	}
	spoof := Issue{Number: 9, State: "open", Body: marker.Header{Kind: "drift", Label: "prod"}.String() + "\nfake", HTMLURL: "i9", AuthorLogin: "mallory"}
	otherLabel := existing(8, "open", "other")
	otherLabel.Body = strings.Replace(otherLabel.Body, `"label":"prod"`, `"label":"staging"`, 1)

	tests := []struct {
		name     string
		issues   []Issue
		want     IssueContent
		fail     map[string]error
		action   string
		url      string
		writes   []string
		comments int
		err      string
	}{
		{name: "opened on drift", want: content(IssueOpen, "drifted"), action: ActionCreated, url: "i100", writes: []string{"create"}},
		{name: "nothing to track: no issue opened", want: content(IssueKeep, "incomplete"), action: ActionNone},
		{name: "clean and no issue: nothing", want: content(IssueClose, "clean"), action: ActionNone},
		{name: "edited while drift lasts", issues: []Issue{existing(5, "open", "drifted", "drift")}, want: content(IssueOpen, "drifted again"),
			action: ActionUpdated, url: "i5", writes: []string{"edit 5"}},
		{name: "same content from another run: nothing written", issues: []Issue{existing(5, "open", "drifted", "drift")}, want: content(IssueOpen, "drifted"),
			action: ActionUnchanged, url: "i5"},
		{name: "missing labels are added", issues: []Issue{existing(5, "open", "drifted", "by-hand")}, want: content(IssueOpen, "drifted"),
			action: ActionUpdated, url: "i5", writes: []string{"edit 5 labels=by-hand,drift"}},
		{name: "reopened when drift is back", issues: []Issue{existing(5, "closed", "clean", "drift")}, want: content(IssueOpen, "drifted"),
			action: ActionReopened, url: "i5", writes: []string{"edit 5 open"}},
		{name: "closed and still clean: nothing", issues: []Issue{existing(5, "closed", "clean", "drift")}, want: content(IssueClose, "clean 2"),
			action: ActionUnchanged, url: "i5"},
		{name: "closed and incomplete: not reopened", issues: []Issue{existing(5, "closed", "clean", "drift")}, want: content(IssueKeep, "incomplete"),
			action: ActionUnchanged, url: "i5"},
		{name: "closed with a comment when clean", issues: []Issue{existing(5, "open", "drifted", "drift")}, want: content(IssueClose, "clean"),
			action: ActionClosed, url: "i5", writes: []string{"edit 5 closed", "comment 5"}, comments: 1},
		{name: "kept open when the check could not complete", issues: []Issue{existing(5, "open", "drifted", "drift")}, want: content(IssueKeep, "incomplete"),
			action: ActionUpdated, url: "i5", writes: []string{"edit 5"}},
		{name: "a spoof and another label are never ours", issues: []Issue{spoof, otherLabel}, want: content(IssueOpen, "drifted"),
			action: ActionCreated, url: "i102", writes: []string{"create"}},
		{name: "open fails", want: content(IssueOpen, "drifted"), fail: map[string]error{"create": apiError(500)},
			action: ActionNone, writes: []string{"create"}, err: "open the drift tracking issue: wrapped: "},
		{name: "edit fails", issues: []Issue{existing(5, "open", "drifted")}, want: content(IssueOpen, "more"), fail: map[string]error{"edit": apiError(500)},
			action: ActionUnchanged, url: "i5", writes: []string{"edit 5 labels=drift"}, err: "update the drift tracking issue #5: wrapped: "},
		{name: "closing comment fails", issues: []Issue{existing(5, "open", "drifted", "drift")}, want: content(IssueClose, "clean"), fail: map[string]error{"comment": apiError(500)},
			action: ActionClosed, url: "i5", writes: []string{"edit 5 closed", "comment 5"}, comments: 1, err: "comment on the drift tracking issue #5: wrapped: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeIssues{issues: slices.Clone(tc.issues), fail: tc.fail}
			var seen *Issue
			res, err := SyncIssue(context.Background(), f, tgt, func(found *Issue) IssueContent {
				seen = found
				return tc.want
			})
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
			} else {
				assert.NilError(t, err)
			}
			assert.Equal(t, res.Action, tc.action)
			assert.Equal(t, res.URL, tc.url)
			assert.DeepEqual(t, f.writes, tc.writes)
			assert.Equal(t, len(f.comments[5]), tc.comments)
			assert.DeepEqual(t, f.listed, ListIssuesOptions{State: "all", Creator: bot})
			if tc.comments > 0 {
				assert.Equal(t, f.comments[5][0], "no drift; closing")
			}
			for _, is := range tc.issues {
				if is.AuthorLogin == bot && is.Number == 5 {
					assert.Assert(t, seen != nil && seen.Number == 5, "the content sees the issue it replaces")
				}
			}
			// What was written holds the stamped header and the footer.
			if tc.err == "" && len(tc.writes) > 0 {
				i := slices.IndexFunc(f.issues, func(x Issue) bool { return x.HTMLURL == res.URL })
				h, ok := marker.Parse(f.issues[i].Body)
				assert.Assert(t, ok)
				assert.Assert(t, h.Extra[contentField] != "")
				assert.Assert(t, strings.HasSuffix(f.issues[i].Body, tc.want.Footer))
			}
		})
	}
}

// Two runs (or a create GitHub applied after its answer was given up on)
// open one issue each: the run lists again after opening, keeps the
// lowest-numbered one holding its report, and closes the other. A later
// run finds the one kept.
func TestSyncIssueConvergesAfterEveryCreate(t *testing.T) {
	tgt := IssueTarget{Owner: "o", Repo: "r", Kind: "drift", Label: "prod", Author: bot}
	want := IssueContent{State: IssueOpen, Title: "cdkd drift: drifted", Header: marker.Header{V: 1, Kind: "drift", Label: "prod"}, Content: "drifted\n"}
	other := Issue{Number: 50, State: "open", Title: "cdkd drift: other run", Body: marker.Header{V: 1, Kind: "drift", Label: "prod"}.String() + "\nother run",
		HTMLURL: "i50", AuthorLogin: bot}
	f := &fakeIssues{}
	f.beforeList = func(f *fakeIssues) { f.beforeList = func(f *fakeIssues) { f.issues = append(f.issues, other) } }
	res, err := SyncIssue(context.Background(), f, tgt, func(*Issue) IssueContent { return want })
	assert.NilError(t, err)
	assert.Equal(t, res.Action, ActionCreated)
	assert.Equal(t, res.URL, "i50", "the lowest number survives")
	assert.DeepEqual(t, f.writes, []string{"create", "edit 50", "edit 100 closed"})
	assert.Assert(t, strings.Contains(f.issues[1].Body, "drifted"), "the survivor holds this run's report")

	var seen *Issue
	_, err = SyncIssue(context.Background(), f, tgt, func(found *Issue) IssueContent { seen = found; return want })
	assert.NilError(t, err)
	assert.Equal(t, seen.Number, 50, "the next run finds the open issue kept, not the newer closed one")
}

func TestSyncIssueSpoofsAreReturned(t *testing.T) {
	spoof := Issue{Number: 9, State: "open", Body: marker.Header{Kind: "drift"}.String() + "\nfake", HTMLURL: "i9", AuthorLogin: "mallory"}
	f := &fakeIssues{issues: []Issue{spoof}}
	res, err := SyncIssue(context.Background(), f, IssueTarget{Owner: "o", Repo: "r", Kind: "drift", Author: bot},
		func(*Issue) IssueContent { return IssueContent{State: IssueKeep} })
	assert.NilError(t, err)
	assert.DeepEqual(t, Spoofs(res.Ignored, bot), []string{SpoofWarning("issue", "i9", "mallory", bot)})
	assert.Equal(t, len(f.writes), 0)
}

func TestSyncIssueNeedsItsTarget(t *testing.T) {
	f := &fakeIssues{listErr: errors.New("boom")}
	_, err := SyncIssue(context.Background(), f, IssueTarget{Owner: "o", Repo: "r", Kind: "drift"}, nil)
	assert.ErrorContains(t, err, "incomplete")
	_, err = SyncIssue(context.Background(), f, IssueTarget{Owner: "o", Repo: "r", Kind: "drift", Author: bot, What: "drift tracking issue"}, nil)
	assert.Error(t, err, "find the drift tracking issue: boom")
	assert.Assert(t, is.Len(f.writes, 0))
}
