// Package verify is the verify command: it checks a merge queue's group
// (on: merge_group) before it merges: cdkd diff on the group's head (the
// checkout), the reviews of the group's pull requests, and the deploy
// gate's decision on them, as the deploy of the group would take it. It
// deploys nothing. A refusal fails the merge queue check run, and GitHub
// then removes the group's pull requests from the queue, instead of a
// refused deploy after the merge.
package verify

import (
	"cmp"
	"context"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/review"
)

// Run checks the merge group (o.GitHub.MergeGroup, which App.Run checked
// is there) and reports it.
func Run(ctx context.Context, o gatecheck.Options) outcome.Outcome {
	g := o.GitHub.MergeGroup
	d := gatecheck.New(&o)
	d.Rep.SHA = g.HeadSHA
	w := &d.Reviews.Where
	w.SHA, w.Branch, w.Ref, w.Before, w.EventPR = g.HeadSHA, g.BaseBranch(), g.HeadRef, "", 0
	w.Group = &review.Group{HeadSHA: g.HeadSHA, Branch: g.BaseBranch(), QueuedPR: g.QueuedPR()}
	dec, ok := d.Decide(ctx)
	if ok {
		d.Rep.Outcome, d.Rep.Title = reporters.OutcomeVerified, "Every change of the group is reviewed"
	}
	d.Rep.Group = &model.GroupCheck{Branch: g.BaseBranch()}
	for _, s := range gate.Standings(o.Policy(d.Reviews.Bot(ctx)), d.Reviews.Found, dec) {
		d.Rep.Group.PullRequests = append(d.Rep.Group.PullRequests, model.GroupPullRequest{
			Number: s.PR, ReviewedSHA: s.ReviewedSHA, Reason: string(s.Reason), Problem: s.Problem})
	}
	d.Rep.PR, d.Rep.ReviewedSHA, d.Rep.ReviewURL = 0, "", ""
	d.Redact()
	return d.FinishWith(ctx, func(ctx context.Context) error { return publishGroup(ctx, d) })
}

// publishGroup writes the group's report: the merge queue check run on
// the group's head, the job summary and the outputs.
func publishGroup(ctx context.Context, d *gatecheck.Check) error {
	r := d.Opts
	res := d.Rep.Result()
	res.Reason = d.Reason.String()
	p := &publish.Publication{
		Kind:    "verify",
		Result:  res,
		Render:  func(b reporters.Budget) string { return reporters.DeployMarkdown(d.Rep, b) },
		Outputs: map[string]string{publisher.OutputDigest: d.Rep.Digest},
		CheckRun: &publish.CheckRunFields{Name: publisher.CheckName(publisher.QueueCheck, r.Config.Label), HeadSHA: d.Rep.SHA,
			Conclusion: reporters.DeployConclusion(d.Rep.Outcome), Title: reporters.DeployHeadline(d.Rep)},
	}
	return r.Channels.Publisher().Publish(ctx, p, r.Channels.Targets(r.Channels.CheckRun()...)...)
}

// CheckEvent refuses verify outside a merge group: it judges a group's
// head against the reviews of the group's pull requests, which only a
// merge_group event names.
func CheckEvent(_ config.Config, gh ghctx.Context) error {
	if g := gh.MergeGroup; g == nil || g.HeadSHA == "" || g.BaseBranch() == "" {
		return &config.InputError{Input: "command", Msg: fmt.Sprintf(
			"verify checks a merge queue's group and runs on a merge_group event (on: merge_group), whose payload names the group's head and branch; this run was started by %s", cmp.Or(gh.EventName, "no event"))}
	}
	return nil
}
