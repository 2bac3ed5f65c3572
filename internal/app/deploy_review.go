package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// prReviews finds the review of the commit being deployed: the pull request
// it came from, and on it the diff comment written by our own identity. It
// implements gate.Reviews and keeps what it found for the report.
type prReviews struct {
	r     *run
	login string

	pr      *github.PullRequest
	comment *github.Comment
	header  github.Header
	err     error
}

var _ gate.Reviews = (*prReviews)(nil)

// bot is the login trusted diff comments are written by: the bot-login
// input, else the token's identity, else github-actions[bot] (GITHUB_TOKEN
// cannot read GET /user).
func (s *prReviews) bot(ctx context.Context) string {
	if s.login != "" {
		return s.login
	}
	if s.r.api == nil {
		s.login = github.ActionsBotLogin
		return s.login
	}
	login, err := s.r.login(ctx)
	if err != nil {
		// No author: the review lookup fails with this error recorded,
		// and the deploy stops with api-failed instead of trusting a guess.
		s.err = err
		return ""
	}
	s.login = login
	return s.login
}

func (s *prReviews) Review(ctx context.Context) (gate.Review, error) {
	rv, err := s.review(ctx)
	s.err = err
	return rv, err
}

func (s *prReviews) review(ctx context.Context) (gate.Review, error) {
	r := s.r
	rv := gate.Review{Commit: "commit " + shortSHA(r.gh.SHA)}
	switch {
	case r.local:
		rv.Note = "a local run reads no pull request"
		return rv, nil
	case r.api == nil:
		rv.Note = "no GitHub token to read pull requests with"
		return rv, nil
	}
	number, note, err := s.findPR(ctx)
	if err != nil {
		return rv, err
	}
	if number == 0 {
		rv.Note = note
		return rv, nil
	}
	pr, err := r.api.GetPullRequest(ctx, r.gh.Owner, r.gh.Repo, number)
	if err != nil {
		return rv, fmt.Errorf("read pull request #%d: %w", number, err)
	}
	s.pr = &pr
	rv.PR, rv.HeadSHA, rv.Labels = pr.Number, pr.HeadSHA, pr.Labels

	t := github.StickyTarget{Owner: r.gh.Owner, Repo: r.gh.Repo, Number: pr.Number, Kind: "diff", Label: r.cfg.Label, Author: s.bot(ctx)}
	c, h, ignored, err := github.Find(ctx, r.api, t)
	if err != nil {
		return rv, err
	}
	for _, o := range ignored {
		r.runner.Warning(fmt.Sprintf("ignored comment %s by %s: it carries cdkd-action's diff header but was not written by %s (an attempted spoof?); it is not trusted as a review",
			o.HTMLURL, o.AuthorLogin, t.Author))
	}
	if c == nil {
		return rv, nil
	}
	s.comment, s.header = c, h
	rv.Comment, rv.ReviewedSHA, rv.Digest = true, h.SHA, h.Digest
	if h.Digest != "" {
		cs, err := gate.DecodeChangeSet(c.Body, h.Digest)
		switch {
		case err == nil:
			rv.ChangeSet = cs
		case errors.Is(err, gate.ErrNoChangeSet):
		default:
			r.runner.Warning(fmt.Sprintf("the reviewed change set stored in %s cannot be read (%v); only its digest is compared", c.HTMLURL, err))
		}
	}
	return rv, nil
}

// findPR names the pull request the deployed commit came from: the event's
// own, or the merged one whose merge commit (else head) is GITHUB_SHA.
func (s *prReviews) findPR(ctx context.Context) (int, string, error) {
	r := s.r
	if r.gh.PR != nil {
		return r.gh.PR.Number, "", nil
	}
	if r.gh.SHA == "" {
		return 0, "GITHUB_SHA is not set", nil
	}
	prs, err := r.api.PullRequestsForCommit(ctx, r.gh.Owner, r.gh.Repo, r.gh.SHA)
	if err != nil {
		return 0, "", err
	}
	for _, match := range []func(github.PullRequest) bool{
		func(p github.PullRequest) bool { return p.Merged && p.MergeCommitSHA == r.gh.SHA },
		func(p github.PullRequest) bool { return p.Merged && p.HeadSHA == r.gh.SHA }, // a fast-forward merge
	} {
		for _, p := range prs {
			if match(p) {
				return p.Number, "", nil
			}
		}
	}
	note := "no merged pull request has it as its merge commit: a direct push?"
	if r.gh.EventName != "" && r.gh.EventName != "push" {
		note = "the run was started by " + r.gh.EventName + ", and no merged pull request has this commit as its merge commit"
	}
	return 0, note, nil
}

// describe adds what was found to the report.
func (s *prReviews) describe(rep *reporters.DeployReport) {
	if s.pr != nil {
		rep.PR = s.pr.Number
	}
	if s.comment != nil {
		rep.ReviewedSHA = s.header.SHA
		rep.ReviewURL = s.comment.HTMLURL
	}
}

// currentChangeSet runs `cdkd diff` on what is being deployed and computes
// its digest exactly as the diff command does: redacted, sorted, digested.
type currentChangeSet struct {
	r       *run
	version string
}

var _ gate.ChangeSets = (*currentChangeSet)(nil)

func (c *currentChangeSet) ChangeSet(ctx context.Context) (gate.Current, error) {
	d, version, err := c.r.obtainDiff(ctx)
	c.version = version
	if err != nil {
		return gate.Current{}, err
	}
	discover.RedactDiff(&d, c.r.positions(), c.r.set)
	d.Sort()
	return gate.Current{Diff: d, Digest: d.Digest()}, nil
}
