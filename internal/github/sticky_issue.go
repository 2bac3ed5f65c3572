package github

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/marker"
)

// IssuesAPI is the part of the GitHub API a tracking issue needs; *Client
// implements it.
type IssuesAPI interface {
	ListIssues(ctx context.Context, owner, repo string, opts ListIssuesOptions) ([]Issue, error)
	CreateIssue(ctx context.Context, owner, repo, title, body string, labels []string) (Issue, error)
	EditIssue(ctx context.Context, owner, repo string, number int, e IssueEdit) (Issue, error)
	CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error)
}

// IssueTarget names the one tracking issue of a kind and label. Like a
// sticky comment, only an issue opened by Author counts as ours.
type IssueTarget struct {
	Owner  string
	Repo   string
	Kind   string
	Label  string
	Author string
	// Labels are set on a new issue; an existing one gets those it lacks
	// (labels someone added by hand stay).
	Labels []string
	// What names the issue in errors ("drift tracking issue").
	What string
}

// IssueState is what the caller decided the issue should be now.
type IssueState string

const (
	// IssueOpen opens the issue, or reopens it, and keeps it current.
	IssueOpen IssueState = "open"
	// IssueKeep edits an open issue, and never opens or reopens one: a
	// check that could not complete, or compared nothing.
	IssueKeep IssueState = "keep"
	// IssueClose closes an open issue with the Closing comment.
	IssueClose IssueState = "close"
)

// IssueContent is what the tracking issue is to hold, decided once the
// existing issue (if any) is known: a body may carry over part of it.
type IssueContent struct {
	State IssueState
	Title string
	// Header is the issue's hidden header; SyncIssue stamps it with the
	// hash of Content.
	Header marker.Header
	// Content is the body under the header (redacted by the caller): what
	// decides whether the issue needs a write.
	Content string
	// Footer follows Content, outside the hash (a link to this run).
	Footer string
	// Closing is the comment posted when the issue is closed.
	Closing string
}

// Issue actions, beside ActionCreated, ActionUpdated and ActionUnchanged.
const (
	ActionReopened = "reopened"
	ActionClosed   = "closed"
	// ActionNone: there is no issue and none was to be opened.
	ActionNone = "none"
)

// IssueResult says which issue tracks the kind and label now, what was
// done, and the look-alikes by other authors (see Spoofs).
type IssueResult struct {
	URL     string
	Number  int
	Action  string
	Ignored []Issue
}

// SyncIssue keeps the one tracking issue of t current: opened on
// IssueOpen when there is none, reopened when it was closed, edited while
// it lasts, closed with a comment on IssueClose. Nothing is written when
// the content hash and the labels are unchanged, nor for a closed issue
// unless it is to be reopened. content gets our existing issue (nil when
// there is none).
func SyncIssue(ctx context.Context, api IssuesAPI, t IssueTarget, content func(found *Issue) IssueContent) (IssueResult, error) {
	what := t.What
	if what == "" {
		what = "tracking issue"
	}
	if t.Owner == "" || t.Repo == "" || t.Kind == "" || t.Author == "" {
		// Without an author, anyone's issue with our header would count.
		return IssueResult{}, fmt.Errorf("find the %s: the target %s/%s (kind %q, author %q) is incomplete", what, t.Owner, t.Repo, t.Kind, t.Author)
	}
	issues, err := api.ListIssues(ctx, t.Owner, t.Repo, ListIssuesOptions{State: "all", Creator: t.Author})
	if err != nil {
		return IssueResult{}, fmt.Errorf("find the %s: %w", what, err)
	}
	ours, others := Split(issues, t.Kind, t.Label, t.Author, func(is Issue) (string, string) { return is.Body, is.AuthorLogin })
	res := IssueResult{Ignored: others, Action: ActionNone}
	found := current(ours)
	c := content(found)
	body := Stamp(c.Header, c.Content).String() + "\n" + c.Content + c.Footer

	if found == nil {
		if c.State != IssueOpen {
			return res, nil // nothing to track
		}
		is, err := api.CreateIssue(ctx, t.Owner, t.Repo, c.Title, body, t.Labels)
		if err != nil {
			return res, fmt.Errorf("open the %s: %w", what, err)
		}
		res.URL, res.Number, res.Action = is.HTMLURL, is.Number, ActionCreated
		if err := convergeIssues(ctx, api, t, c.Title, body, &res); err != nil {
			return res, fmt.Errorf("open the %s: %w", what, err)
		}
		return res, nil
	}

	res.URL, res.Number, res.Action = found.HTMLURL, found.Number, ActionUnchanged
	open := found.State == "open"
	labels := missingLabels(found.Labels, t.Labels)
	switch {
	case !open && c.State != IssueOpen:
		return res, nil // closed, and nothing to reopen it for
	case open && Unchanged(found.Body, body) && labels == nil:
		return res, nil // nothing changed since the last run
	}
	edit := IssueEdit{Title: &c.Title, Body: &body, Labels: labels}
	action := ActionUpdated
	switch {
	case !open:
		action, edit.State = ActionReopened, ptr("open")
	case c.State == IssueClose:
		action, edit.State = ActionClosed, ptr("closed")
	}
	if _, err := api.EditIssue(ctx, t.Owner, t.Repo, found.Number, edit); err != nil {
		return res, fmt.Errorf("update the %s #%d: %w", what, found.Number, err)
	}
	res.Action = action
	if action == ActionClosed {
		if _, err := api.CreateIssueComment(ctx, t.Owner, t.Repo, found.Number, c.Closing); err != nil {
			return res, fmt.Errorf("comment on the %s #%d: %w", what, found.Number, err)
		}
	}
	return res, nil
}

// current picks our tracking issue among ours (listed newest first): the
// lowest-numbered open one, the one racing runs converge on (see
// convergeIssues), else the newest closed one.
func current(ours []Issue) *Issue {
	var found *Issue
	for i := range ours {
		if ours[i].State == "open" && (found == nil || ours[i].Number < found.Number) {
			found = &ours[i]
		}
	}
	if found == nil && len(ours) > 0 {
		found = &ours[0]
	}
	return found
}

// convergeIssues lists our open issues again after opening one: a racing
// run, or a create GitHub applied after its answer was given up on, may
// have opened another. The lowest-numbered one is kept (every run agrees
// on it) and made to hold title and body; the others are closed. res is
// updated to name the one kept.
func convergeIssues(ctx context.Context, api IssuesAPI, t IssueTarget, title, body string, res *IssueResult) error {
	open, err := api.ListIssues(ctx, t.Owner, t.Repo, ListIssuesOptions{State: "open", Creator: t.Author})
	if err != nil {
		return fmt.Errorf("re-read the issues after opening #%d: %w", res.Number, err)
	}
	ours, _ := Split(open, t.Kind, t.Label, t.Author, func(is Issue) (string, string) { return is.Body, is.AuthorLogin })
	ours = slices.DeleteFunc(ours, func(is Issue) bool { return is.State != "open" })
	if len(ours) <= 1 {
		return nil
	}
	slices.SortFunc(ours, func(a, b Issue) int { return a.Number - b.Number })
	keep := ours[0]
	var errs []error
	if keep.Number != res.Number && !Unchanged(keep.Body, body) {
		if _, err := api.EditIssue(ctx, t.Owner, t.Repo, keep.Number, IssueEdit{Title: &title, Body: &body}); err != nil {
			errs = append(errs, fmt.Errorf("write the report into #%d: %w", keep.Number, err))
		}
	}
	res.URL, res.Number = keep.HTMLURL, keep.Number
	for _, dup := range ours[1:] {
		e := IssueEdit{Title: &dup.Title, Body: &dup.Body, State: ptr("closed")}
		if _, err := api.EditIssue(ctx, t.Owner, t.Repo, dup.Number, e); err != nil {
			errs = append(errs, fmt.Errorf("close duplicate #%d: %w", dup.Number, err))
		}
	}
	return errors.Join(errs...)
}

// missingLabels returns the issue's labels plus those of want it lacks, or
// nil when none is missing.
func missingLabels(have, want []string) *[]string {
	out := slices.Clone(have)
	for _, l := range want {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if len(out) == len(have) {
		return nil
	}
	return &out
}

func ptr(s string) *string { return &s }
