package app

import (
	"cmp"
	"context"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/redacted"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/review"
)

// queueCheck is the check a ruleset requires for a merge queue: verify
// writes it on the group's head, the pull request's diff on its head (no
// pull request could enter the queue otherwise). Its name never matches
// the diff's, whose check run is the review's record.
const queueCheck = "cdkd merge queue"

// verifyCommand checks a merge queue's group (on: merge_group) before it
// merges: cdkd diff on the group's head (the checkout), the reviews of the
// group's pull requests, and the deploy gate's decision on them, as the
// deploy of the group would take it. It deploys nothing. A refusal fails
// the queueCheck check run, and GitHub then removes the group's pull
// requests from the queue, instead of a refused deploy after the merge.
type verifyCommand struct{}

func (verifyCommand) Run(ctx context.Context, r *Env) Outcome {
	g := r.gh.MergeGroup // checked by run: verifyEvent
	d := newDeployRun(r)
	d.rep.SHA = g.HeadSHA
	w := &d.reviews.Where
	w.SHA, w.Branch, w.Ref, w.Before, w.EventPR = g.HeadSHA, g.BaseBranch(), g.HeadRef, "", 0
	w.Group = &review.Group{HeadSHA: g.HeadSHA, Branch: g.BaseBranch(), QueuedPR: g.QueuedPR()}
	dec, ok := d.decide(ctx)
	if ok {
		d.rep.Outcome, d.rep.Title = reporters.OutcomeVerified, "Every change of the group is reviewed"
	}
	d.rep.Group = &model.GroupCheck{Branch: g.BaseBranch()}
	for _, s := range gate.Standings(r.gatePolicy(d.reviews.Bot(ctx)), d.reviews.Found, dec) {
		d.rep.Group.PullRequests = append(d.rep.Group.PullRequests, model.GroupPullRequest{
			Number: s.PR, ReviewedSHA: s.ReviewedSHA, Reason: string(s.Reason), Problem: s.Problem})
	}
	d.rep.PR, d.rep.ReviewedSHA, d.rep.ReviewURL = 0, "", ""
	d.redact()
	return d.finishWith(ctx, d.publishGroup)
}

// verifyEvent refuses verify outside a merge group: it judges a group's
// head against the reviews of the group's pull requests, which only a
// merge_group event names.
func (r *Env) verifyEvent() error {
	if r.cfg.Command != config.CommandVerify {
		return nil
	}
	if g := r.gh.MergeGroup; g == nil || g.HeadSHA == "" || g.BaseBranch() == "" {
		return &config.InputError{Input: "command", Msg: fmt.Sprintf(
			"verify checks a merge queue's group and runs on a merge_group event (on: merge_group), whose payload names the group's head and branch; this run was started by %s", cmp.Or(r.gh.EventName, "no event"))}
	}
	return nil
}

// publishGroup writes the group's report: the queueCheck check run on the
// group's head, the job summary and the outputs.
func (d *deployRun) publishGroup(ctx context.Context) error {
	r := d.r
	res := d.rep.Result()
	res.Reason = d.reason.String()
	p := &publish.Publication{
		Kind:    "verify",
		Result:  res,
		Render:  func(b reporters.Budget) string { return reporters.DeployMarkdown(d.rep, b) },
		Outputs: map[string]string{OutputDigest: d.rep.Digest},
		CheckRun: &publish.CheckRunFields{Name: checkName(queueCheck, r.cfg.Label), HeadSHA: d.rep.SHA,
			Conclusion: reporters.DeployConclusion(d.rep.Outcome), Title: reporters.DeployHeadline(d.rep)},
	}
	return r.pub().Publish(ctx, p, r.targets(r.checkRun()...)...)
}

// queueCheckOnHead is the queueCheck check run a pull request's diff
// writes on its head: a ruleset that requires the check for the merge
// queue requires it of the pull request too, before it may enter the
// queue. The pull request's own diff is its review, so the check passes
// when the diff did; the group it joins is checked by verify.
func (r *diffRun) queueCheckOnHead(rep reporters.DiffReport) publish.Target {
	return &publish.RequiredCheck{API: r.api, Owner: r.gh.Owner, Repo: r.gh.Repo, DetailsURL: r.gh.RunURL,
		Name: checkName(queueCheck, r.cfg.Label), HeadSHA: r.gh.HeadSHA,
		Conclude: func(w *publish.Written, red redacted.Redactor) (string, redacted.Text, redacted.Text) {
			if rep.Error != "" || rep.Missing != "" {
				return "failure", redacted.Redact(red, "No review: the diff failed"),
					redacted.Redact(red, "The diff of this pull request failed, so it has no review a merge group could be checked against. Fix the diff and push again.")
			}
			review := "this pull request's diff comment"
			if w.Comment.HTMLURL != "" {
				review = "[this pull request's diff comment](" + w.Comment.HTMLURL + ")"
			}
			return "success", redacted.Redact(red, "The merge queue checks the group"),
				redacted.Redact(red, "The pull request's own diff is its review: "+review+". "+
					"The real check runs in the merge queue: on the group this pull request joins, `command: verify` diffs the group's head and checks every change against the reviews of the group's pull requests, as the deploy gate would; "+
					"a pull request whose review no longer covers what would deploy leaves the queue before it merges.")
		}}
}
