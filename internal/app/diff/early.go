package diff

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/review"
)

// An approval approves what was on screen when it was given: the deploy
// gate counts one only after the diff check run that first recorded the
// reviewed digest for the head completed (gate.CountApprovals). A review
// posted now is not covered by the approvals already on the pull request,
// so its comment names them, and reviewers know to approve again.

// earlyApprovals is the note naming the approvals of the pull request's
// head given before the review of digest was first shown: the APPROVED
// reviews and the approval labels (security-approval-label,
// destructive-label) on it. "" when there are none, or when no comment is
// written; when they cannot be read, the log says why and the note is
// left out (the gate reads them again, and does not count them).
func (r *run) earlyApprovals(ctx context.Context, digest string) string {
	pr := r.GitHub.PR
	if digest == "" || pr == nil || !r.Channels.PublishesToAPI() || r.Config.Comment == config.CommentOff {
		return ""
	}
	api, owner, repo, head := r.Channels.API, r.GitHub.Owner, r.GitHub.Repo, r.GitHub.HeadSHA
	fail := func(what string, err error) string {
		r.Log.Warning(r.Secrets.Set.Redact(fmt.Sprintf("could not read %s of pull request #%d to name in its comment the approvals given before this review: %v", what, pr.Number, err)))
		return ""
	}
	shown, err := r.shownBefore(ctx, digest)
	if err != nil {
		return fail("the diff check runs", err)
	}
	early := func(t time.Time) bool {
		return shown.IsZero() || !t.Truncate(time.Second).After(shown.Truncate(time.Second))
	}
	reviews, err := api.ListReviews(ctx, owner, repo, pr.Number)
	if err != nil {
		return fail("the reviews", err)
	}
	latest := map[string]int{} // per reviewer, the review that decides
	for i, rv := range reviews {
		switch rv.State {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
			latest[strings.ToLower(rv.Login)] = i
		}
	}
	var names []string
	for _, k := range slices.Sorted(maps.Keys(latest)) {
		if rv := reviews[latest[k]]; rv.State == "APPROVED" && rv.CommitID == head && early(rv.SubmittedAt) {
			names = append(names, rv.Login+"'s APPROVED review")
		}
	}
	// The event's labels may be older than the run: the label events say
	// what is on now, and who put it on when.
	labels := slices.DeleteFunc([]string{r.Config.SecurityApprovalLabel, r.Config.DestructiveLabel}, func(l string) bool { return l == "" })
	if len(labels) > 0 {
		events, err := api.ListLabelEvents(ctx, owner, repo, pr.Number)
		if err != nil {
			return fail("the label events", err)
		}
		slices.SortStableFunc(events, func(a, b github.LabelEvent) int { return a.At.Compare(b.At) })
		for _, l := range labels {
			var on *github.LabelEvent
			for i, e := range events {
				switch {
				case !strings.EqualFold(e.Label, l):
				case e.Event == "labeled":
					on = &events[i]
				case e.Event == "unlabeled":
					on = nil
				}
			}
			if on != nil && early(on.At) {
				names = append(names, fmt.Sprintf("the label %q, added by %s", l, on.Actor))
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("Given before this review of %s, and so not approving it (an approval approves what was on screen when it was given): %s. Approve again after reading this review.",
		reporters.ShortSHA(head), strings.Join(names, "; "))
}

// shownBefore is when the review of digest at the head was first shown,
// as the gate reads it (review.ShownAt over the trusted app's diff check
// runs); zero when no such run completed: this run is the first to show
// it.
func (r *run) shownBefore(ctx context.Context, digest string) (time.Time, error) {
	name := publisher.CheckName("cdkd diff", r.Config.Label)
	runs, err := r.Channels.API.ListCheckRunsForRef(ctx, r.GitHub.Owner, r.GitHub.Repo, r.GitHub.HeadSHA, name)
	if err != nil {
		return time.Time{}, err
	}
	app := r.Config.TrustedApp
	if app == "" {
		app = config.DefaultTrustedApp
	}
	var recs []gate.Record
	for _, cr := range runs {
		if cr.Name != name || !strings.EqualFold(cr.AppSlug, app) {
			continue // another check, or another app's: no record of ours
		}
		rec, _ := gate.ParseDiffRecord(cr.ExternalID)
		rec.URL, rec.CompletedAt = cr.HTMLURL, cr.CompletedAt
		recs = append(recs, rec)
	}
	return review.ShownAt(recs, r.GitHub.HeadSHA, digest).At, nil
}
