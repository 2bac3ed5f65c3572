// Package gate decides whether a deploy may go ahead: the change set about
// to be applied must be the one reviewers saw in the pull request's diff
// comment, at the pull request's final head, and anything destructive in it
// must be allowed. It holds the decision only; finding the review and
// computing the change set are behind small interfaces the caller provides.
package gate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// Reason is why a deploy was refused; the values are the action's
// failure-reason output.
type Reason string

const (
	// DiffChanged: the change set differs from the reviewed one.
	DiffChanged Reason = "diff-changed"
	// StaleReview: the review was computed at an older head than the pull
	// request's final one.
	StaleReview Reason = "stale-review"
	// NoReviewedDiff: no pull request, or no trusted diff comment with a
	// digest on it.
	NoReviewedDiff Reason = "no-reviewed-diff"
	// DestructiveRefused: a delete or replacement nobody allowed.
	DestructiveRefused Reason = "destructive-refused"
	// DiffUnverifiable: the change set hides values that were not
	// fingerprinted (too many distinct ones), so what is behind its masks
	// cannot be compared with the review.
	DiffUnverifiable Reason = "diff-unverifiable"
	// FingerprintKeyMismatch: the review fingerprinted the values behind
	// its masks with another fingerprint-key than the deploy's.
	FingerprintKeyMismatch Reason = "fingerprint-key-mismatch"
	// ReviewsContradict: two pull requests merged in one push reviewed one
	// change with different outcomes.
	ReviewsContradict Reason = "reviews-contradict"
)

// Reviews finds the review of the commit being deployed.
type Reviews interface {
	Review(ctx context.Context) (Review, error)
}

// ChangeSets computes the change set about to be deployed.
type ChangeSets interface {
	ChangeSet(ctx context.Context) (Current, error)
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
// refuse, computes the current change set and decides. An error from the
// review source stops the deploy when a reviewed diff is required (the
// review cannot be verified); otherwise it becomes a warning.
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
		if d, refused := reviewProblem(p, rv); refused {
			d.Notes = setupNotes(p)
			return d, nil
		}
	}
	cur, err := changes.ChangeSet(ctx)
	if err != nil {
		return Decision{}, err
	}
	d := Decide(p, rv, cur)
	if warn != "" {
		d.Warnings = append([]string{warn}, d.Warnings...)
	}
	return d, nil
}

// Decide is the whole decision, given the review and the current change set.
func Decide(p Policy, rv Review, cur Current) Decision {
	d := Decision{Current: &cur, Notes: setupNotes(p)}
	if rv.Rerender != nil && rv.Tampered == "" && rv.Digest != "" && rv.Digest == cur.Digest {
		rv.Tampered = rv.Rerender(cur.Diff)
	}
	problem, flawed := reviewProblem(p, rv)
	if flawed {
		if p.RequireReviewedDiff {
			problem.Current, problem.Notes = &cur, d.Notes
			return problem
		}
		d.Warnings = append(d.Warnings, strings.TrimSuffix(problem.Message, ": not deploying.")+"; deploying anyway because require-reviewed-diff is false")
	}
	usable := rv.PR != 0 && rv.Comment && rv.Digest != ""
	for _, one := range rv.all() {
		if one.PR == 0 || !one.Comment || one.Digest == "" || one.ReviewedSHA == "" || one.Record != nil {
			continue
		}
		msg := unrecorded(one)
		if p.RequireReviewedDiff {
			d.Reason, d.Title = NoReviewedDiff, "Review cannot be verified"
			d.Message = msg + ": not deploying. Run the diff with check-run: true, or set require-reviewed-diff: false."
			return d
		}
		d.Warnings = append(d.Warnings, msg+"; deploying anyway because require-reviewed-diff is false")
		break
	}
	if r, title, msg, hint, ok := maskIssue(rv, cur, usable); ok {
		if p.RequireReviewedDiff {
			d.Reason, d.Title, d.Message = r, title, strings.TrimSpace(msg+": not deploying. "+hint)
			return d
		}
		d.Warnings = append(d.Warnings, msg+"; deploying anyway because require-reviewed-diff is false")
	}
	covered, by, stop := d.judge(p, rv, cur, usable)
	if stop {
		return d
	}
	unbound, why := cur.Diff.UnboundCreates()
	if len(unbound) > 0 {
		// Created with what? Nothing in the review says, so any synth at
		// deploy time would pass under the same digest.
		msg := fmt.Sprintf("The change set creates %s, whose properties are not bound to the review (%s)", strings.Join(unbound, ", "), why)
		if p.RequireReviewedDiff {
			d.Reason, d.Title = DiffUnverifiable, "Change set cannot be verified"
			d.Message = msg + ": not deploying. " + AssemblyHint
			return d
		}
		d.Warnings = append(d.Warnings, msg+"; deploying anyway because require-reviewed-diff is false")
	}
	// Reviewed: trusted, fresh, unaltered reviews of exactly this change
	// set, or of every change in it (reviewProblem checks all but the
	// last).
	d.Reviewed = !flawed && (rv.Digest == cur.Digest || covered) && rv.Record != nil && len(unbound) == 0

	d.Destructive = destructive(p, rv, cur.Diff, by)
	var refused []string
	for _, x := range d.Destructive {
		if x.AllowedBy == "" {
			refused = append(refused, describe(x))
		}
	}
	if len(refused) > 0 {
		d.Reason, d.Title = DestructiveRefused, "Destructive changes refused"
		d.Message = fmt.Sprintf("%s would be destroyed and nothing allows it: %s. Allow it with the pull request label %q, the input allow-destructive: true, or the resource types in allow-destroy-types.",
			count(len(refused), "resource"), strings.Join(refused, "; "), p.DestructiveLabel)
		if hasLabel(rv.LateLabels, p.DestructiveLabel) {
			d.Message += fmt.Sprintf(" The label %q came too late: it was added after pull request #%d merged (%s), so it approves nothing that was merged; approve in the pull request before merging.",
				p.DestructiveLabel, rv.PR, rv.MergedAt)
		}
		return d
	}
	refusal, blocked, approval := approvalProblem(p, rv, cur)
	if blocked {
		refusal.Current, refusal.Destructive = d.Current, d.Destructive
		refusal.Warnings = d.Warnings
		return refusal
	}
	d.Approval = approval
	if approval == "" && rv.PR != 0 {
		d.Unapproved = fmt.Sprintf("no approval on the reviewed head %s of pull request #%d", short(rv.HeadSHA), rv.PR)
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

// unrecorded says that no check run vouches for the review rv: the comment
// alone is not a review, since anyone with write access can edit it and
// keep its author. Without the check run the diff recorded, nothing vouches
// for the digest in it.
func unrecorded(rv Review) string {
	return fmt.Sprintf("No diff check run on %s records the review of pull request #%d (the diff ran with check-run: false, could not create its check run, or was cancelled), "+
		"so the digest in its comment cannot be verified", short(rv.ReviewedSHA), rv.PR)
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

// reviewProblem is the refusal a missing, failed or stale review gets. It
// needs no change set. Its message ends with ": not deploying."
func reviewProblem(p Policy, rv Review) (Decision, bool) {
	for _, one := range rv.all() {
		if r, title, msg, ok := reviewIssue(p, one); ok {
			return Decision{Reason: r, Title: title, Message: msg + ": not deploying."}, true
		}
	}
	return Decision{}, false
}

// reviewIssue names what is wrong with the review, if anything, as the
// start of a sentence.
func reviewIssue(p Policy, rv Review) (Reason, string, string, bool) {
	bot := p.Bot
	if bot == "" {
		bot = "the action's identity"
	}
	what := rv.Commit
	if what == "" {
		what = "this commit"
	}
	switch {
	case len(rv.Ambiguous) > 1:
		prs := make([]string, len(rv.Ambiguous))
		for i, n := range rv.Ambiguous {
			prs[i] = fmt.Sprintf("#%d", n)
		}
		return NoReviewedDiff, "Review is ambiguous", fmt.Sprintf("%s belongs to several merged pull requests (%s), so whose review and labels count is ambiguous; deploy a commit that one pull request merged",
			strings.ToUpper(what[:1])+what[1:], strings.Join(prs, ", ")), true
	case rv.PR == 0:
		msg := "No pull request was found for " + what
		if rv.Note != "" {
			msg += " (" + rv.Note + ")"
		}
		return NoReviewedDiff, "No reviewed diff", msg + ", so there is no reviewed diff to compare with", true
	case !rv.Comment:
		return NoReviewedDiff, "No reviewed diff", fmt.Sprintf("Pull request #%d has no diff comment written by %s", rv.PR, bot), true
	case rv.Digest == "":
		return NoReviewedDiff, "No reviewed diff", fmt.Sprintf("The diff comment on pull request #%d reports a failed diff, which is not a review", rv.PR), true
	case rv.Record != nil && rv.Record.Digest == "":
		return NoReviewedDiff, untrusted, fmt.Sprintf("The newest %q check run on %s (%s) records no reviewed digest (a failed diff, or one run by an older cdkd-action), "+
			"so the diff comment on pull request #%d cannot be verified; re-run the pull request's diff", rv.Record.Name, short(rv.ReviewedSHA), rv.Record.URL, rv.PR), true
	case rv.Record != nil && rv.Record.CommentID == 0:
		return NoReviewedDiff, untrusted, fmt.Sprintf("The newest %q check run on %s (%s) names no diff comment it vouches for (a diff run by an older cdkd-action, or one that could not write its comment), "+
			"so no comment on pull request #%d can be trusted as the review; re-run the pull request's diff", rv.Record.Name, short(rv.ReviewedSHA), rv.Record.URL, rv.PR), true
	case rv.Record != nil && rv.Record.Digest != rv.Digest:
		return NoReviewedDiff, untrusted, fmt.Sprintf("The digest in the diff comment on pull request #%d (%s) is not the one the diff check run recorded (%s, %q on %s, %s): "+
			"the comment may have been edited", rv.PR, shortDigest(rv.Digest), shortDigest(rv.Record.Digest), rv.Record.Name, short(rv.ReviewedSHA), rv.Record.URL), true
	case rv.Unreadable != "":
		return NoReviewedDiff, untrusted, fmt.Sprintf("The reviewed change set of pull request #%d cannot be verified: %s", rv.PR, rv.Unreadable), true
	case rv.Tampered != "":
		return NoReviewedDiff, untrusted, fmt.Sprintf("The diff comment on pull request #%d was altered after the diff wrote it (%s)", rv.PR, rv.Tampered), true
	case rv.ReviewedSHA == "" || rv.ReviewedSHA != rv.HeadSHA:
		reviewed := short(rv.ReviewedSHA)
		if reviewed == "" {
			reviewed = "an unknown commit"
		}
		return StaleReview, "Review is stale", fmt.Sprintf("The diff on pull request #%d was reviewed at %s, but the pull request's final head is %s (the last commits were never reviewed)", rv.PR, reviewed, short(rv.HeadSHA)), true
	}
	return "", "", "", false
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

// destructive lists every delete and replacement in d with what allows it.
func destructive(p Policy, rv Review, d model.Diff, by map[string][]int) []Destructive {
	labelled := func(prs ...int) string {
		for _, one := range rv.all() {
			if p.DestructiveLabel != "" && one.PR != 0 && slices.Contains(prs, one.PR) && hasLabel(one.Labels, p.DestructiveLabel) {
				return "the pull request label " + p.DestructiveLabel
			}
		}
		return ""
	}
	var out []Destructive
	d.Walk(func(path string, s model.StackDiff) {
		for _, ch := range s.Changes {
			if !ch.Destructive() {
				continue
			}
			// The label of a pull request whose review holds the change
			// approves it; with the reviewed change set whole, its own.
			label := labelled(rv.PR)
			if by != nil {
				label = labelled(by[changeKey(path, s.Region, ch.LogicalID)]...)
			}
			x := Destructive{Stack: path, Region: s.Region, LogicalID: ch.LogicalID, Type: ch.ResourceType, Action: ch.Action(), ForcedBy: ch.ReplacingPaths(),
				UnknownType: !ch.ChangeType.Known()}
			switch {
			case p.AllowDestructive:
				x.AllowedBy = "allow-destructive: true"
			case label != "":
				x.AllowedBy = label
			case x.UnknownType:
				// What an unknown change does is not known: a list of
				// types that may be destroyed does not approve it.
			case slices.Contains(p.AllowDestroyTypes, ch.ResourceType):
				x.AllowedBy = "allow-destroy-types (" + ch.ResourceType + ")"
			}
			out = append(out, x)
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

// hasLabel: label names are case-insensitive on GitHub.
func hasLabel(labels []string, name string) bool {
	return name != "" && slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, name) })
}

func describe(x Destructive) string {
	s := fmt.Sprintf("%s %s (%s) in %s", x.Action, x.LogicalID, x.Type, x.Stack)
	if x.UnknownType {
		s += ", a change type cdkd-action does not know, so it may destroy the resource; allow-destroy-types does not approve it"
	}
	if len(x.ForcedBy) > 0 {
		s += ", forced by " + strings.Join(x.ForcedBy, ", ")
	}
	return s
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

// untrusted is the title of a refusal whose review was altered.
const untrusted = "Review cannot be trusted"

// shortDigest is enough of a digest to tell two apart in a message.
func shortDigest(d string) string { return prcomment.ShortDigest(d) }

func digestVersion(d string) string {
	v, _, _ := strings.Cut(d, ":")
	return v + ":"
}
