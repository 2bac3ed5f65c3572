// Package publish is the one way a report leaves the action: a command
// builds a Publication (what: the result, its renderings, the check-run
// fields, the comment header) and a Publisher writes it to a list of
// Targets (where: PR comment, deploy section, check run, tracking issue,
// deployment status, job summary, step outputs, report JSON, stdout). A
// local run is a list without the API targets. A target receives the
// publication as a View whose every text the redactor produced
// (redacted.Text), so none can forget to redact; every failed write is said
// in the log, and a missing permission becomes a warning here and nowhere
// else.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/redacted"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Publication is what a command reports. The fields a target needs and
// finds nil make that target write nothing.
type Publication struct {
	// Kind names the report ("diff", "drift", "deploy"): the report JSON's
	// file name.
	Kind string
	// Result is the typed result, written as the report JSON.
	Result any
	// Render is the report within a channel's budget (job summary, check
	// run, stdout, deploy section).
	Render func(reporters.Budget) string
	// Outputs are the result's step outputs (counts, digest, status).
	Outputs map[string]string

	// SummaryNote, when set, is a line the SummaryNote target appends to
	// the job summary from what the targets before it wrote ("": none);
	// ResultAfter, when set, is the typed result as it reads once they
	// wrote, which the same target writes over the report JSON.
	SummaryNote func(w *Written) string
	ResultAfter func(w *Written) any

	CheckRun   *CheckRunFields
	Comment    *CommentFields
	Issue      *IssueFields
	Deployment *DeploymentFields
}

// CheckRunFields are the check run's own words; the summary is Render's.
type CheckRunFields struct {
	Name       string
	HeadSHA    string // "" means no commit to attach it to: none is created
	Conclusion string
	Title      string
	// ExternalID, when set, vouches for what the targets before the check
	// run wrote (the comment holding the review).
	ExternalID func(w *Written) string
	// Summary, when set, is the check run's summary in place of the
	// publication's Render: a report that says what the targets before it
	// wrote (where the diff's picture is, once the comment was written).
	Summary func(b reporters.Budget, w *Written) string
}

// CommentFields are the sticky PR comment's: its hidden header and the
// comment rendered within a budget. Render gets the header without the
// content hash, which the target adds.
type CommentFields struct {
	Header marker.Header
	Render func(marker.Header, reporters.Budget) prcomment.Comment
}

// IssueFields are the tracking issue's. Content decides the issue's state
// and body once the existing issue (nil: none) is known.
type IssueFields struct {
	Kind, Label string
	// What names the issue in the log and in errors ("drift tracking issue").
	What    string
	Content func(found *github.Issue) github.IssueContent
	// Notices are said in the log, by what was done (github.ActionCreated,
	// ...), each followed by the issue's URL.
	Notices map[string]string
}

// DeploymentFields are the final status of the deployment started by
// Deployment.Start.
type DeploymentFields struct {
	State          string // "success" or "failure"
	EnvironmentURL string
	Description    string
}

// Written is what the targets wrote so far, for the targets after them.
type Written struct {
	// ReportJSON is the report JSON's path ("" when it was not written).
	ReportJSON string
	// Comment is the PR comment now holding the report or the deploy
	// section (ID 0 when none was written).
	Comment github.Comment
	// Recorded is set once the check run was created (see
	// DeploySection.Recorded).
	Recorded bool
	// Wrote is the body this run made the sticky comment hold, and Reread
	// reads that comment again (the lowest id of ours, ID 0 when there is
	// none): a racing run may have written its own report into it since.
	// Reread is nil when no sticky comment was written.
	Wrote  string
	Reread func(ctx context.Context) (github.Comment, error)
}

// Target is one place a publication goes. It receives the publication
// as a View, whose texts are all redacted.Text: a target cannot be handed
// text the redactor did not produce (internal/archtest holds this).
type Target interface {
	// Publish writes what of v concerns the target. A returned error is
	// handled by the Publisher according to Policy.
	Publish(ctx context.Context, pub *Publisher, v *View, w *Written) error
	Policy(v *View) Policy
}

// Policy says how a target's failure is reported.
type Policy struct {
	// What names what a failed write did not post ("the pull request
	// comment").
	What string
	// Denied, when set, is the warning (formatting the error with %v) for
	// a missing permission, which then does not fail the run: a fork's
	// token cannot write, and the report is still in the job summary.
	Denied string
	// Optional failures are said in the log but do not fail the run.
	Optional bool
	// Errors reads the target's errors: which mean a missing permission,
	// and the status a failed write names. nil: none is a missing
	// permission and every one is "no answer".
	Errors ErrorReader
}

// ErrorReader reads the errors of one kind of sink, so that the Publisher
// reports every sink's failures alike without knowing what it talks to.
type ErrorReader interface {
	// Denied reports whether err is a missing permission.
	Denied(err error) bool
	// Status names the answer err carries ("HTTP 502"); "" when none came.
	Status(err error) string
}

// Log is where the publisher speaks: the runner's log commands.
type Log interface {
	Info(msg string)
	Notice(msg string, props ...workflow.Prop)
	Warning(msg string, props ...workflow.Prop)
	Error(msg string, props ...workflow.Prop)
}

// Redactor is the secret Set: every text passes it before it reaches a
// target.
type Redactor interface {
	redacted.Redactor
	RedactBytes([]byte) []byte
	// OneLine redacts and folds text to one line.
	OneLine(string) string
	// Contains reports whether text holds a secret Redact would hide.
	Contains(string) bool
	// RedactExceptBlobs is Redact as review layouts 1 to 3 redacted:
	// without looking inside encoded blobs.
	RedactExceptBlobs(string) string
}

// Publisher runs the targets of a publication in order.
type Publisher struct {
	Log     Log
	Secrets Redactor
	// SetOutput records a step output (written, redacted, at the end of
	// the run).
	SetOutput func(name, value string)
	// ReportBudget is the time a cancelled run's last report was given; 0
	// while the job's own context is live.
	ReportBudget time.Duration
	// Encode writes a result as JSON and a newline, every byte through
	// redact; nil is json.Marshal of the whole.
	Encode func(w io.Writer, v any, redact func([]byte) []byte) error
}

// Publish writes p to each target in order. A write that failed is said
// in the log; the API errors that are no missing permission (and whose
// target is not optional) are returned, joined, for the exit code.
func (pub *Publisher) Publish(ctx context.Context, p *Publication, targets ...Target) error {
	w := &Written{}
	v := pub.view(p)
	var errs []error
	for _, t := range targets {
		if err := pub.Failed(ctx, t.Policy(v), t.Publish(ctx, pub, v, w)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Failed is the one place a failed write is handled: a missing permission
// becomes the policy's warning; anything else is said in the log (what was
// not posted, the sink's status and why) and returned unless optional.
// What a sink's errors mean is the policy's ErrorReader: the Publisher
// knows no sink.
func (pub *Publisher) Failed(ctx context.Context, pol Policy, err error) error {
	if err == nil {
		return nil
	}
	if pol.Denied != "" && pol.Errors != nil && pol.Errors.Denied(err) {
		pub.warn(fmt.Sprintf(pol.Denied, err))
		return nil
	}
	status := "no answer"
	if pol.Errors != nil {
		if s := pol.Errors.Status(err); s != "" {
			status = s
		}
	}
	// Redacted before folding, and again at the sink.
	msg := fmt.Sprintf("%s was not posted (%s): %s", pol.What, status, pub.Secrets.OneLine(err.Error()))
	if pub.ReportBudget > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg += fmt.Sprintf("; the %s given to the report after the cancellation ran out", pub.ReportBudget)
	}
	pub.warn(msg)
	if pol.Optional {
		return nil
	}
	return err
}

func (pub *Publisher) warn(msg string) { pub.Log.Warning(pub.Secrets.Redact(msg)) }

// Redact is s as the publisher's redactor redacts it: the text a target's
// method takes from a caller (Summary.Write, Deployment.Start).
func (pub *Publisher) Redact(s string) redacted.Text { return redacted.Redact(pub.Secrets, s) }

func (pub *Publisher) output(name, value string) {
	if name != "" && pub.SetOutput != nil {
		pub.SetOutput(name, value)
	}
}
