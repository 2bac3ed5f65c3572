package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// deploySectionMarker starts the deploy outcome appended to the pull
// request's diff comment; a later deploy replaces everything from it on.
const deploySectionMarker = "<!-- cdkd-action-deploy -->"

// deploySectionBudget is the most of the comment the deploy outcome may
// take; the reviewed diff above it is shortened to make room if need be.
var deploySectionBudget = reporters.Budget{MaxChars: 16000, Channel: "the PR comment"}

// commentSlack leaves room for the redactor, as reporters.CommentBudget does.
const commentSlack = 2048

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
	url, err := d.comment(ctx)
	if err == nil && url != "" {
		r.setOutput(OutputCommentURL, url)
	}
	if err := r.degrade(err, "cannot write the pull request comment (no pull-requests: write permission?): %v"); err != nil {
		errs = append(errs, err)
	}
	cr := github.CheckRun{Name: checkName("cdkd deploy", r.cfg.Label), HeadSHA: r.gh.SHA, Conclusion: deployConclusion(d.rep.Outcome), Title: d.checkTitle()}
	if err := r.publishCheckRun(ctx, cr, render); err != nil {
		errs = append(errs, fmt.Errorf("create check run: %w", err))
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
func (d *deployRun) comment(ctx context.Context) (string, error) {
	r, rv := d.r, d.reviews
	if r.cfg.Comment == config.CommentOff || rv.pr == nil || rv.err != nil {
		return "", nil
	}
	section := deploySectionMarker + "\n\n" + reporters.DeployMarkdown(d.rep, deploySectionBudget)
	kind, body := "diff", ""
	if rv.comment != nil {
		body = appendSection(rv.comment.Body, section)
	} else {
		// A comment of its own kind: a diff-kind comment without a digest
		// could shadow a review that the identity in use did write.
		kind = "deploy"
		body = github.Header{V: github.HeaderVersion, Kind: kind, Label: r.cfg.Label, SHA: r.gh.SHA}.String() + "\n" + section
	}
	t := github.StickyTarget{Owner: r.gh.Owner, Repo: r.gh.Repo, Number: rv.pr.Number, Kind: kind, Label: r.cfg.Label, Author: rv.bot(ctx)}
	res, err := github.Upsert(ctx, r.api, t, redactBody(r.set, body), r.commentMode())
	if err != nil {
		return "", fmt.Errorf("write the deploy outcome to pull request #%d: %w", rv.pr.Number, err)
	}
	return res.URL, nil
}

// appendSection puts section at the end of a diff comment, replacing an
// earlier deploy's. The header line and the change set line stay as they
// are; the visible diff is shortened if the whole would not fit.
func appendSection(old, section string) string {
	head, rest, _ := strings.Cut(old, "\n")
	var block string
	if first, after, _ := strings.Cut(rest, "\n"); strings.HasPrefix(first, "<!-- cdkd-action-changeset:") {
		block, rest = first+"\n", after
	}
	if i := strings.Index(rest, "\n"+deploySectionMarker); i >= 0 {
		rest = rest[:i]
	} else if strings.HasPrefix(rest, deploySectionMarker) {
		rest = ""
	}
	rest = strings.TrimRight(rest, "\n")
	avail := github.MaxCommentChars - commentSlack - utf8.RuneCountInString(head) - utf8.RuneCountInString(block) - utf8.RuneCountInString(section) - 8
	rest = reporters.Truncate(rest, reporters.Budget{MaxChars: max(avail, 0), Channel: "the PR comment"},
		"✂️ The reviewed diff was shortened to make room for the deploy outcome; the full diff is in the job summary of the diff run.")
	body := head + "\n" + block
	if rest != "" {
		body += strings.TrimRight(rest, "\n") + "\n\n"
	}
	return body + section
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
		r.runner.Warning(fmt.Sprintf("cannot record a deployment to %s (no deployments: write permission?): %v", r.cfg.Environment, err))
		return
	}
	d.deployID = id
	if err := r.api.CreateDeploymentStatus(ctx, r.gh.Owner, r.gh.Repo, id, "in_progress", "", r.gh.RunURL, "cdkd deploy is running"); err != nil {
		r.runner.Warning(fmt.Sprintf("cannot set the deployment's status: %v", err))
	}
}

func (d *deployRun) finishDeployment(ctx context.Context) {
	r := d.r
	if d.deployID == 0 {
		return
	}
	state, url := "failure", ""
	if d.rep.Outcome == reporters.OutcomeDeployed {
		state, url = "success", d.environmentURL()
	}
	if err := r.api.CreateDeploymentStatus(ctx, r.gh.Owner, r.gh.Repo, d.deployID, state, url, r.gh.RunURL, reporters.DeployHeadline(d.rep)); err != nil {
		r.runner.Warning(fmt.Sprintf("cannot set the deployment's status: %v", err))
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
