package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/review"
)

const (
	// deployKillGrace is how long cdkd gets, after SIGINT, to release its
	// lock. The runner escalates about 10 seconds after it cancels a job;
	// this leaves time to report.
	deployKillGrace = 4 * time.Second
	// cancelledReportTimeout bounds the reporting done after a
	// cancellation, when the job's own context is already gone.
	cancelledReportTimeout = 4 * time.Second
)

// deployRun is one deploy command: the gate, cdkd deploy, and the report.
type deployRun struct {
	r       *Env
	reviews *review.Finder
	changes *currentChangeSet

	rep     reporters.DeployReport
	outputs map[string]map[string]string // stack → output → value, masked
	reason  FailureReason
	envURL  string
	// dryRunArgs is the cdkd deploy a --dry-run would have run (nil: the
	// gate did not get that far).
	dryRunArgs []string

	// deployment is the GitHub deployment started before cdkd deploy ran
	// (nil: none).
	deployment *publish.Deployment

	// maskMu serialises registering masks while stacks are read back in
	// parallel.
	maskMu sync.Mutex
	// noEvents says, per stack (name NUL region), why this deploy's events of it
	// are unknown: its secret positions' fingerprints cannot be recorded.
	noEvents   map[string]string
	noEventsMu sync.Mutex
}

// deployCommand runs `cdkd deploy`, but only when the change set is the one
// the pull request's reviewers saw (see package gate), and reports on every
// channel.
type deployCommand struct{}

func (deployCommand) Run(ctx context.Context, r *Env) Outcome {
	d := newDeployRun(r)
	d.decideAndDeploy(ctx)
	d.redact()
	if r.cfg.CLI.DryRun {
		if o, done := d.dryRun(ctx); done {
			return o
		}
	}
	return d.finish(ctx)
}

// newDeployRun is a deploy of GITHUB_SHA, its review still to be found.
func newDeployRun(r *Env) *deployRun {
	return &deployRun{
		r:       r,
		reviews: r.reviewFinder(),
		changes: &currentChangeSet{r: r},
		rep: reporters.DeployReport{
			Label:          r.cfg.Label,
			SHA:            r.gh.SHA,
			RunURL:         r.gh.RunURL,
			FullReportHint: r.fullReportHint(),
		},
		outputs: map[string]map[string]string{},
	}
}

func (d *deployRun) decideAndDeploy(ctx context.Context) {
	if dec, ok := d.decide(ctx); ok {
		d.apply(ctx, dec)
	}
}

// decide runs the gate and puts its decision in the report; ok is true
// when it would deploy.
func (d *deployRun) decide(ctx context.Context) (dec gate.Decision, ok bool) {
	r := d.r
	dec, err := gate.Evaluate(ctx, r.gatePolicy(d.reviews.Bot(ctx)), d.reviews, d.changes)
	d.describeReview()
	d.rep.CdkdVersion, d.rep.CdkdSource = d.changes.version, r.cdkdSource()
	switch {
	case ctx.Err() != nil:
		d.stopped(cdkd.Result{Cancelled: true}, nil)
		return dec, false
	case err != nil && d.reviews.Err != nil && !isCdkdError(err):
		d.failed(ReasonAPIFailed, "Could not read the review", fmt.Sprintf("Could not read the pull request's reviewed diff, so it cannot be verified: %v. Not deploying.", err), nil)
		return dec, false
	case err != nil:
		var cerr *cdkd.Error
		var tail []string
		if errors.As(err, &cerr) {
			tail = cerr.StderrTail
		}
		d.failed(cdkdReason(err, ReasonCdkdFailed), "cdkd diff failed", fmt.Sprintf("The change set could not be computed, so it cannot be checked against the review: %v. Not deploying.", err), tail)
		return dec, false
	}
	d.fromDecision(dec)
	if !dec.Deploy {
		d.reason = FailureReason(dec.Reason)
		d.rep.Outcome, d.rep.Reason = reporters.OutcomeRefused, d.reason.String()
		return dec, false
	}
	return dec, true
}

// gatePolicy is the gate's policy from the inputs; bot is the login
// trusted diff comments are written by.
func (r *Env) gatePolicy(bot string) gate.Policy {
	return gate.Policy{
		RequireReviewedDiff:   r.cfg.RequireReviewedDiff,
		RequireApproval:       string(r.cfg.RequireApproval),
		SecurityApprovalLabel: r.cfg.SecurityApprovalLabel,
		RequiredApprovals:     r.cfg.RequiredApprovals,
		AllowDestructive:      r.cfg.AllowDestructive,
		DestructiveLabel:      r.cfg.DestructiveLabel,
		AllowDestroyTypes:     r.cfg.AllowDestroyTypes,
		Bot:                   bot,
		TrustedApp:            r.cfg.TrustedApp,
	}
}

// reviewFinder is the review lookup, wired to this run's GitHub client,
// identity and inputs.
func (r *Env) reviewFinder() *review.Finder {
	f := &review.Finder{
		Identity: r.ident(),
		Warn:     func(msg string) { r.runner.Warning(msg) },
		Redactor: r.set,
		Stored:   r.storedChangeSet,
		Where: review.Where{
			SHA:    r.gh.SHA,
			Branch: r.gh.Branch(), Ref: r.gh.Ref, EventName: r.gh.EventName,
			Label: r.cfg.Label, DiffCheck: checkName("cdkd diff", r.cfg.Label), DeployCheck: checkName("cdkd deploy", r.cfg.Label),
			TrustedApp: r.cfg.TrustedApp, DestructiveLabel: r.cfg.DestructiveLabel,
			KeyIDField: fingerprintKeyIDField, Local: r.local, Before: r.gh.Before,
			Approval: review.Approval{Needed: r.cfg.RequiredApprovals > 0 || r.cfg.RequireApproval != config.ApprovalNever,
				Approvers: r.cfg.Approvers},
		},
	}
	if r.cfg.RequireApproval != config.ApprovalNever {
		f.Where.Approval.Label = r.cfg.SecurityApprovalLabel
	}
	if r.gh.PR != nil {
		f.Where.EventPR = r.gh.PR.Number
	}
	if r.api != nil {
		f.API = reviewSource{api: r.api, owner: r.gh.Owner, repo: r.gh.Repo, warn: f.Warn}
	}
	return f
}

// describeReview adds what the review lookup found to the report.
func (d *deployRun) describeReview() {
	if f := d.reviews; f.PR != nil {
		d.rep.PR = f.PR.Number
	}
	if f := d.reviews; f.Comment != nil {
		d.rep.ReviewedSHA = f.Header.SHA
		d.rep.ReviewURL = f.Comment.HTMLURL
	}
}

// fromDecision copies what the gate found into the report.
func (d *deployRun) fromDecision(dec gate.Decision) {
	d.rep.Title, d.rep.Message = dec.Title, dec.Message
	if dec.Deploy && dec.Approval != "" {
		d.rep.Message += " " + dec.Approval
	}
	d.rep.Reviewed = dec.Reviewed
	// The notes are the report's, not the log's: they hold on every run.
	d.rep.Warnings = append(slices.Clip(dec.Warnings), dec.Notes...)
	if dec.Unapproved != "" {
		// A warning in the log and the report: nobody approved.
		dec.Warnings = append(slices.Clip(dec.Warnings), dec.Unapproved)
		d.rep.Warnings = append(d.rep.Warnings, dec.Unapproved)
	}
	d.rep.Comparison, d.rep.ComparisonNote = dec.Comparison, dec.ComparisonNote
	if dec.Current != nil {
		d.rep.Digest = dec.Current.Digest
	}
	for _, x := range dec.Destructive {
		d.rep.Destructive = append(d.rep.Destructive, reporters.DestructiveChange{
			Stack: x.Stack, LogicalID: x.LogicalID, Type: x.Type, Action: x.Action, ForcedBy: x.ForcedBy, AllowedBy: x.AllowedBy,
		})
	}
	for _, w := range dec.Warnings {
		d.r.runner.Warning(w)
	}
}

func (d *deployRun) failed(reason FailureReason, title, msg string, tail []string) {
	d.rep.Outcome, d.rep.Reason, d.rep.Title, d.rep.Message = reporters.OutcomeFailed, reason.String(), title, msg
	d.rep.StderrTail = tail
	d.reason = reason
}

// stopped reports a deploy stopped before or during cdkd deploy: the job
// was cancelled (cancelled), or cdkd ran longer than timeout-minutes
// (timeout). What it says of the state lock is what cdkd.LockState can
// vouch for: a release only when cdkd said so.
func (d *deployRun) stopped(res cdkd.Result, targets []cdkd.Target) {
	reason, title := ReasonCancelled, "Deploy cancelled"
	if res.TimedOut {
		reason, title = ReasonTimeout, "Deploy timed out"
	}
	// LockState says why cdkd stopped (timeout-minutes, the job's
	// cancellation, a kill after the grace period) and, per stack, what
	// cdkd said of its lock.
	msg := cdkd.LockState(res, targets)
	if len(res.Args) == 0 {
		msg = "The job was cancelled before cdkd deploy started; nothing was deployed."
	}
	d.rep.Outcome, d.rep.Reason, d.rep.Title, d.rep.Message = reporters.OutcomeCancelled, reason.String(), title, msg
	d.reason = reason
}

// deployTargets are the stacks of the change set, for force-unlock.
func deployTargets(cur *gate.Current) []cdkd.Target {
	if cur == nil {
		return nil
	}
	var out []cdkd.Target
	for _, s := range cur.Diff.Stacks {
		out = append(out, cdkd.Target{Stack: s.Stack, Region: s.Region})
	}
	return out
}

// redact is the deploy's redaction stage, run once between the deploy and
// its report: it masks the secret stack outputs and redacts every string of
// the report (see redact.Deploy), registers the values it learned, and
// takes the stack-outputs output from the redacted report.
func (d *deployRun) redact() {
	res := d.rep.Result()
	redact.Deploy(&res, redact.Input{Set: d.r.set, Positions: d.r.positions()})
	d.r.registerMasks()
	d.rep = reporters.DeployReportOf(res, d.rep.FullReportHint)
	d.outputs = map[string]map[string]string{}
	for _, s := range d.rep.Stacks {
		if s.Outputs == nil {
			continue // not read
		}
		outs := map[string]string{}
		for _, o := range s.Outputs {
			outs[o.Name] = o.Value
		}
		d.outputs[s.Stack] = outs
	}
}

// finish publishes the report and sets the outputs. After a cancellation
// the job's context is gone, so the report gets a short one of its own.
func (d *deployRun) finish(ctx context.Context) Outcome {
	return d.finishWith(ctx, d.publish)
}

// finishWith is finish with the report written by publish (a deploy's,
// or a merge group's check).
func (d *deployRun) finishWith(ctx context.Context, publish func(context.Context) error) Outcome {
	r := d.r
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), cancelledReportTimeout)
		defer cancel()
		r.reportBudget = cancelledReportTimeout
	}
	apiErr := publish(ctx)
	if d.reason != "" {
		msg := joinReason(reporters.DeployHeadline(d.rep), d.rep.Message)
		return failed(d.reason, errors.New(msg))
	}
	if apiErr != nil {
		return failed(ReasonAPIFailed, apiErr)
	}
	line := reporters.DeployHeadline(d.rep)
	if d.rep.Group != nil {
		line += ": " + d.rep.Message // which pull requests' reviews cover it
	}
	r.runner.Notice(r.set.OneLine(line))
	return succeeded()
}

// deployedOutput is the deployed output: true, false, or partial when cdkd
// changed some resources before it stopped (exit 2, a timeout, a
// cancellation, a kill, a failure), or may have and it is not known:
// saying false then would hide that the stacks are no longer what they
// were.
func deployedOutput(rep reporters.DeployReport) string {
	switch rep.Outcome {
	case reporters.OutcomeDeployed:
		return "true"
	case reporters.OutcomePartial, reporters.OutcomeCancelled, reporters.OutcomeFailed:
		// Stopped, killed or failed midway: false only when nothing is
		// known to have changed, and nothing could have unseen.
		for _, s := range rep.Stacks {
			if s.Created+s.Updated+s.Deleted > 0 || s.ChangesUnknown {
				return "partial"
			}
		}
	}
	return "false"
}

// isCdkdError reports a failure of cdkd itself (or of finding it), as
// opposed to one of the GitHub API.
func isCdkdError(err error) bool {
	var cerr *cdkd.Error
	return errors.As(err, &cerr) || errors.Is(err, cdkd.ErrNotFound)
}
