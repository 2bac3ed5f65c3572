package github_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
)

// onPage matches the requests for one page of a listing.
func onPage(n int) func(githubtest.Request) bool {
	return func(r githubtest.Request) bool { return r.Query.Get("page") == fmt.Sprint(n) }
}

// An answer whose body is cut off part-way is a failed attempt like a
// reset before the answer: a read is sent again, whichever page it was.
func TestCutAnswerToAReadIsRetried(t *testing.T) {
	srv, c, w := fakeClient(t)
	var bodies []string
	for i := range 150 {
		bodies = append(bodies, fmt.Sprintf("comment %d", i))
	}
	srv.SeedComments(owner, repo, 7, "alice", bodies...)
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpListIssueComments, Cut: true, Match: onPage(2)})
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpListCheckRunsForRef, Cut: true})

	got, err := c.ListIssueComments(context.Background(), owner, repo, 7)
	assert.NilError(t, err)
	assert.Equal(t, len(got), 150)
	_, err = c.ListCheckRunsForRef(context.Background(), owner, repo, sha, "cdkd diff")
	assert.NilError(t, err)
	assert.Equal(t, len(w.got()), 2, "each cut answer costs one retry")
}

// A write whose answer is cut off after GitHub applied it: an edit is
// sent again (it is idempotent), a create looks for what it made and uses
// it. Either way exactly one object holds the write, and its id is known.
func TestCutAnswerToAWrite(t *testing.T) {
	ctx := context.Background()
	srv, c, _ := fakeClient(t)
	body := "<!-- cdkd-action:v1 kind=diff -->\nreport"
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, Cut: true})
	cm, err := c.CreateIssueComment(ctx, owner, repo, 7, body)
	assert.NilError(t, err)
	comments := srv.Comments(owner, repo, 7)
	assert.Assert(t, is.Len(comments, 1))
	assert.Equal(t, cm.ID, comments[0].ID)

	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpUpdateIssueComment, Cut: true})
	edited, err := c.EditIssueComment(ctx, owner, repo, cm.ID, body+" v2")
	assert.NilError(t, err)
	assert.Equal(t, edited.ID, cm.ID)
	assert.Equal(t, srv.Comments(owner, repo, 7)[0].Body, body+" v2")

	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateCheckRun, Cut: true})
	ref, err := c.CreateCheckRun(ctx, owner, repo, github.CheckRun{Name: "cdkd diff", HeadSHA: sha, ExternalID: "cdkd-diff:v1:abc",
		Status: "completed", Conclusion: "neutral", Title: "t", Summary: "s"})
	assert.NilError(t, err)
	runs := srv.CheckRuns()
	assert.Assert(t, is.Len(runs, 1))
	assert.Equal(t, ref.ID, runs[0].ID)

	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssue, Cut: true})
	is1, err := c.CreateIssue(ctx, owner, repo, "Drift detected", "<!-- cdkd-action:drift -->\nbody", nil)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(srv.Issues(), 1))
	assert.Equal(t, is1.Number, srv.Issues()[0].Number)

	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost {
			assert.Assert(t, r.Status < 300, "no create was refused: %s %s", r.Method, r.Path)
		}
	}
}

// A create GitHub applies only after the attempt's time limit gave up on
// its answer: the client waits before it looks, finds it, and sends no
// second one.
func TestLateCreateIsFoundNotRepeated(t *testing.T) {
	ctx := context.Background()
	late := func(op string) githubtest.Fault {
		return githubtest.Fault{Times: 1, Operation: op, Late: true, Delay: 250 * time.Millisecond}
	}
	newClient := func(t *testing.T) (*githubtest.Server, *github.Client) {
		srv := githubtest.New(t)
		srv.AddPullRequest(githubtest.PR{Number: 7, HeadSHA: sha, State: "open"})
		// The real sleeper: the backoff (at least half a second) is what
		// gives the late write time to land.
		c, err := github.NewClient("ghs_token", srv.APIURL(), github.WithAttemptTimeout(100*time.Millisecond))
		assert.NilError(t, err)
		return srv, c
	}
	t.Run("comment", func(t *testing.T) {
		srv, c := newClient(t)
		srv.Inject(late(githubtest.OpCreateIssueComment))
		got, err := c.CreateIssueComment(ctx, owner, repo, 7, "<!-- cdkd-action:v1 kind=diff -->\nreport")
		assert.NilError(t, err)
		comments := srv.Comments(owner, repo, 7)
		assert.Assert(t, is.Len(comments, 1))
		assert.Equal(t, got.ID, comments[0].ID)
	})
	t.Run("check run", func(t *testing.T) {
		srv, c := newClient(t)
		srv.Inject(late(githubtest.OpCreateCheckRun))
		_, err := c.CreateCheckRun(ctx, owner, repo, github.CheckRun{Name: "cdkd diff", HeadSHA: sha, ExternalID: "cdkd-diff:v1:abc",
			Status: "completed", Conclusion: "neutral", Title: "t", Summary: "s"})
		assert.NilError(t, err)
		assert.Assert(t, is.Len(srv.CheckRuns(), 1))
	})
	t.Run("issue", func(t *testing.T) {
		srv, c := newClient(t)
		srv.Inject(late(githubtest.OpCreateIssue))
		_, err := c.CreateIssue(ctx, owner, repo, "Drift detected", "<!-- cdkd-action:drift -->\nbody", nil)
		assert.NilError(t, err)
		assert.Assert(t, is.Len(srv.Issues(), 1))
	})
}

// A create GitHub applies even later, after the retry made a second
// comment: the listing after writing sees both (a racing run's comment
// looks the same) and exactly one is left, the lowest id, holding the
// report.
func TestUpsertConvergesOnALateCreate(t *testing.T) {
	srv, c, _ := fakeClient(t, github.WithAttemptTimeout(100*time.Millisecond))
	body := marker.Header{Kind: "diff", Label: "prod", SHA: sha}.String() + "\n\nreport"
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, Late: true, Delay: 300 * time.Millisecond})
	// The listings: before writing, the look after the timeout (nothing
	// there yet), then the one after writing, held until the late create
	// has landed.
	hold := githubtest.NewHold()
	lists := 0
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpListIssueComments, Hold: hold, Match: func(githubtest.Request) bool {
		lists++
		return lists == 3
	}})
	go func() {
		<-hold.Reached()
		for len(srv.Comments(owner, repo, 7)) < 2 {
			time.Sleep(10 * time.Millisecond)
		}
		hold.Release()
	}()
	res, err := github.Upsert(context.Background(), c, github.StickyTarget{Owner: owner, Repo: repo, Number: 7, Kind: "diff", Label: "prod",
		Author: githubtest.DefaultLogin}, body, github.ModeUpdate)
	assert.NilError(t, err)
	comments := srv.Comments(owner, repo, 7)
	assert.Assert(t, is.Len(comments, 1))
	assert.Equal(t, res.ID, comments[0].ID)
	assert.Equal(t, comments[0].Body, body)
}

// A create GitHub applied and answered 201 whose body was cut off right
// after the headers (to the client a complete, empty answer): the object
// it made is looked for and used, never reported lost nor named as id 0,
// and no second one is made.
func TestCreateAnsweredWithAnEmptyBodyIsFound(t *testing.T) {
	ctx := context.Background()
	t.Run("comment", func(t *testing.T) {
		srv, c, _ := fakeClient(t)
		srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, CutAfterHeaders: true})
		cm, err := c.CreateIssueComment(ctx, owner, repo, 7, "<!-- cdkd-action:v1 kind=diff -->\nreport")
		assert.NilError(t, err)
		comments := srv.Comments(owner, repo, 7)
		assert.Assert(t, is.Len(comments, 1))
		assert.Assert(t, cm.ID != 0)
		assert.Equal(t, cm.ID, comments[0].ID)
		assert.Equal(t, cm.HTMLURL, comments[0].HTMLURL)
	})
	t.Run("check run", func(t *testing.T) {
		srv, c, _ := fakeClient(t)
		srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateCheckRun, CutAfterHeaders: true})
		ref, err := c.CreateCheckRun(ctx, owner, repo, github.CheckRun{Name: "cdkd diff", HeadSHA: sha, ExternalID: "cdkd-diff:v1:abc",
			Status: "completed", Conclusion: "neutral", Title: "t", Summary: "s"})
		assert.NilError(t, err)
		assert.Assert(t, is.Len(srv.CheckRuns(), 1))
		assert.Equal(t, ref.ID, srv.CheckRuns()[0].ID)
	})
	t.Run("issue", func(t *testing.T) {
		srv, c, _ := fakeClient(t)
		srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssue, CutAfterHeaders: true})
		got, err := c.CreateIssue(ctx, owner, repo, "Drift detected", "<!-- cdkd-action:drift -->\nbody", nil)
		assert.NilError(t, err)
		assert.Assert(t, is.Len(srv.Issues(), 1))
		assert.Equal(t, got.Number, srv.Issues()[0].Number)
	})
}

// A create GitHub applies after the retry made a second comment and after
// the listing that followed it (a POST that stalled past its time limit):
// the run looks again once the window for that late write has passed, and
// one comment is left, the lowest id, holding the report.
func TestUpsertLooksAgainForAVeryLateCreate(t *testing.T) {
	srv, c, _ := fakeClient(t, github.WithAttemptTimeout(200*time.Millisecond))
	body := marker.Header{Kind: "diff", Label: "prod", SHA: sha}.String() + "\n\nreport"
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, Late: true, Delay: 300 * time.Millisecond})
	res, err := github.Upsert(context.Background(), c, github.StickyTarget{Owner: owner, Repo: repo, Number: 7, Kind: "diff", Label: "prod",
		Author: githubtest.DefaultLogin}, body, github.ModeUpdate)
	assert.NilError(t, err)
	// Both creates have landed by now (the late one is served, and
	// recorded, once its delay has passed).
	deadline := time.Now().Add(30 * time.Second)
	for creates(srv) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, creates(srv), 2, "the retry sent a second create")
	comments := srv.Comments(owner, repo, 7)
	assert.Assert(t, is.Len(comments, 1), "the late comment is removed")
	assert.Equal(t, res.ID, comments[0].ID)
	assert.Equal(t, comments[0].Body, body)
}

// A later run that finds several comments of its own (an earlier run's
// late create landed after it ended) keeps one, removes the others, and
// names the one kept.
func TestUpsertOfALaterRunRemovesEarlierDuplicates(t *testing.T) {
	srv, c, _ := fakeClient(t)
	old := marker.Header{Kind: "diff", Label: "prod", SHA: sha}.String() + "\n\nold report"
	srv.SeedComments(owner, repo, 7, githubtest.DefaultLogin, old, old)
	body := marker.Header{Kind: "diff", Label: "prod", SHA: sha}.String() + "\n\nnew report"
	for _, mode := range []github.Mode{github.ModeUpdate, github.ModeRecreate} {
		res, err := github.Upsert(context.Background(), c, github.StickyTarget{Owner: owner, Repo: repo, Number: 7, Kind: "diff", Label: "prod",
			Author: githubtest.DefaultLogin}, body, mode)
		assert.NilError(t, err)
		comments := srv.Comments(owner, repo, 7)
		assert.Assert(t, is.Len(comments, 1), mode)
		assert.Equal(t, res.ID, comments[0].ID)
		assert.Equal(t, comments[0].Body, body)
		srv.SeedComments(owner, repo, 7, githubtest.DefaultLogin, old)
	}
}

// creates counts the comment creates the server has served.
func creates(srv *githubtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Operation == githubtest.OpCreateIssueComment {
			n++
		}
	}
	return n
}
