package github

import (
	"context"
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
	var found *Issue
	if len(ours) > 0 {
		found = &ours[0] // GitHub lists the newest first: that one is ours
	}
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
