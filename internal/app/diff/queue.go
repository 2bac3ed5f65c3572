package diff

import (
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/redacted"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// queueCheckOnHead is the queueCheck check run a pull request's diff
// writes on its head: a ruleset that requires the check for the merge
// queue requires it of the pull request too, before it may enter the
// queue. The pull request's own diff is its review, so the check passes
// when the diff did; the group it joins is checked by verify.
func (r *run) queueCheckOnHead(rep reporters.DiffReport) publish.Target {
	return &publish.RequiredCheck{API: r.Channels.API, Owner: r.GitHub.Owner, Repo: r.GitHub.Repo, DetailsURL: r.GitHub.RunURL,
		Name: publisher.CheckName(publisher.QueueCheck, r.Config.Label), HeadSHA: r.GitHub.HeadSHA,
		Conclude: func(w *publish.Written, red redacted.Redactor) (string, redacted.Text, redacted.Text) {
			if rep.Error != "" || rep.Missing != "" {
				return "failure", redacted.Redact(red, "No review: the diff failed"),
					redacted.Redact(red, "The diff of this pull request failed, so it has no review a merge group could be checked against. Fix the diff and push again.")
			}
			review := "this pull request's diff comment"
			if w.Comment.HTMLURL != "" {
				review = "[this pull request's diff comment](" + w.Comment.HTMLURL + ")"
			}
			return "success", redacted.Redact(red, "The merge queue checks the group"),
				redacted.Redact(red, "The pull request's own diff is its review: "+review+". "+
					"The real check runs in the merge queue: on the group this pull request joins, `command: verify` diffs the group's head and checks every change against the reviews of the group's pull requests, as the deploy gate would; "+
					"a pull request whose review no longer covers what would deploy leaves the queue before it merges.")
		}}
}
