package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
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
func (d *run) publish(ctx context.Context) error {
	r := d.Opts
	if d.Rep.Outcome == reporters.OutcomeDeployed {
		// Read once: the deployment status uses the same value.
		d.envURL = d.environmentURL()
	}
	p := &publish.Publication{
		Kind:   "deploy",
		Result: d.reportJSON(),
		Render: func(b reporters.Budget) string { return reporters.DeployMarkdown(d.Rep, b) },
		Outputs: map[string]string{
			publisher.OutputDeployed:       deployedOutput(d.Rep),
			publisher.OutputEnvironmentURL: d.envURL, // for a job's `environment: url:`
			publisher.OutputStackOutputs:   stackOutputsJSON(d.Outputs),
			publisher.OutputDigest:         d.Rep.Digest, // the change set the gate compared, "" when it computed none
		},
		CheckRun: &publish.CheckRunFields{Name: publisher.CheckName("cdkd deploy", r.Config.Label), HeadSHA: r.GitHub.SHA,
			Conclusion: reporters.DeployConclusion(d.Rep.Outcome), Title: reporters.DeployCheckTitle(d.Rep)},
		Deployment: d.deploymentStatus(),
	}
	var api []publish.Target
	if d.deployment != nil {
		api = append(api, d.deployment)
	}
	api = append(api, r.Channels.CheckRun()...)
	if rv := d.Reviews; r.Config.Comment != config.CommentOff && rv.PR != nil && rv.Err == nil {
		section := &publish.DeploySection{API: r.Channels.API, Owner: r.GitHub.Owner, Repo: r.GitHub.Repo, PR: rv.PR.Number, Review: reviewComment(rv.Comment),
			Label: r.Config.Label, SHA: r.GitHub.SHA, Identity: r.Channels.Ident(), Mode: r.Channels.CommentMode(), Output: publisher.OutputCommentURL, Recorded: true}
		// The check run, written first, records the section about to go
		// into the review comment, so a re-run of this deploy tells it
		// from one planted before the merge, even when this run's write
		// of it lost its answer.
		p.CheckRun.ExternalID = func(*publish.Written) string {
			id, sec, ok := section.Planned(r.Secrets.Set, p)
			if !ok || sec == "" {
				return ""
			}
			return gate.DeployRecord(id, prcomment.ReportHash(sec))
		}
		api = append(api, section)
	}
	return r.Channels.Publisher().Publish(ctx, p, r.Channels.Targets(api...)...)
}

// startDeployment records a GitHub deployment of GITHUB_SHA when an
// environment is configured, in progress until publish gives its outcome.
// Failing to is a warning: the deploy matters more than its record.
func (d *run) startDeployment(ctx context.Context) {
	r := d.Opts
	if r.Config.Environment == "" || r.Channels.API == nil {
		return
	}
	d.deployment = &publish.Deployment{API: r.Channels.API, Owner: r.GitHub.Owner, Repo: r.GitHub.Repo, Environment: r.Config.Environment, SHA: r.GitHub.SHA, RunURL: r.GitHub.RunURL}
	pub := r.Channels.Publisher()
	d.deployment.Start(ctx, pub, pub.Redact("cdkd deploy of "+reporters.ShortSHA(r.GitHub.SHA)))
}

// deploymentStatus is the deployment's final status.
func (d *run) deploymentStatus() *publish.DeploymentFields {
	state, url := "failure", ""
	if d.Rep.Outcome == reporters.OutcomeDeployed {
		state, url = "success", d.envURL // the environment-url output
	}
	return &publish.DeploymentFields{State: state, EnvironmentURL: url, Description: reporters.DeployHeadline(d.Rep)}
}

// environmentURL is the output named by environment-url-output: "Stack.Key"
// or a "Key" of any stack. A hidden value is no URL.
func (d *run) environmentURL() string {
	name := d.Opts.Config.EnvironmentURLOutput
	if name == "" {
		return ""
	}
	value, found := "", false
	if stack, key, ok := strings.Cut(name, "."); ok {
		value, found = d.Outputs[stack][key]
	}
	if !found {
		for _, stack := range slices.Sorted(maps.Keys(d.Outputs)) {
			if v, ok := d.Outputs[stack][name]; ok {
				value, found = v, true
				break
			}
		}
	}
	switch {
	case !found:
		d.Opts.Log.Warning(fmt.Sprintf("input environment-url-output: no stack has an output %q", name))
		return ""
	case strings.Contains(value, model.Hidden):
		d.Opts.Log.Warning(fmt.Sprintf("input environment-url-output: output %q holds a secret; it is not used as the environment URL", name))
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
// stack outputs (hidden) and what the review looked like.
func (d *run) reportJSON() any {
	res := d.Rep.Result()
	res.Reason = d.Reason.String()
	res.StackOutputs = d.Outputs
	if rv := d.Reviews; rv.PR != nil {
		res.Review.HeadSHA = rv.PR.HeadSHA
	}
	if d.Reviews.Comment != nil {
		res.Review.Digest = d.Reviews.Header.Digest
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
