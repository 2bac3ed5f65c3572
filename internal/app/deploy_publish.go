package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/review"
)

// publish writes the report to every channel: the deployment's status,
// the deploy section of the pull request's comment, then the check run
// vouching for it. It returns an error only for an API failure that is not
// a missing permission.
func (d *deployRun) publish(ctx context.Context) error {
	r := d.r
	if d.rep.Outcome == reporters.OutcomeDeployed {
		// Read once: the deployment status uses the same value.
		d.envURL = d.environmentURL()
	}
	p := &publish.Publication{
		Kind:   "deploy",
		Result: d.reportJSON(),
		Render: func(b reporters.Budget) string { return reporters.DeployMarkdown(d.rep, b) },
		Outputs: map[string]string{
			OutputDeployed:       deployedOutput(d.rep),
			OutputEnvironmentURL: d.envURL, // for a job's `environment: url:`
			OutputStackOutputs:   stackOutputsJSON(d.outputs),
			OutputDigest:         d.rep.Digest, // the change set the gate compared, "" when it computed none
		},
		CheckRun: &publish.CheckRunFields{Name: checkName("cdkd deploy", r.cfg.Label), HeadSHA: r.gh.SHA,
			Conclusion: reporters.DeployConclusion(d.rep.Outcome), Title: reporters.DeployCheckTitle(d.rep)},
		Deployment: d.deploymentStatus(),
	}
	var api []publish.Target
	if d.deployment != nil {
		api = append(api, d.deployment)
	}
	api = append(api, r.checkRun()...)
	if rv := d.reviews; r.cfg.Comment != config.CommentOff && rv.PR != nil && rv.Err == nil {
		section := &publish.DeploySection{API: r.api, Owner: r.gh.Owner, Repo: r.gh.Repo, PR: rv.PR.Number, Review: reviewComment(rv.Comment),
			Label: r.cfg.Label, SHA: r.gh.SHA, Identity: r.ident(), Mode: r.commentMode(), Output: OutputCommentURL, Recorded: true}
		// The check run, written first, records the section about to go
		// into the review comment, so a re-run of this deploy tells it
		// from one planted before the merge, even when this run's write
		// of it lost its answer.
		p.CheckRun.ExternalID = func(*publish.Written) string {
			id, sec, ok := section.Planned(r.set, p)
			if !ok || sec == "" {
				return ""
			}
			return gate.DeployMarker(id, prcomment.ReportHash(sec))
		}
		api = append(api, section)
	}
	return r.pub().Publish(ctx, p, r.targets(api...)...)
}

// startDeployment records a GitHub deployment of GITHUB_SHA when an
// environment is configured, in progress until publish gives its outcome.
// Failing to is a warning: the deploy matters more than its record.
func (d *deployRun) startDeployment(ctx context.Context) {
	r := d.r
	if r.cfg.Environment == "" || r.api == nil {
		return
	}
	d.deployment = &publish.Deployment{API: r.api, Owner: r.gh.Owner, Repo: r.gh.Repo, Environment: r.cfg.Environment, SHA: r.gh.SHA, RunURL: r.gh.RunURL}
	pub := r.pub()
	d.deployment.Start(ctx, pub, pub.Redact("cdkd deploy of "+reporters.ShortSHA(r.gh.SHA)))
}

// deploymentStatus is the deployment's final status.
func (d *deployRun) deploymentStatus() *publish.DeploymentFields {
	state, url := "failure", ""
	if d.rep.Outcome == reporters.OutcomeDeployed {
		state, url = "success", d.envURL // the environment-url output
	}
	return &publish.DeploymentFields{State: state, EnvironmentURL: url, Description: reporters.DeployHeadline(d.rep)}
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
	if rv := d.reviews; rv.PR != nil {
		res.Review.HeadSHA = rv.PR.HeadSHA
	}
	if d.reviews.Comment != nil {
		res.Review.Digest = d.reviews.Header.Digest
	}
	return res
}

// reviewComment is the review comment the lookup found as the GitHub
// client's type (nil: none).
func reviewComment(c *review.Comment) *github.Comment {
	if c == nil {
		return nil
	}
	return &github.Comment{ID: c.ID, Body: c.Body, HTMLURL: c.HTMLURL}
}
