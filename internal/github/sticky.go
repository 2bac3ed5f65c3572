package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/marker"
)

// MaxCommentChars is GitHub's limit on a comment body. Reporters render
// within it; Upsert refuses a longer body rather than let GitHub answer 422.
const MaxCommentChars = 65536

// CommentsAPI is the part of the GitHub API a sticky comment needs;
// *Client implements it.
type CommentsAPI interface {
	ListIssueComments(ctx context.Context, owner, repo string, number int) ([]Comment, error)
	CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error)
	EditIssueComment(ctx context.Context, owner, repo string, id int64, body string) (Comment, error)
	DeleteIssueComment(ctx context.Context, owner, repo string, id int64) error
}

// StickyTarget names one sticky comment: the issue or pull request it lives
// on, its kind and label (from the header), and the login that writes it.
// Only comments by Author count as ours: anyone can paste our header.
type StickyTarget struct {
	Owner  string
	Repo   string
	Number int
	Kind   string
	Label  string
	Author string
}

// Mode is how Upsert replaces an existing comment.
type Mode string

const (
	// ModeUpdate edits the comment in place, keeping its position.
	ModeUpdate Mode = "update"
	// ModeRecreate posts a new comment and deletes the old one, moving the
	// report to the bottom of the conversation.
	ModeRecreate Mode = "recreate"
)

// Upsert actions.
const (
	ActionCreated   = "created"
	ActionUpdated   = "updated"
	ActionUnchanged = "unchanged"
	ActionRecreated = "recreated"
)

// StickyResult says which comment now holds the report and what was done.
// Ignored lists comments carrying our header for this kind and label but
// written by someone else: possible spoofs, never edited or trusted.
type StickyResult struct {
	URL     string
	ID      int64
	Action  string
	Ignored []Comment
	// Body is what the comment holds now: body, or the equivalent one
	// already there when nothing was written.
	Body string
}

// Upsert makes body (which must start with the header for t's kind and
// label) the one comment of ours for t. It reads all pages of comments.
//
// In ModeUpdate it edits our oldest comment in place, or skips the write when
// nothing changed (see SameBody), or creates one when there is none. In
// ModeRecreate it creates the new comment first and then deletes the old, so
// a failure never leaves the pull request without its reviewed report.
// Either way, duplicates of ours (left by racing runs) are deleted, and the
// comments are listed again after writing so that racing runs converge on
// one comment, the oldest, holding the newest report (see converge).
// If deleting a duplicate fails, the result still describes the comment
// written, and the error says what is left.
func Upsert(ctx context.Context, api CommentsAPI, t StickyTarget, body string, mode Mode) (StickyResult, error) {
	if err := checkTarget(t); err != nil {
		return StickyResult{}, err
	}
	what := fmt.Sprintf("upsert %s comment %q on %s/%s#%d", t.Kind, t.Label, t.Owner, t.Repo, t.Number)
	if h, ok := marker.Parse(body); !ok || h.Kind != t.Kind || h.Label != t.Label {
		return StickyResult{}, fmt.Errorf("%s: body does not start with its cdkd-action header", what)
	}
	if n := utf8.RuneCountInString(body); n > MaxCommentChars {
		return StickyResult{}, fmt.Errorf("%s: body has %d characters, more than GitHub's %d", what, n, MaxCommentChars)
	}
	if mode == "" {
		mode = ModeUpdate
	}
	if mode != ModeUpdate && mode != ModeRecreate {
		return StickyResult{}, fmt.Errorf("%s: unknown mode %q", what, mode)
	}

	ours, ignored, err := match(ctx, api, t)
	if err != nil {
		return StickyResult{}, fmt.Errorf("%s: %w", what, err)
	}
	res := StickyResult{Ignored: ignored}

	var stale []Comment // ours, to delete once the report is in place
	create := true
	switch {
	case len(ours) == 0:
		res.Action = ActionCreated
	case mode == ModeRecreate:
		res.Action, stale = ActionRecreated, ours
	default:
		// The oldest (lowest ID) is kept: every run picks the same one, so
		// racing runs converge instead of each keeping its own.
		keep := ours[0]
		stale = ours[1:]
		if SameBody(keep.Body, body) {
			res.Action, res.ID, res.URL, res.Body = ActionUnchanged, keep.ID, keep.HTMLURL, keep.Body
			create = false
			break
		}
		c, err := api.EditIssueComment(ctx, t.Owner, t.Repo, keep.ID, body)
		switch {
		case err == nil:
			res.Action, res.ID, res.URL, res.Body = ActionUpdated, c.ID, c.HTMLURL, c.Body
			create = false
		case IsNotFound(err):
			// Deleted since we listed it (a racing recreate): post anew.
			res.Action = ActionCreated
		default:
			return res, fmt.Errorf("%s: %w", what, err)
		}
	}
	var late time.Time
	if create {
		c, err := api.CreateIssueComment(ctx, t.Owner, t.Repo, t.Number, body)
		if err != nil {
			return res, fmt.Errorf("%s: %w", what, err)
		}
		res.ID, res.URL, res.Body, late = c.ID, c.HTMLURL, c.Body, c.MayDuplicateUntil
	}

	var errs []error
	for _, c := range stale {
		if err := api.DeleteIssueComment(ctx, t.Owner, t.Repo, c.ID); err != nil && !IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return res, fmt.Errorf("%s: remove older comments: %w", what, err)
	}
	if err := converge(ctx, api, t, body, &res); err != nil {
		return res, fmt.Errorf("%s: %w", what, err)
	}
	if !late.IsZero() {
		// An attempt of the create lost its answer and was sent again:
		// GitHub may apply it after the listing above, leaving a second
		// comment. Look again once its window has passed (bounded by
		// it and by ctx), and converge on what is there then.
		if err := Sleep(ctx, time.Until(late)); err != nil {
			return res, fmt.Errorf("%s: wait for a late create before converging: %w", what, err)
		}
		if err := converge(ctx, api, t, body, &res); err != nil {
			return res, fmt.Errorf("%s: %w", what, err)
		}
	}
	return res, nil
}

// converge lists the comments again after writing: a run racing this one
// may have written its own in between. The one with the lowest ID is kept
// (both runs agree on it) and made to hold body, and every other one of
// ours is deleted, so exactly one remains. res is updated to name it.
func converge(ctx context.Context, api CommentsAPI, t StickyTarget, body string, res *StickyResult) error {
	ours, _, err := match(ctx, api, t)
	if err != nil {
		return fmt.Errorf("re-read the comments after writing: %w", err)
	}
	if len(ours) == 0 || (len(ours) == 1 && ours[0].ID == res.ID) {
		return nil
	}
	var errs []error
	kept := -1
	for i, c := range ours {
		if SameBody(c.Body, body) {
			kept = i
			break
		}
		edited, err := api.EditIssueComment(ctx, t.Owner, t.Repo, c.ID, body)
		if err == nil {
			ours[i], kept = edited, i
			break
		}
		if !IsNotFound(err) { // gone since the listing: the next one
			errs = append(errs, fmt.Errorf("write the report into comment %d: %w", c.ID, err))
			break
		}
	}
	if kept < 0 {
		return errors.Join(errs...)
	}
	res.ID, res.URL, res.Body = ours[kept].ID, ours[kept].HTMLURL, ours[kept].Body
	for i, c := range ours {
		if i == kept {
			continue
		}
		if err := api.DeleteIssueComment(ctx, t.Owner, t.Repo, c.ID); err != nil && !IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove duplicate comment %d: %w", c.ID, err))
		}
	}
	return errors.Join(errs...)
}

// Ours lists every comment of ours for t's kind and label, oldest first,
// and the look-alikes by other authors.
func Ours(ctx context.Context, api CommentsAPI, t StickyTarget) (ours, others []Comment, err error) {
	if err := checkTarget(t); err != nil {
		return nil, nil, err
	}
	ours, others, err = match(ctx, api, t)
	if err != nil {
		return nil, nil, fmt.Errorf("find %s comment %q on %s/%s#%d: %w", t.Kind, t.Label, t.Owner, t.Repo, t.Number, err)
	}
	return ours, others, nil
}

// Find returns our newest comment for t's kind and label and its header (nil
// when there is none), plus the look-alikes by other authors. Deploy uses it
// to read which SHA and digest were reviewed.
func Find(ctx context.Context, api CommentsAPI, t StickyTarget) (*Comment, marker.Header, []Comment, error) {
	if err := checkTarget(t); err != nil {
		return nil, marker.Header{}, nil, err
	}
	ours, ignored, err := match(ctx, api, t)
	if err != nil {
		return nil, marker.Header{}, nil, fmt.Errorf("find %s comment %q on %s/%s#%d: %w", t.Kind, t.Label, t.Owner, t.Repo, t.Number, err)
	}
	if len(ours) == 0 {
		return nil, marker.Header{}, ignored, nil
	}
	c := ours[len(ours)-1]
	h, _ := marker.Parse(c.Body)
	return &c, h, ignored, nil
}

func checkTarget(t StickyTarget) error {
	switch {
	case t.Owner == "" || t.Repo == "" || t.Number <= 0:
		return fmt.Errorf("sticky comment target %s/%s#%d is incomplete", t.Owner, t.Repo, t.Number)
	case t.Kind == "":
		return errors.New("sticky comment target has no kind")
	case t.Author == "":
		// Without an author, anyone's comment with our header would count.
		return errors.New("sticky comment target has no author")
	}
	return nil
}

// match splits the comments carrying the header for t's kind and label into
// ours (by t.Author, oldest first) and others'.
func match(ctx context.Context, api CommentsAPI, t StickyTarget) (ours, others []Comment, err error) {
	all, err := api.ListIssueComments(ctx, t.Owner, t.Repo, t.Number)
	if err != nil {
		return nil, nil, err
	}
	ours, others = Split(all, t.Kind, t.Label, t.Author, func(c Comment) (string, string) { return c.Body, c.AuthorLogin })
	// Comment IDs grow with time; the listing's order is not relied upon.
	slices.SortStableFunc(ours, func(a, b Comment) int { return cmp.Compare(a.ID, b.ID) })
	return ours, others, nil
}

// Split sorts the items (comments, tracking issues) that carry our header
// for kind and label into ours, written by author, and look-alikes by
// anyone else, in their order. It is the one rule by which a sticky object
// of ours is recognised: anyone can paste our header, only our identity's
// count. of gives an item's body and author login.
func Split[T any](items []T, kind, label, author string, of func(T) (body, login string)) (ours, others []T) {
	for _, it := range items {
		body, login := of(it)
		h, ok := marker.Parse(body)
		if !ok || h.Kind != kind || h.Label != label {
			continue
		}
		// Logins are case-insensitive on GitHub.
		if strings.EqualFold(login, author) {
			ours = append(ours, it)
		} else {
			others = append(others, it)
		}
	}
	return ours, others
}
