// Package review finds the review of a commit being deployed: the pull
// request it came from, the diff comment on it that counts as the review
// (the one the trusted app's diff check run vouches for, written by the
// action's own identity), and whether that comment was altered since the
// diff wrote it. It reads GitHub through a small interface and hands the
// gate a typed gate.Review; it decides nothing about the deploy.
package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Identity answers the login the action's own comments are written by.
type Identity interface {
	Login(ctx context.Context) (string, error)
}

// Where says what is deployed and where its review lives.
type Where struct {
	// SHA is the commit being deployed (GITHUB_SHA).
	SHA string
	// EventPR is the event's own pull request, 0 when none.
	EventPR int
	// Branch is the branch pushed ("" for a tag), Ref GITHUB_REF and
	// EventName the event, for finding the pull request and for messages.
	Branch, Ref, EventName string
	// Label tells several diffs on one pull request apart.
	Label string
	// DiffCheck and DeployCheck are the names of the diff's and the
	// deploy's check runs for Label.
	DiffCheck, DeployCheck string
	// TrustedApp is the app whose check runs vouch for a review.
	TrustedApp string
	// DestructiveLabel is the label that allows destructive changes,
	// counted as an approval is (approvals.go).
	DestructiveLabel string
	// KeyIDField is the header field naming the review's fingerprint-key.
	KeyIDField string
	// Local is a local run, which reads no pull request.
	Local bool
	// Before is the branch's head before the push ("" when the event is no
	// push): the pull requests merged between it and SHA are the push's.
	Before string
	// Approval is what the approval rules read (approvals.go).
	Approval Approval
	// Group, in a merge queue's check, is the group being checked: its
	// pull requests are open ones, not merged ones (group.go).
	Group *Group
}

// Finder finds the review of the commit being deployed: the pull request
// it came from, and on it the diff comment written by our own identity. It
// implements gate.Reviews and keeps what it found for the report.
type Finder struct {
	// API is nil without a token.
	API      API
	Identity Identity
	Where    Where
	// Warn logs a warning (a spoofed comment, another app's check run).
	Warn func(string)
	// Redactor redacts both sides alike before the visible report is
	// compared with its re-rendering.
	Redactor prcomment.Redactor
	// Stored fetches the change set a review too large for its comment
	// kept in the state bucket (the diff's check run records that it did)
	// and checks it against digest; why says why it cannot be used. Nil:
	// no such change set can be read.
	Stored func(ctx context.Context, digest string) (cs *gate.ChangeSet, why string)

	// PR, Comment and Header are what was found, for the report.
	PR      *ghctx.PullRequest
	Comment *Comment
	Header  marker.Header
	// GroupPRs are the pull requests of the merge group being checked.
	GroupPRs []int
	// Found is the review the lookup last returned.
	Found gate.Review
	// Err is the error the lookup failed with (the review could not be
	// read, which is not "no review").
	Err error
	// ambiguous lists the pull requests the commit belongs to, when
	// several do.
	ambiguous []int
	// perms are the repository permissions read so far, by lower-case
	// login (approvals.go).
	perms map[string]gate.Permission
}

var _ gate.Reviews = (*Finder)(nil)

// Bot is the login trusted diff comments are written by; "" (and Err set)
// when it cannot be read.
func (s *Finder) Bot(ctx context.Context) string {
	login, err := s.Identity.Login(ctx)
	if err != nil {
		// No author: the review lookup fails with this error recorded,
		// and the deploy stops with api-failed instead of trusting a guess.
		s.Err = err
		return ""
	}
	return login
}

func (s *Finder) Review(ctx context.Context) (gate.Review, error) {
	rv, err := s.review(ctx)
	s.Err, s.Found = err, rv
	return rv, err
}

func (s *Finder) review(ctx context.Context) (gate.Review, error) {
	w := s.Where
	rv := gate.Review{}
	if w.SHA != "" { // a local run may know no commit: "this commit"
		rv.Commit = "commit " + reporters.ShortSHA(w.SHA)
	}
	switch {
	case w.Local:
		rv.Note = "a local run reads no pull request"
		return rv, nil
	case s.API == nil:
		rv.Note = "no GitHub token to read pull requests with"
		return rv, nil
	}
	if w.Group != nil {
		return s.groupReview(ctx, rv)
	}
	number, note, err := s.findPR(ctx)
	if err != nil {
		return rv, err
	}
	if len(s.ambiguous) > 1 {
		rv.Ambiguous = s.ambiguous
		return rv, nil
	}
	if number == 0 {
		rv.Note = note
		return rv, nil
	}
	rv, f, err := s.pullRequest(ctx, number, rv.Commit)
	s.PR, s.Comment, s.Header = f.pr, f.comment, f.header
	if err != nil {
		return rv, err
	}
	others, err := s.batch(ctx, number)
	if err != nil {
		return rv, err
	}
	for _, n := range others {
		b, _, err := s.pullRequest(ctx, n, rv.Commit)
		if err != nil {
			return rv, err
		}
		rv.Batch = append(rv.Batch, b)
	}
	return rv, nil
}

// found is what the lookup found of one pull request, for the report.
type found struct {
	pr      *ghctx.PullRequest
	comment *Comment
	header  marker.Header
}

// pullRequest is the review of pull request number: its head, the diff
// comment its record vouches for, whether that was altered, and who
// approved it (approvals given after that review was shown).
func (s *Finder) pullRequest(ctx context.Context, number int, commit string) (gate.Review, found, error) {
	rv, f, sh, err := s.reviewOf(ctx, number, commit)
	if err != nil || f.pr == nil {
		return rv, f, err
	}
	rv.Approvals, err = s.approvals(ctx, *f.pr, sh)
	return rv, f, err
}

// Shown is when a review was first shown (see gate.ApprovalInput.Shown):
// At, by the diff check run By; zero, with Unknown saying why, when that
// is not known.
type Shown struct {
	At          time.Time
	By, Unknown string
}

// ShownAt is when the review of digest at head was first shown: the
// earliest completion of a diff check run of recs (on head) that records
// the digest. A run that completed had posted its review; taking the
// earliest completion of those that did never counts an approval given
// before any of them did.
func ShownAt(recs []gate.Record, head, digest string) Shown {
	var out Shown
	incomplete := false
	for _, r := range recs {
		switch {
		case r.Digest != digest:
		case r.CompletedAt.IsZero():
			incomplete = true
		case out.At.IsZero() || !r.CompletedAt.After(out.At):
			out.At, out.By = r.CompletedAt, r.URL
		}
	}
	switch {
	case !out.At.IsZero():
	case incomplete:
		out.Unknown = fmt.Sprintf("no diff check run on %s that records its digest %s has completed", reporters.ShortSHA(head), model.ShortDigest(digest))
	default:
		out.Unknown = fmt.Sprintf("no diff check run of the trusted app on %s records its digest %s", reporters.ShortSHA(head), model.ShortDigest(digest))
	}
	return out
}

// reviewOf is pullRequest before the approvals are read, and when the
// review it found was shown.
func (s *Finder) reviewOf(ctx context.Context, number int, commit string) (gate.Review, found, Shown, error) {
	w := s.Where
	rv := gate.Review{Commit: commit}
	var f found
	sh := Shown{Unknown: "no diff comment of the action's identity is on the pull request"}
	pr, err := s.API.GetPullRequest(ctx, number)
	if err != nil {
		return rv, f, sh, fmt.Errorf("read pull request #%d: %w", number, err)
	}
	f.pr = &pr
	rv.PR, rv.HeadSHA = pr.Number, pr.HeadSHA
	if !pr.MergedAt.IsZero() {
		rv.MergedAt = pr.MergedAt.UTC().Format(time.RFC3339)
	}

	author := s.Bot(ctx)
	if author == "" && s.Err != nil {
		return rv, f, sh, s.Err // the identity could not be read: say why
	}
	ours, err := s.API.DiffComments(ctx, pr.Number, w.Label, author)
	if err != nil {
		return rv, f, sh, err
	}
	if len(ours) == 0 {
		return rv, f, sh, nil
	}
	// The diff's check run on the final head names the comment it vouches
	// for: that one is the review, whatever else carries our header (every
	// workflow using GITHUB_TOKEN posts as github-actions[bot]).
	onHead, err := s.records(ctx, pr.HeadSHA)
	if err != nil {
		return rv, f, sh, err // not "no record": the review cannot be verified now
	}
	c := &ours[len(ours)-1] // without a record naming one: the newest, for the refusal's message
	if rec := vouching(onHead, ours); rec != nil && rec.CommentID != 0 {
		c = nil
		for i := range ours {
			if ours[i].ID == rec.CommentID {
				c = &ours[i]
			}
		}
		if c == nil {
			rv.Comment, rv.ReviewedSHA, rv.Digest, rv.Record = true, pr.HeadSHA, rec.Digest, rec
			sh.Unknown = "the comment its diff check run vouches for is gone"
			rv.Tampered = fmt.Sprintf("the diff check run %s vouches for comment %d, which is no longer on the pull request as a comment by %s (deleted, or another pull request's)", rec.URL, rec.CommentID, author)
			return rv, f, sh, nil
		}
		for _, o := range ours {
			if o.ID != c.ID {
				s.Warn(fmt.Sprintf("ignored comment %s: it carries cdkd-action's diff header, but the diff check run %s vouches for %s; it is not trusted as a review",
					o.HTMLURL, rec.URL, c.HTMLURL))
			}
		}
	}
	h, _ := marker.Parse(c.Body)
	f.comment, f.header = c, h
	rv.Comment, rv.ReviewedSHA, rv.Digest = true, h.SHA, h.Digest
	rv.KeyID, rv.CdkdVersion = h.Extra[w.KeyIDField], h.Cdkd
	if h.Digest == "" {
		sh.Unknown = "its diff failed, so it shows no change set"
		return rv, f, sh, nil // a failed diff: no review to verify
	}
	if h.SHA != "" {
		// Without the check runs the review cannot be verified (Decide
		// refuses it when the gate is on), but the rest of the review —
		// the pull request and its labels — still counts.
		recs := onHead
		rec := vouching(onHead, ours)
		if h.SHA != pr.HeadSHA {
			// A stale review: its records, if any, are on the older head.
			if recs, err = s.records(ctx, h.SHA); err != nil {
				return rv, f, sh, err
			}
			rec = nil
			if len(recs) > 0 {
				rec = &recs[0]
			}
		}
		rv.Record = rec
		sh = ShownAt(recs, h.SHA, h.Digest)
	}
	rv.Layout = max(h.Render, 1)
	if why, edited := layout(h, rv.Record); why != "" {
		if edited {
			rv.Tampered = why
		} else {
			rv.Unreadable = why
		}
		return rv, f, sh, nil
	}
	if rec := rv.Record; rec != nil && rec.Kept == gate.KeptNowhere && rec.Digest == h.Digest {
		rv.Unreadable = notKept
		return rv, f, sh, nil
	}
	if rec := rv.Record; rec != nil && rec.Kept == "" && rec.Digest == h.Digest {
		// A record older than v3 does not say where the change set is
		// kept: a comment without its line is not proven edited.
		if _, err := prcomment.DecodeChangeSet(c.Body, h.Digest); errors.Is(err, prcomment.ErrNoChangeSet) {
			rv.Unreadable = notSaid
			return rv, f, sh, nil
		}
	}
	var stored *gate.ChangeSet
	if rec := rv.Record; rec != nil && rec.Stored && rec.Digest == h.Digest {
		if s.Stored == nil {
			rv.Unreadable = "it did not fit in the comment and is kept in the state bucket, which this run cannot read"
		} else {
			stored, rv.Unreadable = s.Stored(ctx, h.Digest)
		}
	}
	rv.ChangeSet, rv.Tampered, err = s.verify(ctx, c, h, rv.Record, stored)
	if err == nil && rv.Tampered == "" && (rv.ChangeSet == nil || rv.ChangeSet.Diff == nil) {
		rv.Rerender = s.rerender(c, h)
	}
	return rv, f, sh, err
}

// notKept is why a review whose diff could not keep its change set (too
// large for the comment, and not stored in the state bucket) cannot be
// verified: no edit, and what to do about it.
const notKept = "the diff did not keep it: it was too large for the diff comment and could not be stored in the state bucket " +
	"(the note in the diff comment says why: no state-bucket input, the diff job's role lacking s3:PutObject and s3:GetObject on the reviews folder, or a failed write); " +
	"give the diff job that access and re-run the pull request's diff"

// notSaid is why a review whose comment carries no change-set line, and
// whose record (older than v3) does not say where the change set is kept,
// cannot be verified.
const notSaid = "its comment carries no hidden change-set line, and its diff check run (written by an older cdkd-action) does not say whether the diff kept the change set: " +
	"either the diff could not keep a change set too large for the comment (its notes would say why) or the line was removed since; re-run the pull request's diff"

// layout checks the layout (renderer version) the review's visible report
// was written in: the header's must be the one the diff's check run
// records (a v2 record: layout 1), and this release must render it. why
// says what is wrong ("" when nothing is); edited says the comment
// contradicts its record, which only an edit does.
func layout(h marker.Header, rec *gate.Record) (why string, edited bool) {
	v := max(h.Render, 1)
	if rec != nil && rec.Renderer != 0 && rec.Renderer != v {
		return fmt.Sprintf("the review comment was edited: its header names report layout v%d, the diff check run %s records v%d", v, rec.URL, rec.Renderer), true
	}
	if _, err := prcomment.RendererOf(v); err != nil {
		return fmt.Sprintf("its visible report is in a layout this release cannot render again to check it (%v); "+
			"this is no edit: re-run the pull request's diff, so that this release writes the review", err), false
	}
	return "", false
}

// verify reads the reviewed change set from comment c (header h) and checks
// that what reviewers read is what it records: the change-set line must be
// there and match the digest, the visible report must hash to what the
// diff's check run recorded and, when the change set is stored whole,
// render again from it to the byte; a deploy section must be one a deploy
// of this commit wrote. stored, when set, is the change set the diff kept
// in the state bucket, too large for the comment, checked against the
// digest. It returns the change set and, when the comment was edited, how
// ("" when it was not).
func (s *Finder) verify(ctx context.Context, c *Comment, h marker.Header, rec *gate.Record, stored *gate.ChangeSet) (*gate.ChangeSet, string, error) {
	const edited = "the review comment was edited: "
	cs, err := prcomment.DecodeChangeSet(c.Body, h.Digest)
	if stored != nil && (errors.Is(err, prcomment.ErrNoChangeSet) || err == nil && cs.Diff == nil) {
		cs, err = stored, nil // too large for the comment: the bucket's, checked
	}
	switch {
	case errors.Is(err, prcomment.ErrNoChangeSet):
		return nil, edited + "the hidden change-set line under its header is missing", nil
	case err != nil:
		return nil, edited + err.Error(), nil
	}
	pc, _ := prcomment.Parse(c.Body)
	if rec != nil && rec.ReportHash != "" && prcomment.ReportHash(pc.Report) != rec.ReportHash {
		return cs, edited + "its visible report is not the one the diff posted (the diff check run records another)", nil
	}
	if cs.Diff != nil {
		if err := pc.VerifyReport(cs, reporters.CommentBudget, s.Redactor); err != nil {
			return cs, err.Error(), nil
		}
	}
	if pc.Deploy != "" {
		why, err := s.deploySection(ctx, c, pc.Deploy)
		if err != nil || why != "" {
			return cs, edited + why, err
		}
	}
	return cs, "", nil
}

// rerender renders the visible report of comment c (header h) again from
// a change set its digest covers, as the diff rendered it, and says how the
// comment's differs ("" when it does not).
func (s *Finder) rerender(c *Comment, h marker.Header) func(model.Diff) string {
	pc, _ := prcomment.Parse(c.Body)
	return func(d model.Diff) string {
		if err := pc.VerifyView(d, reporters.CommentBudget, s.Redactor); err != nil {
			return err.Error() + " (rendered again from the change set its digest covers)"
		}
		return ""
	}
}

// vouching is the record of recs (newest first) that speaks for this pull
// request: the newest that names one of its comments ours, or names none
// (a failed diff). A record naming a comment that is not on it speaks for
// another pull request with the same head and label, or for a comment since
// deleted: it is passed over, and only when nothing else is left does the
// newest of them stand (a refusal names it).
func vouching(recs []gate.Record, ours []Comment) *gate.Record {
	for i, rec := range recs {
		if rec.CommentID == 0 || slices.ContainsFunc(ours, func(c Comment) bool { return c.ID == rec.CommentID }) {
			return &recs[i]
		}
	}
	if len(recs) > 0 {
		return &recs[0]
	}
	return nil
}
