package githubtest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// The fault rules of the third reliability round: an answer cut off in
// its body, a write applied after the client gave up, and a request held
// until the test lets it go.
func TestFaultRulesCutLateHold(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1, HeadSHA: "abc"})

	t.Run("cut: the write is applied, the body ends part-way", func(t *testing.T) {
		srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, Cut: true})
		req, _ := http.NewRequest(http.MethodPost, srv.APIURL()+"/repos/o/r/issues/1/comments", strings.NewReader(`{"body":"cut"}`))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := srv.Client().Do(req)
		assert.NilError(t, err)
		assert.Equal(t, resp.StatusCode, http.StatusCreated)
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		assert.Assert(t, is.Len(srv.Comments("o", "r", 1), 1))
	})

	t.Run("cut after the headers: the write is applied, the body is empty", func(t *testing.T) {
		srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 2, HeadSHA: "abc"})
		srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, CutAfterHeaders: true})
		req, _ := http.NewRequest(http.MethodPost, srv.APIURL()+"/repos/o/r/issues/2/comments", strings.NewReader(`{"body":"cut after headers"}`))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := srv.Client().Do(req)
		assert.NilError(t, err)
		assert.Equal(t, resp.StatusCode, http.StatusCreated)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.NilError(t, err, "to the client the answer ends cleanly")
		assert.Equal(t, len(b), 0)
		assert.Assert(t, is.Len(srv.Comments("o", "r", 2), 1))
	})

	t.Run("late: applied after the client gave up", func(t *testing.T) {
		srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, Late: true, Delay: 200 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.APIURL()+"/repos/o/r/issues/1/comments", strings.NewReader(`{"body":"late"}`))
		req.Header.Set("Authorization", "Bearer tok")
		_, err := srv.Client().Do(req)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Assert(t, is.Len(srv.Comments("o", "r", 1), 1), "not yet applied")
		deadline := time.Now().Add(30 * time.Second)
		for len(srv.Comments("o", "r", 1)) < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		assert.Assert(t, is.Len(srv.Comments("o", "r", 1), 2), "applied once the delay passed")
	})

	t.Run("hold: served once released", func(t *testing.T) {
		hold := githubtest.NewHold()
		srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpGetPullRequest, Hold: hold,
			Match: func(r githubtest.Request) bool { return r.Path == "/repos/o/r/pulls/1" }})
		done := make(chan int)
		go func() { done <- do(t, srv, http.MethodGet, "/repos/o/r/pulls/1", "").Status }()
		<-hold.Reached()
		select {
		case <-done:
			t.Fatal("a held request was answered")
		default:
		}
		hold.Release()
		assert.Equal(t, <-done, http.StatusOK)
	})
}
