// Package gate decides whether a deploy may go ahead: the change set about
// to be applied must be the one reviewers saw in the pull request's diff
// comment, at the pull request's final head, and anything destructive in it
// must be allowed. It holds the decision only; finding the review and
// computing the change set are behind small interfaces the caller provides.
//
// The decision is a list of rules (rules.go), one small type per file
// (rule_*.go), run in the order of that list. A rule names its failure
// reason (internal/reason, which gives the exit code) and whether
// require-reviewed-diff: false turns its refusal into a warning; the runner
// (state.run) makes that call for every rule, in one place.
//
// Adding a rule is one file and one line in rules: docs/architecture.md
// ("The gate's rules") shows an example.
package gate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// Reason is why a deploy was refused: a failure reason of internal/reason's
// list, which gives its exit code. Each rule (rules.go) names its own.
type Reason = reason.Reason

// Reviews finds the review of the commit being deployed.
type Reviews interface {
	Review(ctx context.Context) (Review, error)
}

// ChangeSets computes the change set about to be deployed.
type ChangeSets interface {
	// layout is the review's (Review.Layout; 0: none, the latest).
	ChangeSet(ctx context.Context, layout int) (Current, error)
}

// Decision is the gate's answer and everything the report says about it.
type Decision struct {
	Deploy bool
	// Reason is set when Deploy is false.
	Reason Reason
	// Title is a short headline for the check run.
	Title string
	// Message is one sentence: why, in the reader's terms.
	Message string
	// Reviewed is true when what is deployed is exactly the reviewed
	// change set.
	Reviewed bool
	// Warnings are problems that did not stop the deploy because
	// require-reviewed-diff is false.
	Warnings []string
	// Notes are what the report says of the setup the decision rests on
	// (a review record any workflow could write), whatever the outcome.
	Notes []string
	// Comparison lists what differs from the reviewed change set, when the
	// digests differ and the comment carried the reviewed one.
	Comparison *model.Comparison
	// ComparisonNote says why the difference cannot be listed, when it
	// cannot.
	ComparisonNote string
	// Differs names, per pull request, the changes its review holds
	// otherwise than the change set makes them (see Coverage.Differs).
	Differs map[int][]string
	// Destructive is every delete and replacement in the change set, each
	// allowed or not.
	Destructive []Destructive
	// Current is the change set the decision was about; nil when the gate
	// refused before computing it.
	Current *Current
	// Lacking says, per pull request, what approval it lacks, when an
	// approval rule refused (a merge queue's report names each).
	Lacking map[int]string
	// Approval names who approved, "" when nobody did; Unapproved is
	// then the warning a deploy that needed no approval gets.
	Approval, Unapproved string
}

// Destructive is one delete or replacement.
type Destructive struct {
	Stack     string // display path
	Region    string
	LogicalID string
	Type      string
	Action    model.Action // delete or replace
	// ForcedBy are the property paths that force a replacement.
	ForcedBy []string
	// AllowedBy says which input allowed it; "" means refused.
	AllowedBy string
	// UnknownType marks a change type this version does not know (Action
	// is cdkd's name for it): destructive until proven otherwise.
	UnknownType bool
}

// Evaluate finds the review, refuses early what needs no change set to
// refuse (the rules that read the review alone), computes the current
// change set and decides. An error from the review source stops the deploy
// when a reviewed diff is required (the review cannot be verified);
// otherwise it becomes a warning.
func Evaluate(ctx context.Context, p Policy, reviews Reviews, changes ChangeSets) (Decision, error) {
	rv, err := reviews.Review(ctx)
	var warn string
	if err != nil {
		if p.RequireReviewedDiff {
			return Decision{}, fmt.Errorf("find the reviewed diff: %w", err)
		}
		warn = fmt.Sprintf("could not read the reviewed diff (%v)", err)
		rv = Review{Commit: rv.Commit, Note: "the review could not be read"}
	}
	if p.RequireReviewedDiff {
		d := Decision{Notes: setupNotes(p)}
		s := &state{p: p, rv: rv, d: &d}
		if s.run(selected(func(a about) bool { return a.early })) {
			return d, nil
		}
	}
	cur, err := changes.ChangeSet(ctx, rv.Layout)
	if err != nil {
		return Decision{}, err
	}
	d := Decide(p, rv, cur)
	if warn != "" {
		d.Warnings = append([]string{warn}, d.Warnings...)
	}
	return d, nil
}

// Decide is the whole decision, given the review and the current change
// set: the rules, in order, then what the report says of a deploy.
func Decide(p Policy, rv Review, cur Current) Decision {
	d := Decision{Current: &cur, Notes: setupNotes(p)}
	if rv.Rerender != nil && rv.Tampered == "" && rv.Digest != "" && rv.Digest == cur.Digest {
		rv.Tampered = rv.Rerender(cur.Diff)
	}
	s := &state{p: p, rv: rv, cur: &cur, d: &d}
	refused := s.run(rules)
	// Reviewed: no rule about the review found anything, and the change
	// set is the reviewed one, or every change in it a reviewed one.
	covered := s.covered()
	d.Reviewed = s.unreviewed == 0 && (rv.Digest == cur.Digest || covered) && rv.Record != nil
	if refused {
		return d
	}
	d.Approval = approvedBy(p, rv, cur)
	if !approvedAtAll(p, rv, cur) {
		d.Unapproved = unapproved(rv)
	}
	d.Deploy = true
	switch {
	case d.Reviewed && covered:
		d.Title = "Deploying reviewed changes"
		d.Message = fmt.Sprintf("Every change is one reviewed in %s.", reviewedIn(rv))
	case d.Reviewed:
		d.Title = "Deploying the reviewed change set"
		d.Message = fmt.Sprintf("The change set is the one reviewed in pull request #%d at %s.", rv.PR, short(rv.ReviewedSHA))
	default:
		d.Title = "Deploying an unreviewed change set"
		d.Message = "The change set was not verified against a review (require-reviewed-diff is false); its digest is " + shortDigest(cur.Digest) + "."
	}
	return d
}

// GitHubActionsApp is the app of check runs written with GITHUB_TOKEN.
const GitHubActionsApp = "github-actions"

// SharedRecordNote says what trusting github-actions' check runs means.
const SharedRecordNote = "trusted-app is github-actions: any workflow of this repository that uses GITHUB_TOKEN can write the diff check run that vouches for a review. " +
	"Run the diff with a dedicated GitHub App's token and set trusted-app to its slug, so only that app's check runs vouch for a review."

// setupNotes are the notes on the policy itself.
func setupNotes(p Policy) []string {
	if p.RequireReviewedDiff && (p.TrustedApp == "" || strings.EqualFold(p.TrustedApp, GitHubActionsApp)) {
		return []string{SharedRecordNote}
	}
	return nil
}

func compare(cs *ChangeSet, cur model.Diff) (*model.Comparison, string) {
	switch {
	case cs == nil:
		return nil, "The reviewed comment does not carry the reviewed change set (it was written by an older cdkd-action, or the change set was too large to store), so the difference cannot be listed; compare the diff comment with this report."
	case cs.Diff != nil:
		c := model.Compare(*cs.Diff, cur)
		return &c, ""
	default:
		c := model.CompareFingerprints(cs.Fingerprints, cur)
		return &c, "The reviewed change set was too large to store whole: the items that differ are listed, not how."
	}
}

// uncovered names the stacks the deploy would touch that the reviewed change
// set does not hold (a dependency, a stack a wildcard now matches); nil when
// the reviewed change set is not stored whole.
func uncovered(cs *ChangeSet, cur model.Diff) []string {
	if cs == nil || cs.Diff == nil {
		return nil
	}
	reviewed := map[string]bool{}
	cs.Diff.Walk(func(path string, s model.StackDiff) { reviewed[path+"\x00"+s.Region] = true })
	var out []string
	cur.Walk(func(path string, s model.StackDiff) {
		if !reviewed[path+"\x00"+s.Region] {
			out = append(out, path)
		}
	})
	return out
}

// cdkdChange says, when the reviewed diff and this deploy ran different cdkd
// releases, that the difference may be cdkd's: a new release can print the
// same change another way. "" when they ran the same one, or one is unknown.
func cdkdChange(reviewed, current string) string {
	if reviewed == "" || current == "" || reviewed == current {
		return ""
	}
	return fmt.Sprintf("; the reviewed diff ran cdkd %s and this deploy runs cdkd %s, which may print the same change differently: re-run the pull request's diff with cdkd %s (or pin cdkd-version)",
		reviewed, current, current)
}

// reviewedIn names the pull requests whose reviews count.
func reviewedIn(rv Review) string {
	prs := make([]int, 0, 1+len(rv.Batch))
	for _, one := range rv.all() {
		prs = append(prs, one.PR)
	}
	slices.Sort(prs)
	return prList(prs)
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// shortDigest is enough of a digest to tell two apart in a message.
func shortDigest(d string) string { return model.ShortDigest(d) }
