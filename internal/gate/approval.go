package gate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The require-approval scopes (config.ApprovalScope's values).
const (
	RequireApprovalNever      = "never"
	RequireApprovalBroadening = "broadening"
	RequireApprovalAnyChange  = "any-change"
)

// ReviewRecord is one pull request review as GitHub lists it.
type ReviewRecord struct {
	Login, State, CommitID string
	SubmittedAt            time.Time
	// UserType is GitHub's type of the reviewer's account ("User", "Bot",
	// ...): only a person approves.
	UserType string
}

// LabelRecord is one label added to ("labeled") or removed from
// ("unlabeled") the pull request, by whom and when.
type LabelRecord struct {
	Event, Label, Actor string
	At                  time.Time
	// ActorType is GitHub's type of the actor's account: only a person
	// approves.
	ActorType string
}

// Permission is what GitHub's permission API says a login may do in the
// repository.
type Permission struct {
	// Level is GitHub's base permission: "admin", "write" (maintain reads
	// as write), "read" (triage reads as read) or "none".
	Level string
	// Unreadable says why it could not be read ("" when it was).
	Unreadable string
}

// AutoMergeRecord is auto-merge enabled or disabled on the pull request,
// from its timeline.
type AutoMergeRecord struct {
	Enabled bool
	At      time.Time
}

// Approvals is who approved the pull request, under the one review
// approval rule both required-approvals and require-approval use.
type Approvals struct {
	// Reviewers approved the reviewed head, sorted.
	Reviewers []string
	// LabelBy added the security approval label ("" when nobody did,
	// in a way that counts).
	LabelBy string
	// Ignored says, per review or security approval label that did not
	// count, why.
	Ignored []string
	// DestructiveBy added the destructive label, under the same rules as
	// the security approval label ("" when nobody did, in a way that
	// counts); DestructiveIgnored says why each adding of it did not
	// count.
	DestructiveBy      string
	DestructiveIgnored []string
}

// Approved reports that someone approved, by a review or the label.
func (a Approvals) Approved() bool { return len(a.Reviewers) > 0 || a.LabelBy != "" }

// ApprovalInput is what the rule reads.
type ApprovalInput struct {
	// Author opened the pull request: their own approval never counts.
	Author string
	// Head is the reviewed head commit: only approvals of it count.
	Head string
	// MergedAt: only what happened before the merge counts (zero: the
	// pull request is not merged, everything so far counts).
	MergedAt time.Time
	// Approvers, when set, are the only logins that count.
	Approvers []string
	// Label is the security approval label, DestructiveLabel the label
	// that allows destructive changes ("" when not read).
	Label, DestructiveLabel string
	// Shown is when the review these approvals would approve was first
	// shown: the completion of the diff check run that first recorded its
	// digest for the reviewed head (ShownBy names it). An approval covers
	// what was on screen when it was given, so only one given after it,
	// in a later second, counts. Zero when it is not known; ShownUnknown
	// then says why, and no approval counts.
	Shown                 time.Time
	ShownBy, ShownUnknown string
	Reviews               []ReviewRecord
	Labels                []LabelRecord
	// Permissions are the repository permissions of the logins whose
	// approval could count, keyed by lower-case login: a login not in it
	// has no permission that was read, and does not count.
	Permissions map[string]Permission
	// Pushers pushed the reviewed head to the pull request's branch (the
	// repository's activity): their approval of it does not count. Nil
	// when who pushed it is not known; PushersUnknown then says why, and
	// no approval counts.
	Pushers        []string
	PushersUnknown string
	// AutoMerge is the pull request's auto-merge history, oldest first:
	// an approval in the merge's own second counts only when auto-merge
	// was enabled before it.
	AutoMerge []AutoMergeRecord
}

// approvingPermissions are GitHub's permissions that may approve, as for
// its own required reviews: write, maintain (which reads as write) and
// admin.
var approvingPermissions = []string{"admin", "write"}

// when says when t was, against the merge.
type when int

const (
	beforeMerge when = iota
	sameSecond       // in the merge's own second: the order is not known
	afterMerge
)

func (in ApprovalInput) when(t time.Time) when {
	m := in.MergedAt.Truncate(time.Second)
	switch t = t.Truncate(time.Second); {
	case in.MergedAt.IsZero() || t.Before(m):
		return beforeMerge
	case t.Equal(m):
		return sameSecond
	}
	return afterMerge
}

// autoMergeBefore reports evidence that GitHub's auto-merge was enabled
// before t (in an earlier second) and still enabled at t: the merge in
// t's own second then acted on what happened at t.
func (in ApprovalInput) autoMergeBefore(t time.Time) bool {
	on := false
	for _, e := range in.AutoMerge {
		if !e.At.Truncate(time.Second).Before(t.Truncate(time.Second)) {
			break
		}
		on = e.Enabled
	}
	return on
}

// counted is whether an approval at t counts: given after the review it
// approves was shown, and before the merge (or in its second, after
// auto-merge was enabled). why, when it does not, is a sentence whose
// subject is who (say "alice approved").
func (in ApprovalInput) counted(who string, t time.Time) (bool, string) {
	if ok, why := in.afterShown(who, t); !ok {
		return false, why
	}
	switch in.when(t) {
	case afterMerge:
		return false, who + " after the merge"
	case sameSecond:
		if in.autoMergeBefore(t) {
			return true, ""
		}
		return false, who + " in the same second as the merge; the order cannot be known (GitHub's times have one-second resolution, and the pull request's timeline shows no auto-merge enabled before it)"
	}
	return true, ""
}

// afterShown: t is after the review was shown, in a later second (in the
// same second the order is not known).
func (in ApprovalInput) afterShown(who string, t time.Time) (bool, string) {
	if in.Shown.IsZero() {
		why := firstNonEmpty(in.ShownUnknown, "it was not read")
		return false, fmt.Sprintf("%s, but when the review of %s it would approve was posted is not known (%s), and an approval covers only what was on screen when it was given", who, short(in.Head), why)
	}
	shown, at := in.Shown.Truncate(time.Second), t.Truncate(time.Second)
	switch {
	case at.Before(shown):
		return false, fmt.Sprintf("%s at %s, before the review it would approve was posted: %s, the first to complete that records its digest for %s, completed at %s. An approval covers only what was on screen when it was given; approve again",
			who, clock(at), in.shownBy(), short(in.Head), clock(shown))
	case at.Equal(shown):
		return false, fmt.Sprintf("%s in the same second (%s) as %s, which posted the review it would approve, completed; the order cannot be known (GitHub's times have one-second resolution); approve again",
			who, clock(at), in.shownBy())
	}
	return true, ""
}

func (in ApprovalInput) shownBy() string {
	if in.ShownBy == "" {
		return "the diff check run"
	}
	return "the diff check run " + in.ShownBy
}

// clock is t as GitHub's pages show it, to the second, in UTC.
func clock(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// mayApprove says why login's approval does not count, "" when it does:
// a person (not a bot), one of approvers when set, who did not push the
// reviewed head, with write, maintain or admin permission.
func (in ApprovalInput) mayApprove(login, userType string) string {
	switch {
	case userType != "User":
		if userType == "" {
			userType = "unknown"
		}
		return fmt.Sprintf("%s is not a person (account type %s), and only people approve", login, userType)
	case len(in.Approvers) > 0 && !slices.ContainsFunc(in.Approvers, func(x string) bool { return strings.EqualFold(x, login) }):
		return fmt.Sprintf("%s is not one of approvers", login)
	case in.Pushers == nil:
		why := in.PushersUnknown
		if why == "" {
			why = "it was not read"
		}
		return fmt.Sprintf("%s's approval cannot count: who pushed the reviewed head %s is not known (%s), and the pusher never approves their own push", login, short(in.Head), why)
	case slices.ContainsFunc(in.Pushers, func(x string) bool { return strings.EqualFold(x, login) }):
		return fmt.Sprintf("%s pushed the reviewed head %s, and the pusher never approves their own push", login, short(in.Head))
	}
	p, ok := in.Permissions[strings.ToLower(login)]
	switch {
	case !ok || p.Unreadable != "":
		why := p.Unreadable
		if why == "" {
			why = "it was not read"
		}
		return fmt.Sprintf("%s's permission on the repository could not be read (%s), so their approval does not count", login, why)
	case !slices.Contains(approvingPermissions, p.Level):
		return fmt.Sprintf("%s has %s permission on the repository; an approval needs write, maintain or admin", login, firstNonEmpty(p.Level, "no"))
	}
	return ""
}

// CountApprovals is the review approval rule. Per reviewer, the latest of
// their reviews that is APPROVED, CHANGES_REQUESTED or DISMISSED decides (a
// COMMENTED review changes nothing); it counts when it is APPROVED, of the
// reviewed head, given after that head's review was shown and before the
// merge (counted), by someone who may approve (mayApprove) other than the
// author. A label (the security approval label, the destructive label)
// counts under the same rules: when such a person added it in that window,
// and nobody removed it before the merge.
func CountApprovals(in ApprovalInput) Approvals {
	var a Approvals
	latest := map[string]ReviewRecord{}
	uncounted := map[string][]string{} // per reviewer, the approvals given outside the window
	for _, r := range in.Reviews {
		switch r.State {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
		default:
			continue
		}
		key := strings.ToLower(r.Login)
		if ok, why := in.counted(r.Login+" approved", r.SubmittedAt); !ok {
			switch {
			case r.State != "APPROVED":
			case r.CommitID != in.Head:
				// Another head: what it approved is plainly not this.
				uncounted[key] = append(uncounted[key], notTheHead(r, in.Head))
			default:
				uncounted[key] = append(uncounted[key], why)
			}
			continue
		}
		if prev, ok := latest[key]; !ok || !r.SubmittedAt.Before(prev.SubmittedAt) {
			latest[key] = r
		}
	}
	for _, k := range slices.Sorted(maps.Keys(uncounted)) {
		if _, decided := latest[k]; !decided {
			// A reviewer whose review in the window decides needs no
			// word on their earlier one.
			a.Ignored = append(a.Ignored, uncounted[k]...)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(latest)) {
		r := latest[k]
		switch {
		case r.State != "APPROVED":
			if r.State == "CHANGES_REQUESTED" {
				a.Ignored = append(a.Ignored, fmt.Sprintf("%s requested changes", r.Login))
			}
		case strings.EqualFold(r.Login, in.Author):
			a.Ignored = append(a.Ignored, fmt.Sprintf("%s is the pull request's author", r.Login))
		case r.CommitID != in.Head:
			a.Ignored = append(a.Ignored, notTheHead(r, in.Head))
		default:
			if why := in.mayApprove(r.Login, r.UserType); why != "" {
				a.Ignored = append(a.Ignored, why)
				continue
			}
			a.Reviewers = append(a.Reviewers, r.Login)
		}
	}
	if in.Label != "" {
		a.LabelBy, a.Ignored = labelApproval(in, in.Label, a.Ignored)
	}
	if in.DestructiveLabel != "" {
		a.DestructiveBy, a.DestructiveIgnored = labelApproval(in, in.DestructiveLabel, nil)
	}
	return a
}

func notTheHead(r ReviewRecord, head string) string {
	return fmt.Sprintf("%s approved %s, not the reviewed head %s", r.Login, short(r.CommitID), short(head))
}

// labelApproval finds who put label on in a way that counts (counted,
// mayApprove, not the author), if it was still on at the merge: whatever
// happened to it after the merge changes nothing.
func labelApproval(in ApprovalInput, label string, ignored []string) (string, []string) {
	events := slices.Clone(in.Labels)
	slices.SortStableFunc(events, func(a, b LabelRecord) int { return a.At.Compare(b.At) })
	by := ""
	for _, e := range events {
		if !strings.EqualFold(e.Label, label) {
			continue
		}
		switch when := in.when(e.At); {
		case e.Event == "unlabeled" && when == sameSecond && !in.autoMergeBefore(e.At):
			// Removed in the merge's second: whether it was on at the
			// merge is not known, so it approves nothing.
			if by != "" {
				ignored = append(ignored, fmt.Sprintf("the label %q was removed in the same second as the merge; the order cannot be known", label))
			}
			by = ""
		case e.Event == "unlabeled" && when == afterMerge:
			// Removed after the merge: it was on at the merge.
		case e.Event == "unlabeled":
			by = ""
		default:
			who := fmt.Sprintf("the label %q was added by %s", label, e.Actor)
			if ok, why := in.counted(who, e.At); !ok {
				ignored = append(ignored, why)
				continue
			}
			if strings.EqualFold(e.Actor, in.Author) {
				ignored = append(ignored, fmt.Sprintf("the label %q was added by the pull request's author, %s", label, e.Actor))
				continue
			}
			if why := in.mayApprove(e.Actor, e.ActorType); why != "" {
				ignored = append(ignored, fmt.Sprintf("the label %q does not count: %s", label, why))
				continue
			}
			by = e.Actor
		}
	}
	return by, ignored
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
