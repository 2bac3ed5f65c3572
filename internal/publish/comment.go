package publish

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/redacted"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// CommentAPI is what the PR comment targets call.
type CommentAPI interface {
	github.CommentsAPI
	GetPullRequest(ctx context.Context, owner, repo string, number int) (ghctx.PullRequest, error)
}

// Comment is the sticky PR comment: the hidden header first, then the
// report rendered within what is left of GitHub's 65,536 characters.
type Comment struct {
	API         CommentAPI
	Owner, Repo string
	PR          int
	// HeadSHA is the commit this run reports on: a pull request that has
	// moved on keeps the comment of the run for its newer head.
	HeadSHA string
	// RunURL is left out of the content hash: a new run with the same
	// report leaves the comment alone (its link then points at the earlier
	// run that posted the same report).
	RunURL   string
	Identity *github.Identity
	Mode     github.Mode
	Output   string // the output naming the comment's URL
}

func (t *Comment) Policy(*View) Policy {
	return Policy{What: "the pull request comment",
		Denied: "cannot write the pull request comment (a fork's token has no write permission?): %v; the report is in the job summary", Errors: gitHub}
}

func (t *Comment) Publish(ctx context.Context, pub *Publisher, v *View, w *Written) error {
	if v.Comment == nil || t.PR == 0 {
		return nil
	}
	c := v.Comment.Render(reporters.CommentBudget)
	content := c.Content.String()
	if t.RunURL != "" {
		content = strings.ReplaceAll(content, t.RunURL, "")
	}
	header := github.Stamp(c.Header, content)
	body := c.Body(header)
	// A slow or re-run job for an older commit must not replace the review
	// of the pull request's current head: reviewers would see a stale diff.
	if pr, err := t.API.GetPullRequest(ctx, t.Owner, t.Repo, t.PR); err == nil && pr.HeadSHA != "" && pr.HeadSHA != t.HeadSHA {
		pub.warn(fmt.Sprintf("pull request #%d has moved on to %s since this run's commit %s: the comment is left to the run for the newer commit",
			t.PR, reporters.ShortSHA(pr.HeadSHA), reporters.ShortSHA(t.HeadSHA)))
		pub.output(t.Output, "")
		return nil
	}
	target := github.StickyTarget{Owner: t.Owner, Repo: t.Repo, Number: t.PR, Kind: header.Kind, Label: header.Label}
	res, err := upsert(ctx, pub, t.API, t.Identity, &target, body, t.Mode)
	if err != nil {
		return fmt.Errorf("write pull request comment: %w", err)
	}
	w.Comment, w.Wrote = res, body.String()
	w.Reread = func(ctx context.Context) (github.Comment, error) {
		ours, _, err := github.Ours(ctx, t.API, target)
		if err != nil || len(ours) == 0 {
			return github.Comment{}, err
		}
		return ours[0], nil
	}
	pub.output(t.Output, res.HTMLURL)
	return nil
}

// upsert makes body the one comment of ours for t, written by our
// identity (t.Author is set to it), and warns of the look-alikes by
// anyone else.
func upsert(ctx context.Context, pub *Publisher, api github.CommentsAPI, id *github.Identity, t *github.StickyTarget, body redacted.Text, mode github.Mode) (github.Comment, error) {
	author, err := id.Login(ctx)
	if err != nil {
		return github.Comment{}, err
	}
	t.Author = author
	res, err := github.Upsert(ctx, api, *t, body.String(), mode)
	for _, s := range github.Spoofs(res.Ignored, author) {
		pub.warn(s)
	}
	if err != nil {
		return github.Comment{}, err
	}
	return github.Comment{ID: res.ID, HTMLURL: res.URL, Body: res.Body}, nil
}

// DeploySectionBudget is the most of the comment the deploy outcome may
// take; the reviewed diff above it is shortened to make room if need be.
var DeploySectionBudget = reporters.Budget{MaxChars: 16000, Channel: "the PR comment"}

// DeploySection adds the deploy outcome to the pull request's diff
// comment, below the reviewed diff, keeping its hidden header (and the
// change set under it) byte for byte, so the comment is still the review a
// later run can read. Without a diff comment of ours, it writes a comment
// of kind "deploy", which no deploy ever reads as a review.
type DeploySection struct {
	API         github.CommentsAPI
	Owner, Repo string
	PR          int // 0: no pull request, nothing is written
	// Review is the diff comment the gate read (nil: none).
	Review   *github.Comment
	Label    string
	SHA      string // the deployed commit, in a deploy-kind comment's header
	Identity *github.Identity
	Mode     github.Mode
	Output   string
	// Recorded, when set, edits the review comment only after the check
	// run recorded the section about to be written (Written.Recorded);
	// otherwise the outcome gets a comment of its own. A later deploy of
	// the commit trusts a section in the review only when a record
	// vouches for it, so a section is never written before its record:
	// a write whose answer was lost, or a run that failed before its
	// check run, leaves no section the gate cannot account for.
	Recorded bool
}

// Planned is what Publish would write into the review comment: its id and
// the deploy section as the edited body holds it (redacted with red, cut
// to fit). ok is false when the section would not go into the review.
func (t *DeploySection) Planned(red prcomment.Redactor, p *Publication) (id int64, section string, ok bool) {
	if t.PR == 0 || p.Render == nil || t.Review == nil {
		return 0, "", false
	}
	body, ok := t.reviewBody(red, redacted.Redact(red, p.Render(DeploySectionBudget)))
	if !ok {
		return 0, "", false
	}
	c, _ := prcomment.Parse(body.String())
	return t.Review.ID, c.Deploy, true
}

// reviewBody is the review comment's body with section as its deploy
// section, redacted; false when the review comment carries no header.
func (t *DeploySection) reviewBody(red prcomment.Redactor, section redacted.Text) (redacted.Text, bool) {
	c, ok := prcomment.Parse(t.Review.Body)
	if !ok {
		return redacted.Text{}, false
	}
	return redacted.Redact(commentRedactor{red}, c.WithDeploy(section.String()).String()), true
}

func (t *DeploySection) Policy(*View) Policy {
	return Policy{What: "the deploy outcome in the pull request comment",
		Denied: "cannot write the pull request comment (no pull-requests: write permission?): %v", Errors: gitHub}
}

func (t *DeploySection) Publish(ctx context.Context, pub *Publisher, v *View, w *Written) error {
	if t.PR == 0 || v.Render == nil {
		return nil
	}
	section := v.Render(DeploySectionBudget)
	written, err := t.write(ctx, pub, section, !t.Recorded || w.Recorded)
	if err != nil {
		return fmt.Errorf("write the deploy outcome to pull request #%d: %w", t.PR, err)
	}
	w.Comment = written
	if written.HTMLURL != "" {
		pub.output(t.Output, written.HTMLURL)
	}
	return nil
}

func (t *DeploySection) write(ctx context.Context, pub *Publisher, section redacted.Text, intoReview bool) (github.Comment, error) {
	if t.Review != nil && intoReview {
		if body, ok := t.reviewBody(pub.Secrets, section); ok {
			// The review comment itself, edited in place whatever the
			// comment mode: the diff's check run names it by its id.
			written, err := t.API.EditIssueComment(ctx, t.Owner, t.Repo, t.Review.ID, body.String())
			if err == nil || !github.IsNotFound(err) {
				return written, err
			}
			// Deleted since the gate read it: the outcome gets a comment
			// of its own.
		}
	}
	// A comment of its own kind: a diff-kind comment without a digest
	// could shadow a review that the identity in use did write.
	h := marker.Header{V: marker.Version, Kind: prcomment.KindDeploy, Label: t.Label, SHA: t.SHA}
	body := redacted.Redact(commentRedactor{pub.Secrets}, prcomment.Comment{Header: h}.WithDeploy(section.String()).String())
	return upsert(ctx, pub, t.API, t.Identity, &github.StickyTarget{Owner: t.Owner, Repo: t.Repo, Number: t.PR, Kind: h.Kind, Label: h.Label}, body, t.Mode)
}
