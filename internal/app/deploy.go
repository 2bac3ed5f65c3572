package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/reporters"
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
	r       *run
	reviews *prReviews
	changes *currentChangeSet

	rep      reporters.DeployReport
	outputs  map[string]map[string]string // stack → output → value, masked
	reason   FailureReason
	envURL   string
	deployID int64
}

// deploy runs `cdkd deploy`, but only when the change set is the one the pull
// request's reviewers saw (see package gate), and reports on every channel.
func (r *run) deploy(ctx context.Context) ExitCode {
	d := &deployRun{
		r:       r,
		reviews: &prReviews{r: r},
		changes: &currentChangeSet{r: r},
		rep: reporters.DeployReport{
			Label:          r.cfg.Label,
			SHA:            r.gh.SHA,
			RunURL:         r.gh.RunURL,
			FullReportHint: r.fullReportHint(),
		},
		outputs: map[string]map[string]string{},
	}
	d.decideAndDeploy(ctx)
	return d.finish(ctx)
}

func (d *deployRun) decideAndDeploy(ctx context.Context) {
	r := d.r
	policy := gate.Policy{
		RequireReviewedDiff: r.cfg.RequireReviewedDiff,
		AllowDestructive:    r.cfg.AllowDestructive,
		DestructiveLabel:    r.cfg.DestructiveLabel,
		AllowDestroyTypes:   r.cfg.AllowDestroyTypes,
		Bot:                 d.reviews.bot(ctx),
	}
	dec, err := gate.Evaluate(ctx, policy, d.reviews, d.changes)
	d.reviews.describe(&d.rep)
	d.rep.CdkdVersion = d.changes.version
	switch {
	case ctx.Err() != nil:
		d.cancelled(false, false)
		return
	case err != nil && d.reviews.err != nil && !isCdkdError(err):
		d.failed(ReasonAPIFailed, "Could not read the review", fmt.Sprintf("Could not read the pull request's reviewed diff, so it cannot be verified: %v. Not deploying.", err), nil)
		return
	case err != nil:
		var cerr *cdkd.Error
		var tail []string
		if errors.As(err, &cerr) {
			tail = cerr.StderrTail
		}
		d.failed(ReasonCdkdFailed, "cdkd diff failed", fmt.Sprintf("The change set could not be computed, so it cannot be checked against the review: %v. Not deploying.", err), tail)
		return
	}
	d.fromDecision(dec)
	if !dec.Deploy {
		d.reason = FailureReason(dec.Reason)
		d.rep.Outcome, d.rep.Reason = reporters.OutcomeRefused, d.reason.String()
		return
	}
	d.apply(ctx, dec)
}

// fromDecision copies what the gate found into the report.
func (d *deployRun) fromDecision(dec gate.Decision) {
	d.rep.Title, d.rep.Message = dec.Title, dec.Message
	d.rep.Reviewed = dec.Reviewed
	d.rep.Warnings = dec.Warnings
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
	d.rep.StderrTail = d.r.redactLines(tail)
	d.reason = reason
}

// cancelled reports a job cancelled (or timed out) before or during cdkd
// deploy.
func (d *deployRun) cancelled(duringDeploy, timedOut bool) {
	msg := "The job was cancelled before cdkd deploy started; nothing was deployed."
	switch {
	case timedOut:
		msg = fmt.Sprintf("cdkd deploy ran longer than timeout-minutes (%s) and was stopped.", d.r.cfg.Timeout)
	case duringDeploy:
		msg = "The job was cancelled while cdkd deploy ran."
	}
	if duringDeploy {
		msg += " cdkd was interrupted (SIGINT) so that it could release its lock; its log shows what it finished."
	}
	d.rep.Outcome, d.rep.Reason, d.rep.Title, d.rep.Message = reporters.OutcomeCancelled, ReasonCancelled.String(), "Deploy cancelled", msg
	d.reason = ReasonCancelled
}

// finish publishes the report and sets the outputs. After a cancellation
// the job's context is gone, so the report gets a short one of its own.
func (d *deployRun) finish(ctx context.Context) ExitCode {
	r := d.r
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), cancelledReportTimeout)
		defer cancel()
	}
	d.rep.Message = r.set.Redact(d.rep.Message)
	for i, w := range d.rep.Warnings {
		d.rep.Warnings[i] = r.set.Redact(w)
	}
	r.setOutput(OutputDeployed, fmt.Sprint(d.rep.Outcome == reporters.OutcomeDeployed))
	r.setOutput(OutputStackOutputs, stackOutputsJSON(d.outputs))
	apiErr := d.publish(ctx)
	if d.reason != "" {
		msg := reporters.DeployHeadline(d.rep)
		if d.rep.Message != "" {
			msg += ": " + d.rep.Message
		}
		return r.fail(d.reason, errors.New(msg), nil)
	}
	if apiErr != nil {
		return r.fail(ReasonAPIFailed, apiErr, nil)
	}
	r.runner.Notice(oneLine(reporters.DeployHeadline(d.rep)))
	return ExitOK
}

// isCdkdError reports a failure of cdkd itself (or of finding it), as
// opposed to one of the GitHub API.
func isCdkdError(err error) bool {
	var cerr *cdkd.Error
	return errors.As(err, &cerr) || errors.Is(err, cdkd.ErrNotFound)
}

func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
