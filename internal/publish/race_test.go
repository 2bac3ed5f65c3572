package publish

import (
	"context"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// racingRun is one diff run's publication: its own report in the sticky
// comment, and a check run vouching for the comment it finds.
func racingRun(report string) *Publication {
	return &Publication{Kind: "diff",
		Render: func(reporters.Budget) string { return report },
		Comment: &CommentFields{Header: marker.Header{V: 1, Kind: prcomment.KindDiff, SHA: headSHA},
			Render: func(h marker.Header, _ reporters.Budget) prcomment.Comment {
				return prcomment.Comment{Header: h, Report: "### cdkd diff\n\n" + report + "\n"}
			}},
		CheckRun: &CheckRunFields{Name: "cdkd diff", HeadSHA: headSHA, Conclusion: "neutral", Title: report,
			ExternalID: func(w *Written) string { return vouch(w.Comment) }},
	}
}

// vouch is the record a check run keeps of a comment: its id and a hash
// of the report it shows.
func vouch(c github.Comment) string {
	p, _ := prcomment.Parse(c.Body)
	return fmt.Sprintf("%d:%s", c.ID, prcomment.ReportHash(p.Report))
}

// Two diff runs with different reports interleave in a controlled order.
// Whatever the order, the newest check run vouches for exactly what the
// one surviving comment holds, so the deploy gate never reads the review
// as edited.
func TestRacingRunsRecordTheSurvivingReport(t *testing.T) {
	tests := []struct {
		name string
		// hold pauses run A at one of its requests while run B runs.
		hold func(h *githubtest.Hold) githubtest.Fault
		// checkRuns is how many check runs are left.
		checkRuns int
	}{
		{
			// A's check run is created after B's, though B wrote the
			// comment last: A rewrites its check run to name B's report.
			name: "A's check run lands last",
			hold: func(h *githubtest.Hold) githubtest.Fault {
				return githubtest.Fault{Times: 1, Operation: githubtest.OpCreateCheckRun, Hold: h}
			},
			checkRuns: 2,
		},
		{
			// A re-reads the comment after B wrote it: A's report lost,
			// and A writes no check run.
			name: "A re-reads after B wrote",
			hold: func(h *githubtest.Hold) githubtest.Fault {
				lists := 0
				return githubtest.Fault{Times: 1, Operation: githubtest.OpListIssueComments, Hold: h, Match: func(githubtest.Request) bool {
					lists++
					return lists == 3 // before writing, after writing, before the check run
				}}
			},
			checkRuns: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := githubtest.New(t)
			srv.AddPullRequest(githubtest.PR{Number: 7, HeadSHA: headSHA, State: "open"})
			client, err := github.NewClient("ghs_token", srv.APIURL())
			assert.NilError(t, err)
			run := func(report string) error {
				h := newHarness(t)
				targets := []Target{
					&Comment{API: client, Owner: githubtest.DefaultOwner, Repo: githubtest.DefaultRepo, PR: 7, HeadSHA: headSHA,
						Identity: github.NewIdentity(nil, ""), Mode: github.ModeUpdate},
					&CheckRun{API: client, Owner: githubtest.DefaultOwner, Repo: githubtest.DefaultRepo},
				}
				return h.pub.Publish(context.Background(), racingRun(report), targets...)
			}
			hold := githubtest.NewHold()
			srv.Inject(tc.hold(hold))
			done := make(chan error)
			go func() { done <- run("report of run A") }()
			select {
			case <-hold.Reached():
				assert.NilError(t, run("report of run B"))
				hold.Release()
				assert.NilError(t, <-done)
			case err := <-done:
				// A never made the request it was to be held at.
				assert.NilError(t, err)
				assert.NilError(t, run("report of run B"))
			}

			comments := srv.Comments(githubtest.DefaultOwner, githubtest.DefaultRepo, 7)
			assert.Assert(t, is.Len(comments, 1))
			survivor := github.Comment{ID: comments[0].ID, Body: comments[0].Body}
			assert.Assert(t, is.Contains(survivor.Body, "report of run B"), "B wrote last")
			runs := srv.CheckRuns()
			assert.Equal(t, len(runs), tc.checkRuns)
			newest := runs[len(runs)-1]
			for _, r := range runs {
				if r.ID > newest.ID {
					newest = r
				}
			}
			assert.Equal(t, newest.ExternalID, vouch(survivor), "the newest check run vouches for the surviving report")
		})
	}
}
