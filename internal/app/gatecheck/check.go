// Package gatecheck is what a deploy and a merge group's verify share: the
// review lookup wired to the run, the gate's decision on the change set
// being deployed (package gate), the report it fills, its redaction, and
// how the run ends.
package gatecheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/awsedge"
	"github.com/cdkd-action/cdkd-action/internal/app/cdkdexec"
	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/review"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// cancelledReportTimeout bounds the reporting done after a cancellation,
// when the job's own context is already gone.
const cancelledReportTimeout = 4 * time.Second

// Options are what a gated run (a deploy, a merge group's verify) uses,
// named.
type Options struct {
	Config config.Config
	GitHub ghctx.Context
	// Local is set in a local run: the review is looked for all the same.
	Local bool
	// Log is the step's log; Out its redacted stream.
	Log *workflow.Runner
	Out io.Writer
	// Secrets is the run's secret session; Cdkd the cdkd it runs.
	Secrets *session.Session
	Cdkd    *cdkdexec.Executor
	// Channels is where the report goes; AWS holds the state bucket.
	Channels *publisher.Channels
	AWS      *awsedge.Edge
	// ChangeSets computes the change set being deployed as the diff did;
	// Fingerprints records what a deploy applied.
	ChangeSets   *changeset.Stage
	Fingerprints *fingerprints.Run
}

// OptionsOf are the parts of a gated run, taken from the run's parts p.
func OptionsOf(p *parts.Parts, cfg config.Config, gh ghctx.Context, local bool) Options {
	return Options{Config: cfg, GitHub: gh, Local: local, Log: p.Runner, Out: p.Out, Secrets: p.Secrets, Cdkd: p.Cdkd,
		Channels: p.Channels, AWS: p.AWS, ChangeSets: p.ChangeSets(), Fingerprints: p.Fingerprints()}
}

// Check is a gated run's check of what is being deployed against its
// review, and the report it fills: a deploy goes on to cdkd deploy when
// the gate lets it, a verify stops there.
type Check struct {
	Opts    *Options
	Reviews *review.Finder
	Changes *changeset.Current

	Rep reporters.DeployReport
	// Outputs are the stack outputs: stack → output → value, hidden.
	Outputs map[string]map[string]string
	// Reason is why the run fails ("": it does not).
	Reason reason.Reason
}

// New is a check of GITHUB_SHA, its review still to be found.
func New(o *Options) *Check {
	return &Check{
		Opts:    o,
		Reviews: o.reviewFinder(),
		Changes: &changeset.Current{Stage: o.ChangeSets},
		Rep: reporters.DeployReport{
			Label:          o.Config.Label,
			SHA:            o.GitHub.SHA,
			RunURL:         o.GitHub.RunURL,
			FullReportHint: o.Channels.FullReportHint(),
		},
		Outputs: map[string]map[string]string{},
	}
}

// Decide runs the gate and puts its decision in the report; ok is true
// when it would deploy.
func (c *Check) Decide(ctx context.Context) (dec gate.Decision, ok bool) {
	o := c.Opts
	dec, err := gate.Evaluate(ctx, o.Policy(c.Reviews.Bot(ctx)), c.Reviews, c.Changes)
	c.describeReview()
	c.Rep.CdkdVersion, c.Rep.CdkdSource = c.Changes.Version, o.Cdkd.Source()
	switch {
	case ctx.Err() != nil:
		c.Stopped(cdkd.Result{Cancelled: true}, nil)
		return dec, false
	case err != nil && c.Reviews.Err != nil && !isCdkdError(err):
		c.Failed(reason.APIFailed, "Could not read the review", fmt.Sprintf("Could not read the pull request's reviewed diff, so it cannot be verified: %v. Not deploying.", err), nil)
		return dec, false
	case config.IsInputError(err):
		// A stacks pattern the synthesized app has no stack for.
		c.Failed(reason.BadInput, "Bad input", fmt.Sprintf("%v. Not deploying.", err), nil)
		return dec, false
	case err != nil:
		var cerr *cdkd.Error
		var tail []string
		if errors.As(err, &cerr) {
			tail = cerr.StderrTail
		}
		c.Failed(outcome.CdkdReason(err, reason.CdkdFailed), "cdkd diff failed", fmt.Sprintf("The change set could not be computed, so it cannot be checked against the review: %v. Not deploying.", err), tail)
		return dec, false
	}
	c.fromDecision(dec)
	if !dec.Deploy {
		c.Reason = reason.Reason(dec.Reason)
		c.Rep.Outcome, c.Rep.Reason = reporters.OutcomeRefused, c.Reason.String()
		return dec, false
	}
	return dec, true
}

// Policy is the gate's policy from the inputs; bot is the login
// trusted diff comments are written by.
func (o *Options) Policy(bot string) gate.Policy {
	return gate.Policy{
		RequireReviewedDiff:   o.Config.RequireReviewedDiff,
		RequireApproval:       string(o.Config.RequireApproval),
		SecurityApprovalLabel: o.Config.SecurityApprovalLabel,
		RequiredApprovals:     o.Config.RequiredApprovals,
		AllowDestructive:      o.Config.AllowDestructive,
		DestructiveLabel:      o.Config.DestructiveLabel,
		AllowDestroyTypes:     o.Config.AllowDestroyTypes,
		Bot:                   bot,
		TrustedApp:            o.Config.TrustedApp,
	}
}

// reviewFinder is the review lookup, wired to this run's GitHub client,
// identity and inputs.
func (o *Options) reviewFinder() *review.Finder {
	f := &review.Finder{
		Identity: o.Channels.Ident(),
		Warn:     func(msg string) { o.Log.Warning(msg) },
		Redactor: o.Secrets.Set,
		Stored:   o.storedChangeSet,
		Where: review.Where{
			SHA:    o.GitHub.SHA,
			Branch: o.GitHub.Branch(), Ref: o.GitHub.Ref, EventName: o.GitHub.EventName,
			Label: o.Config.Label, DiffCheck: publisher.CheckName("cdkd diff", o.Config.Label), DeployCheck: publisher.CheckName("cdkd deploy", o.Config.Label),
			TrustedApp: o.Config.TrustedApp, DestructiveLabel: o.Config.DestructiveLabel,
			KeyIDField: fingerprints.KeyIDField, Local: o.Local, Before: o.GitHub.Before,
			Approval: review.Approval{Needed: o.Config.RequiredApprovals > 0 || o.Config.RequireApproval != config.ApprovalNever,
				Approvers: o.Config.Approvers},
		},
	}
	if o.Config.RequireApproval != config.ApprovalNever {
		f.Where.Approval.Label = o.Config.SecurityApprovalLabel
	}
	if o.GitHub.PR != nil {
		f.Where.EventPR = o.GitHub.PR.Number
	}
	if o.Channels.API != nil {
		f.API = reviewSource{api: o.Channels.API, owner: o.GitHub.Owner, repo: o.GitHub.Repo, warn: f.Warn}
	}
	return f
}

// describeReview adds what the review lookup found to the report.
func (c *Check) describeReview() {
	if f := c.Reviews; f.PR != nil {
		c.Rep.PR = f.PR.Number
	}
	if f := c.Reviews; f.Comment != nil {
		c.Rep.ReviewedSHA = f.Header.SHA
		c.Rep.ReviewURL = f.Comment.HTMLURL
	}
}

// fromDecision copies what the gate found into the report.
func (c *Check) fromDecision(dec gate.Decision) {
	c.Rep.Title, c.Rep.Message = dec.Title, dec.Message
	if dec.Deploy && dec.Approval != "" {
		c.Rep.Message += " " + dec.Approval
	}
	c.Rep.Reviewed = dec.Reviewed
	// The notes are the report's, not the log's: they hold on every run.
	// A local run trusts no check run, so what trusting github-actions'
	// ones means is nothing to it.
	notes := dec.Notes
	if c.Opts.Local {
		notes = slices.DeleteFunc(slices.Clone(notes), func(n string) bool { return n == gate.SharedRecordNote })
	}
	c.Rep.Warnings = append(slices.Clip(dec.Warnings), notes...)
	if dec.Unapproved != "" {
		// A warning in the log and the report: nobody approved.
		dec.Warnings = append(slices.Clip(dec.Warnings), dec.Unapproved)
		c.Rep.Warnings = append(c.Rep.Warnings, dec.Unapproved)
	}
	c.Rep.Comparison, c.Rep.ComparisonNote = dec.Comparison, dec.ComparisonNote
	if dec.Current != nil {
		c.Rep.Digest = dec.Current.Digest
	}
	for _, x := range dec.Destructive {
		c.Rep.Destructive = append(c.Rep.Destructive, reporters.DestructiveChange{
			Stack: x.Stack, LogicalID: x.LogicalID, Type: x.Type, Action: x.Action, ForcedBy: x.ForcedBy, AllowedBy: x.AllowedBy,
		})
	}
	for _, w := range dec.Warnings {
		c.Opts.Log.Warning(w)
	}
}

func (c *Check) Failed(why reason.Reason, title, msg string, tail []string) {
	c.Rep.Outcome, c.Rep.Reason, c.Rep.Title, c.Rep.Message = reporters.OutcomeFailed, why.String(), title, msg
	c.Rep.StderrTail = tail
	c.Reason = why
}

// Stopped reports a deploy stopped before or during cdkd deploy: the job
// was cancelled (cancelled), or cdkd ran longer than timeout-minutes
// (timeout). What it says of the state lock is what cdkd.LockState can
// vouch for: a release only when cdkd said so.
func (c *Check) Stopped(res cdkd.Result, targets []cdkd.Target) {
	why, title := reason.Cancelled, "Deploy cancelled"
	if res.TimedOut {
		why, title = reason.Timeout, "Deploy timed out"
	}
	// LockState says why cdkd stopped (timeout-minutes, the job's
	// cancellation, a kill after the grace period) and, per stack, what
	// cdkd said of its lock.
	msg := cdkd.LockState(res, targets)
	if len(res.Args) == 0 {
		msg = "The job was cancelled before cdkd deploy started; nothing was deployed."
	}
	c.Rep.Outcome, c.Rep.Reason, c.Rep.Title, c.Rep.Message = reporters.OutcomeCancelled, why.String(), title, msg
	c.Reason = why
}

// Redact is the deploy's redaction stage, run once between the deploy and
// its report: it hides the secret stack outputs and redacts every string of
// the report (see redact.Deploy), registers the values it learned, and
// takes the stack-outputs output from the redacted report.
func (c *Check) Redact() {
	res := c.Rep.Result()
	redact.Deploy(&res, redact.Input{Set: c.Opts.Secrets.Set, Positions: c.Opts.Secrets.Positions()})
	c.Opts.Secrets.RegisterMasks()
	c.Rep = reporters.DeployReportOf(res, c.Rep.FullReportHint)
	c.Outputs = map[string]map[string]string{}
	for _, s := range c.Rep.Stacks {
		if s.Outputs == nil {
			continue // not read
		}
		outs := map[string]string{}
		for _, o := range s.Outputs {
			outs[o.Name] = o.Value
		}
		c.Outputs[s.Stack] = outs
	}
}

// FinishWith publishes the report with publish (a deploy's, or a merge
// group's check) and says how the run ends. After a cancellation the
// job's context is gone, so the report gets a short one of its own.
func (c *Check) FinishWith(ctx context.Context, publish func(context.Context) error) outcome.Outcome {
	o := c.Opts
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), cancelledReportTimeout)
		defer cancel()
		o.Channels.ReportBudget = cancelledReportTimeout
	}
	apiErr := publish(ctx)
	if c.Reason != "" {
		msg := joinReason(reporters.DeployHeadline(c.Rep), c.Rep.Message)
		return outcome.Failed(c.Reason, errors.New(msg))
	}
	if apiErr != nil {
		return outcome.Failed(reason.APIFailed, apiErr)
	}
	line := reporters.DeployHeadline(c.Rep)
	if c.Rep.Group != nil {
		line += ": " + c.Rep.Message // which pull requests' reviews cover it
	}
	o.Log.Notice(o.Secrets.Set.OneLine(line))
	return outcome.Succeeded()
}

// isCdkdError reports a failure of cdkd itself (or of finding it), as
// opposed to one of the GitHub API.
func isCdkdError(err error) bool {
	var cerr *cdkd.Error
	return errors.As(err, &cerr) || errors.Is(err, cdkd.ErrNotFound)
}
