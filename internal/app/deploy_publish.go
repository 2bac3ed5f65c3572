package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// deploySectionBudget is the most of the comment the deploy outcome may
// take; the reviewed diff above it is shortened to make room if need be.
var deploySectionBudget = reporters.Budget{MaxChars: 16000, Channel: "the PR comment"}

// publish writes the report to every channel. It returns an error only for
// an API failure that is not a missing permission.
func (d *deployRun) publish(ctx context.Context) error {
	r := d.r
	render := func(b reporters.Budget) string { return reporters.DeployMarkdown(d.rep, b) }
	if !r.publishOffline("deploy", d.reportJSON(), render) {
		return nil
	}
	d.finishDeployment(ctx)
	var errs []error
	written, err := d.comment(ctx)
	if err == nil && written.HTMLURL != "" {
		r.setOutput(OutputCommentURL, written.HTMLURL)
	}
	if err := r.degrade(err, "cannot write the pull request comment (no pull-requests: write permission?): %v"); err != nil {
		errs = append(errs, r.notPosted(ctx, "the deploy outcome in the pull request comment", err))
	}
	cr := github.CheckRun{Name: checkName("cdkd deploy", r.cfg.Label), HeadSHA: r.gh.SHA, Conclusion: deployConclusion(d.rep.Outcome), Title: d.checkTitle()}
	if c, ok := prcomment.Parse(written.Body); ok && c.Header.Kind == prcomment.KindDiff && c.Deploy != "" {
		// Vouches for the section written into the review comment, so a
		// re-run of this deploy tells it from one planted before the merge.
		cr.ExternalID = gate.DeployMarker(written.ID, prcomment.ReportHash(c.Deploy))
	}
	if err := r.publishCheckRun(ctx, cr, render); err != nil {
		errs = append(errs, r.notPosted(ctx, "the "+cr.Name+" check run", err))
	}
	return errors.Join(errs...)
}

func deployConclusion(o reporters.DeployOutcome) string {
	switch o {
	case reporters.OutcomeDeployed:
		return "success"
	case reporters.OutcomeCancelled:
		return "cancelled"
	}
	return "failure"
}

// checkTitle is the check run's title: the gate's own words for a refusal
// ("Diff changed since review"), else the outcome.
func (d *deployRun) checkTitle() string {
	if d.rep.Outcome == reporters.OutcomeRefused && d.rep.Title != "" {
		return d.rep.Title
	}
	return reporters.DeployHeadline(d.rep)
}

// comment adds the outcome to the pull request's diff comment, below the
// reviewed diff, keeping its hidden header (and the change set under it)
// byte for byte, so the comment is still the review a later run can read.
// Without a diff comment of ours, it writes a comment of kind "deploy",
// which no deploy ever reads as a review.
func (d *deployRun) comment(ctx context.Context) (github.Comment, error) {
	r, rv := d.r, d.reviews
	if r.cfg.Comment == config.CommentOff || rv.pr == nil || rv.err != nil {
		return github.Comment{}, nil
	}
	section := reporters.DeployMarkdown(d.rep, deploySectionBudget)
	if rv.comment != nil {
		if c, ok := prcomment.Parse(rv.comment.Body); ok {
			// The review comment itself, edited in place whatever the
			// comment mode: the diff's check run names it by its id.
			written, err := r.api.EditIssueComment(ctx, r.gh.Owner, r.gh.Repo, rv.comment.ID, redactBody(r.set, c.WithDeploy(section).String()))
			switch {
			case err == nil:
				return written, nil
			case !github.IsNotFound(err):
				return github.Comment{}, fmt.Errorf("write the deploy outcome to pull request #%d: %w", rv.pr.Number, err)
			}
			// Deleted since the gate read it: the outcome gets a comment
			// of its own.
		}
	}
	// A comment of its own kind: a diff-kind comment without a digest
	// could shadow a review that the identity in use did write.
	kind := prcomment.KindDeploy
	body := prcomment.Comment{Header: prcomment.Header{V: prcomment.HeaderVersion, Kind: kind, Label: r.cfg.Label, SHA: r.gh.SHA}}.WithDeploy(section).String()
	t := github.StickyTarget{Owner: r.gh.Owner, Repo: r.gh.Repo, Number: rv.pr.Number, Kind: kind, Label: r.cfg.Label, Author: rv.bot(ctx)}
	res, err := github.Upsert(ctx, r.api, t, redactBody(r.set, body), r.commentMode())
	if err != nil {
		return github.Comment{}, fmt.Errorf("write the deploy outcome to pull request #%d: %w", rv.pr.Number, err)
	}
	return github.Comment{ID: res.ID, HTMLURL: res.URL, Body: res.Body}, nil
}

// startDeployment records a GitHub deployment of GITHUB_SHA when an
// environment is configured. Failing to is a warning: the deploy matters
// more than its record.
func (d *deployRun) startDeployment(ctx context.Context) {
	r := d.r
	if r.cfg.Environment == "" || r.api == nil {
		return
	}
	id, err := r.api.CreateDeployment(ctx, r.gh.Owner, r.gh.Repo, github.DeploymentRequest{
		Ref: r.gh.SHA, Environment: r.cfg.Environment, Description: "cdkd deploy of " + shortSHA(r.gh.SHA),
	})
	if err != nil {
		r.notPosted(ctx, "the deployment to "+r.cfg.Environment+" (no deployments: write permission?)", err)
		return
	}
	d.deployID = id
	if err := r.api.CreateDeploymentStatus(ctx, r.gh.Owner, r.gh.Repo, id, "in_progress", "", r.gh.RunURL, "cdkd deploy is running"); err != nil {
		r.notPosted(ctx, "the deployment's in_progress status", err)
	}
}

func (d *deployRun) finishDeployment(ctx context.Context) {
	r := d.r
	if d.deployID == 0 {
		return
	}
	state, url := "failure", ""
	if d.rep.Outcome == reporters.OutcomeDeployed {
		state, url = "success", d.envURL // see environmentURLOutput
	}
	if err := r.api.CreateDeploymentStatus(ctx, r.gh.Owner, r.gh.Repo, d.deployID, state, url, r.gh.RunURL, reporters.DeployHeadline(d.rep)); err != nil {
		r.notPosted(ctx, "the deployment's "+state+" status", err)
	}
}

// environmentURL is the output named by environment-url-output: "Stack.Key"
// or a "Key" of any stack. A masked value is no URL.
func (d *deployRun) environmentURL() string {
	name := d.r.cfg.EnvironmentURLOutput
	if name == "" {
		return ""
	}
	value, found := "", false
	if stack, key, ok := strings.Cut(name, "."); ok {
		value, found = d.outputs[stack][key]
	}
	if !found {
		for _, stack := range slices.Sorted(maps.Keys(d.outputs)) {
			if v, ok := d.outputs[stack][name]; ok {
				value, found = v, true
				break
			}
		}
	}
	switch {
	case !found:
		d.r.runner.Warning(fmt.Sprintf("input environment-url-output: no stack has an output %q", name))
		return ""
	case strings.Contains(value, model.Masked):
		d.r.runner.Warning(fmt.Sprintf("input environment-url-output: output %q holds a secret; it is not used as the environment URL", name))
		return ""
	}
	return value
}

func stackOutputsJSON(outputs map[string]map[string]string) string {
	b, err := json.Marshal(outputs)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// reportJSON is the report JSON: the deploy's typed result, with the
// stack outputs (masked) and what the review looked like.
func (d *deployRun) reportJSON() any {
	res := d.rep.Result()
	res.Reason = d.reason.String()
	res.StackOutputs = d.outputs
	if rv := d.reviews; rv.pr != nil {
		res.Review.HeadSHA = rv.pr.HeadSHA
	}
	if d.reviews.comment != nil {
		res.Review.Digest = d.reviews.header.Digest
	}
	return res
}
