package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// Approvals only the right people can give, as a team meets them: each
// case runs the merge queue's check (verify, on the merge_group event, the
// pull requests open) and then the deploy of the group's push (the pull
// requests merged), and both give the same answer.

// writers gives each login write access to the repository: only such an
// account's approval counts.
func (w *workspace) writers(logins ...string) {
	w.t.Helper()
	for _, l := range logins {
		w.gh.SetPermission(owner, repo, l, "write")
	}
}

const broadeningFixture = "testdata/deploy/diff-broadening.json"

// approvalCase is a group's pull requests, what was done on them before
// the queue, the inputs, and the answer both the queue's check and the
// deploy must give.
type approvalCase struct {
	name string
	// batch: #8 (the security group rule, the one broadening) and #10
	// (the rest of diff-broadening.json) merge together; otherwise #10
	// alone, with all of it.
	batch bool
	// fork: #10's head is in a fork.
	fork bool
	// before runs after the pull requests are seeded, before their diffs.
	before func(w *workspace)
	// seed runs after the diffs, before the queue.
	seed   func(w *workspace)
	inputs []string
	// reason is the failure-reason both give ("" deploys); says are in
	// both reports (the log or the job summary).
	reason string
	says   []string
	// queueSays are in the queue's check's summary (its list of pull
	// requests).
	queueSays []string
}

// runQueueThenDeploy runs c: the pull requests' diffs, the queue's check
// of their group, their merge and the deploy of the push.
func runQueueThenDeploy(t *testing.T, c approvalCase) {
	w := newWorkspace(t)
	copyDir(t, "testdata/security/assembly", filepath.Join(w.dir, "cdk.out"))
	pr10 := githubtest.PR{Number: 10, HeadSHA: queueHead0, HeadRef: "c", BaseRef: "main"}
	if c.fork {
		pr10.HeadOwner, pr10.HeadRepo = "mallory", "octo-repo"
	}
	w.gh.AddPullRequest(pr10)
	parts := []cdkdtest.Invocation{gateDiff(t, broadeningFixture)}
	commits := []string{queueHead0, groupHead}
	if c.batch {
		w.gh.AddPullRequest(githubtest.PR{Number: deployPR, HeadSHA: reviewedSHA, HeadRef: "a", BaseRef: "main"})
		sg := diffPartOf(t, broadeningFixture, w.dir, "sg.json", func(_, id string) bool { return id == "SgD4954771" })
		rest := diffPartOf(t, broadeningFixture, w.dir, "rest.json", func(_, id string) bool { return id != "SgD4954771" })
		parts = []cdkdtest.Invocation{gateDiff(t, sg), gateDiff(t, rest)}
		commits = []string{reviewedSHA, queueM8, queueHead0, groupHead}
	}
	if c.before != nil {
		c.before(w)
	}
	w.stub(append(parts, gateDiff(t, broadeningFixture), gateDiff(t, broadeningFixture), deployInvocation(t))...)
	if c.batch {
		w.reviewPR(deployPR, "main", reviewedSHA, diffInputs())
	}
	w.reviewPR(10, "main", queueHead0, diffInputs())
	if c.seed != nil {
		c.seed(w)
	}

	// The queue's check, the pull requests open.
	w.gh.SetCommits(owner, repo, "main", groupHead, commits...)
	w.onMergeGroup()
	code := 0
	if c.reason != "" {
		code = 1
	}
	inputs := append([]string{"command", "verify", "all", "true"}, c.inputs...)
	queued := w.run(deployInputs(inputs...))
	assert.Equal(t, queued.code, code, "the queue's check: %s", queued.stdout)
	assert.Equal(t, queued.outputs["failure-reason"], c.reason, "the queue's check")
	for _, s := range c.says {
		assert.Assert(t, is.Contains(queued.stdout+queued.summary, s), "the queue's check")
	}
	for _, s := range c.queueSays {
		assert.Assert(t, is.Contains(queued.summary, s), "the queue's check")
	}

	// The group merges; the deploy of its push.
	if c.batch {
		w.gh.MergePullRequest(owner, repo, deployPR, queueM8)
		w.gh.SetCommits(owner, repo, queueBase, groupHead, queueM8, groupHead)
	} else {
		w.gh.SetCommits(owner, repo, queueBase, groupHead, groupHead)
	}
	w.gh.MergePullRequest(owner, repo, 10, groupHead)
	w.onGroupPush()
	deployed := w.run(deployInputs(c.inputs...))
	assert.Equal(t, deployed.code, code, "the deploy: %s", deployed.stdout)
	assert.Equal(t, deployed.outputs["failure-reason"], c.reason, "the deploy")
	for _, s := range c.says {
		assert.Assert(t, is.Contains(deployed.stdout+deployed.summary, s), "the deploy")
	}
}

// onGroupPush makes the next step run on the push of the merge group's
// head to main.
func (w *workspace) onGroupPush() {
	w.t.Helper()
	path := filepath.Join(w.dir, "group-push.json")
	writeFile(w.t, path, fmt.Sprintf(`{"ref":"refs/heads/main","before":%q,"after":%q}`, queueBase, groupHead))
	w.vars["GITHUB_EVENT_NAME"], w.vars["GITHUB_EVENT_PATH"], w.vars["GITHUB_SHA"] = "push", path, groupHead
	w.vars["GITHUB_REF"] = "refs/heads/main"
}

// approve is an APPROVED review of pull request number's head by login,
// now: after its diff posted the review, before anything merged.
func approve(w *workspace, number int, login string) {
	w.gh.ReviewPullRequest(owner, repo, number, githubtest.Review{Login: login, State: "APPROVED"})
}

const sgRow = "${SgD4954771} ingress tcp:22 from 0.0.0.0/0 in SgD4954771 (AWS::EC2::SecurityGroup) in StackA"

// #34 item 1: each pull request of a batch answers for its own changes.
func TestBatchApprovalsPerPullRequest(t *testing.T) {
	for _, c := range []approvalCase{
		{name: "an unapproved broadening merged beside an approved pull request is refused", batch: true,
			seed:   func(w *workspace) { w.writers("alice"); approve(w, 10, "alice") },
			inputs: []string{"require-approval", "broadening"}, reason: "broadening-refused",
			says:      []string{"pull request #8, whose review shows them, had no approval that counts before the merge: " + sgRow},
			queueSays: []string{"`#8` reviewed at `8888888`: ⛔ `broadening-refused`", "`#10` reviewed at `3030303`: ✅"}},
		{name: "a broadening approved in its own pull request deploys whatever the others' approvals", batch: true,
			seed:   func(w *workspace) { w.writers("alice"); approve(w, deployPR, "alice") },
			inputs: []string{"require-approval", "broadening"}},
		{name: "required-approvals: the pull request lacking them is named", batch: true,
			seed:   func(w *workspace) { w.writers("alice"); approve(w, 10, "alice") },
			inputs: []string{"required-approvals", "1"}, reason: "approvals-missing",
			says:      []string{"pull request #8 has 0 approving reviews of its reviewed head 8888888 that count (none)", "(pull request #8: update SgD4954771 (AWS::EC2::SecurityGroup) in StackA"},
			queueSays: []string{"`#8` reviewed at `8888888`: ⛔ `approvals-missing`", "`#10` reviewed at `3030303`: ✅"}},
		{name: "required-approvals met by each pull request", batch: true,
			seed:   func(w *workspace) { w.writers("alice", "bob"); approve(w, 10, "alice"); approve(w, deployPR, "bob") },
			inputs: []string{"required-approvals", "1"}},
	} {
		t.Run(c.name, func(t *testing.T) { runQueueThenDeploy(t, c) })
	}
}

// #34 item 2: a bot never approves, by review or label.
func TestBotsNeverApprove(t *testing.T) {
	for _, c := range []approvalCase{
		{name: "github-actions' APPROVED review is not counted",
			seed: func(w *workspace) {
				w.writers("github-actions[bot]")
				approve(w, 10, "github-actions[bot]")
			},
			inputs: []string{"required-approvals", "1"}, reason: "approvals-missing",
			says: []string{"github-actions[bot] is not a person (account type Bot), and only people approve"}},
		{name: "beside a person's approval, the bot's is named as not counted",
			seed: func(w *workspace) {
				w.writers("alice", "github-actions[bot]")
				approve(w, 10, "github-actions[bot]")
				approve(w, 10, "alice")
			},
			inputs: []string{"required-approvals", "1"},
			// The summary escapes the login's brackets.
			says: []string{"Approved by alice (reviews of 3030303). Not counted: github-actions", "is not a person (account type Bot), and only people approve."}},
		{name: "the approval label added by github-actions is not counted",
			seed: func(w *workspace) {
				w.writers("github-actions[bot]")
				w.gh.LabelPullRequest(owner, repo, 10, "security-approved", "github-actions[bot]")
			},
			inputs: []string{"require-approval", "broadening"}, reason: "broadening-refused",
			says: []string{`the label "security-approved" does not count: github-actions[bot] is not a person (account type Bot)`}},
		{name: "a person's label still counts",
			seed: func(w *workspace) {
				w.writers("carol")
				w.gh.LabelPullRequest(owner, repo, 10, "security-approved", "carol")
			},
			inputs: []string{"require-approval", "broadening"}},
	} {
		t.Run(c.name, func(t *testing.T) { runQueueThenDeploy(t, c) })
	}
}

// #34 item 3: an approval needs write, maintain or admin permission, read
// from GitHub's permission API; approvers narrows, never widens.
func TestApprovalNeedsWriteAccess(t *testing.T) {
	for _, c := range []approvalCase{
		{name: "an outsider's approval on a public repository is not counted",
			seed: func(w *workspace) {
				w.gh.ReviewPullRequest(owner, repo, 10, githubtest.Review{Login: "eve", State: "APPROVED", AuthorAssociation: "NONE"})
			},
			inputs: []string{"required-approvals", "1"}, reason: "approvals-missing",
			says: []string{"eve has read permission on the repository; an approval needs write, maintain or admin"}},
		{name: "a triager's approval label is not counted",
			seed: func(w *workspace) {
				w.gh.SetPermission(owner, repo, "tom", "triage")
				w.gh.LabelPullRequest(owner, repo, 10, "security-approved", "tom")
			},
			inputs: []string{"require-approval", "broadening"}, reason: "broadening-refused",
			says: []string{"tom has read permission on the repository"}},
		{name: "approvers never widen to a login without write access",
			seed: func(w *workspace) {
				w.gh.ReviewPullRequest(owner, repo, 10, githubtest.Review{Login: "erin", State: "APPROVED", AuthorAssociation: "CONTRIBUTOR"})
			},
			inputs: []string{"required-approvals", "1", "approvers", "erin"}, reason: "approvals-missing",
			says: []string{"erin has read permission on the repository"}},
		{name: "a maintainer's approval counts",
			seed: func(w *workspace) {
				w.gh.SetPermission(owner, repo, "maria", "maintain")
				approve(w, 10, "maria")
			},
			inputs: []string{"required-approvals", "1"}},
		{name: "when the permission cannot be read, the approval does not count and the report says so",
			seed: func(w *workspace) {
				w.writers("alice")
				approve(w, 10, "alice")
				w.gh.Deny(githubtest.OpGetCollaboratorPermission)
			},
			inputs: []string{"required-approvals", "1"}, reason: "approvals-missing",
			says: []string{"alice's permission on the repository could not be read", "so their approval does not count"}},
	} {
		t.Run(c.name, func(t *testing.T) { runQueueThenDeploy(t, c) })
	}
}

// #34 item 4: the pusher of the reviewed head does not approve it, and an
// approval never counts on a guess of who pushed.
func TestPusherDoesNotApprove(t *testing.T) {
	for _, c := range []approvalCase{
		{name: "someone who pushed to another's pull request cannot approve its head",
			before: func(w *workspace) {
				w.gh.PushToPullRequest(owner, repo, 10, "1212121212121212121212121212121212121212")
				w.gh.PushAs(owner, repo, 10, queueHead0, "mallory")
			},
			seed:   func(w *workspace) { w.writers("mallory"); approve(w, 10, "mallory") },
			inputs: []string{"required-approvals", "1"}, reason: "approvals-missing",
			says: []string{"mallory pushed the reviewed head 3030303, and the pusher never approves their own push"}},
		{name: "another writer's approval of that push counts",
			before: func(w *workspace) { w.gh.PushAs(owner, repo, 10, queueHead0, "mallory") },
			seed:   func(w *workspace) { w.writers("mallory", "alice"); approve(w, 10, "alice") },
			inputs: []string{"required-approvals", "1"}},
		{name: "a fork's pusher cannot be known, so no approval counts", fork: true,
			seed:   func(w *workspace) { w.writers("alice"); approve(w, 10, "alice") },
			inputs: []string{"required-approvals", "1"}, reason: "approvals-missing",
			says: []string{"alice's approval cannot count: who pushed the reviewed head 3030303 is not known (the pull request's branch is in a fork, whose pushes this repository's activity does not record)"}},
	} {
		t.Run(c.name, func(t *testing.T) { runQueueThenDeploy(t, c) })
	}
}

// #34 item 5: auto-merge merges in the approval's own second. GitHub's
// times have one-second resolution, so the order is known only when the
// timeline shows auto-merge enabled before the approval; otherwise the
// approval is refused as such, never as "after the merge". Through a merge
// queue an approval precedes the group's check, so the check and the
// deploy both count it.
func TestAutoMergeSameSecond(t *testing.T) {
	mergedAt := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	merged := func(t *testing.T, seed func(w *workspace), inputs ...string) result {
		t.Helper()
		w := newDeployWorkspace(t, reviewedSHA)
		copyDir(t, "testdata/security/assembly", filepath.Join(w.dir, "cdk.out"))
		w.stub(gateDiff(t, broadeningFixture), gateDiff(t, broadeningFixture), deployInvocation(t))
		w.review(reviewedSHA, diffInputs())
		w.gh.MergeAt(owner, repo, deployPR, mergedAt)
		w.writers("alice", "carol")
		seed(w)
		return w.run(deployInputs(inputs...))
	}
	review := func(at time.Time) func(w *workspace) {
		return func(w *workspace) {
			w.gh.ReviewPullRequest(owner, repo, deployPR, githubtest.Review{Login: "alice", State: "APPROVED", CommitID: reviewedSHA, SubmittedAt: at})
		}
	}
	t.Run("an approval in the merge's second without auto-merge is refused truthfully", func(t *testing.T) {
		res := merged(t, review(mergedAt), "required-approvals", "1")
		assert.Equal(t, res.outputs["failure-reason"], "approvals-missing", res.stdout)
		assert.Assert(t, is.Contains(res.stdout, "alice approved in the same second as the merge; the order cannot be known"))
		assert.Assert(t, !strings.Contains(res.stdout, "after the merge"), "it is not known to be after the merge")
	})
	t.Run("an approval in the merge's second after auto-merge was enabled counts", func(t *testing.T) {
		res := merged(t, func(w *workspace) {
			w.gh.SetAutoMerge(owner, repo, deployPR, true, githubtest.DefaultAuthor, mergedAt.Add(-time.Hour))
			review(mergedAt)(w)
		}, "required-approvals", "1")
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Assert(t, is.Contains(res.summary, "Approved by alice"))
	})
	t.Run("the label in the merge's second follows the same rule", func(t *testing.T) {
		res := merged(t, func(w *workspace) {
			w.gh.AddLabelEvent(owner, repo, deployPR, "security-approved", "carol", mergedAt)
		}, "require-approval", "broadening")
		assert.Equal(t, res.outputs["failure-reason"], "broadening-refused", res.stdout)
		assert.Assert(t, is.Contains(res.stdout, `the label "security-approved" was added by carol in the same second as the merge; the order cannot be known`))
	})
	t.Run("through a merge queue the approval precedes the check, and both count it", func(t *testing.T) {
		runQueueThenDeploy(t, approvalCase{
			seed: func(w *workspace) {
				w.writers("alice")
				w.gh.SetAutoMerge(owner, repo, 10, true, githubtest.DefaultAuthor, beforeMerge)
				approve(w, 10, "alice")
			},
			inputs: []string{"required-approvals", "1"}})
	})
}

// A bot's destructive label allows nothing either: any workflow's
// GITHUB_TOKEN can put it on a pull request.
func TestBotsDestructiveLabelAllowsNothing(t *testing.T) {
	const v2 = "../../testdata/fixtures/diff-v2.json" // deletes ExtraTopic, replaces Queue (QueueName)
	w := newDeployWorkspace(t, reviewedSHA)
	w.stub(gateDiff(t, v2), gateDiff(t, v2))
	w.review(reviewedSHA, diffInputs())
	w.mergeLater()
	w.gh.LabelNow(owner, repo, deployPR, "cdkd:allow-destructive", "github-actions[bot]")
	refused(t, w, "destructive-refused",
		`Not counted: the label "cdkd:allow-destructive" does not count: github-actions[bot] is not a person (account type Bot), and only people approve.`)
}
