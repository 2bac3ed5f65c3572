package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// checkRunsAPI lists fixed check runs; every other method is unused here.
type checkRunsAPI struct {
	API
	runs []CheckRun
	err  error
	ref  string
	name string
}

func (a *checkRunsAPI) ListCheckRunsForRef(_ context.Context, ref, name string) ([]CheckRun, error) {
	a.ref, a.name = ref, name
	return a.runs, a.err
}

// The review's record is the newest "cdkd diff" check run of our app on the
// reviewed commit.
func TestReviewRecord(t *testing.T) {
	const (
		sha    = "8888888888888888888888888888888888888888"
		digest = "v1:0123beef4567"
		other  = "v1:9999999999"
	)
	record := gate.DiffRecordV2(digest, 41, "abc")
	checkRun := func(id int64, app, externalID string) CheckRun {
		return CheckRun{ID: id, Name: "cdkd diff (prod)", HeadSHA: sha, ExternalID: externalID, AppSlug: app, HTMLURL: fmt.Sprintf("https://github.com/o/r/runs/%d", id)}
	}
	tests := []struct {
		name    string
		app     string
		secret  string
		runs    []CheckRun
		err     error
		want    *gate.Record
		warning string
		wantErr string
	}{
		{name: "none: check-run was false", runs: nil},
		{name: "the newest records the review", runs: []CheckRun{checkRun(1, "github-actions", gate.DiffRecordV2(other, 42, "def")), checkRun(2, "github-actions", record)},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", Renderer: 1, URL: "https://github.com/o/r/runs/2"}},
		{name: "the newest records another digest", runs: []CheckRun{checkRun(2, "github-actions", record), checkRun(3, "github-actions", gate.DiffRecordV2(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: other, CommentID: 42, ReportHash: "def", Renderer: 1, URL: "https://github.com/o/r/runs/3"}},
		{name: "the newest records none: a failed diff", runs: []CheckRun{checkRun(2, "github-actions", record), checkRun(3, "github-actions", "")},
			want: &gate.Record{Name: "cdkd diff (prod)", URL: "https://github.com/o/r/runs/3"}},
		{name: "another app's run is no record", runs: []CheckRun{checkRun(2, "github-actions", record), checkRun(3, "mallory-app", gate.DiffRecordV2(other, 42, "def"))},
			want:    &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", Renderer: 1, URL: "https://github.com/o/r/runs/2"},
			warning: "ignored check run https://github.com/o/r/runs/3: it is named \"cdkd diff (prod)\" but was created by the app mallory-app, not github-actions"},
		{name: "the trusted app named by the input", app: "deployer", runs: []CheckRun{checkRun(2, "deployer", record), checkRun(3, "github-actions", gate.DiffRecordV2(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", Renderer: 1, URL: "https://github.com/o/r/runs/2"}, warning: "created by the app github-actions, not deployer (input trusted-app)"},
		{name: "a run with no app never vouches", runs: []CheckRun{checkRun(2, "github-actions", record), checkRun(3, "", gate.DiffRecordV2(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", Renderer: 1, URL: "https://github.com/o/r/runs/2"}, warning: "was created by no app, not github-actions"},
		{name: "whatever the identity", runs: []CheckRun{checkRun(2, "github-actions", record), checkRun(3, "some-app", gate.DiffRecordV2(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", Renderer: 1, URL: "https://github.com/o/r/runs/2"}, warning: "created by the app some-app"},
		{name: "an older cdkd-action's record names no comment", runs: []CheckRun{checkRun(2, "github-actions", "cdkd-action:v1:diff:"+digest)},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, URL: "https://github.com/o/r/runs/2"}},
		{name: "the API fails", err: errors.New("502 Bad Gateway"), wantErr: "read the diff check runs on 8888888 to verify the review: 502 Bad Gateway"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			set := secrets.NewSet()
			if tc.secret != "" {
				set.Add(tc.secret, "test")
			}
			api := &checkRunsAPI{runs: tc.runs, err: tc.err}
			f := &Finder{API: api, Redactor: set, Warn: func(msg string) { out.WriteString("warning: " + msg + "\n") },
				Where: Where{Label: "prod", DiffCheck: "cdkd diff (prod)", TrustedApp: tc.app}}
			recs, err := f.records(context.Background(), sha)
			var got *gate.Record
			if len(recs) > 0 {
				got = &recs[0] // the newest
			}
			if tc.wantErr != "" {
				assert.Error(t, err, tc.wantErr)
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, api.ref, sha)
			assert.Equal(t, api.name, "cdkd diff (prod)")
			assert.DeepEqual(t, got, tc.want)
			if tc.warning != "" {
				assert.Assert(t, is.Contains(out.String(), tc.warning))
			} else {
				assert.Assert(t, !strings.Contains(out.String(), "warning"), out.String())
			}
		})
	}
}

// prsAPI lists fixed pull requests for a commit.
type prsAPI struct {
	API
	prs []ghctx.PullRequest
}

func (a prsAPI) PullRequestsForCommit(context.Context, string) ([]ghctx.PullRequest, error) {
	return a.prs, nil
}

// The pull request a pushed commit came from is one merged into the pushed
// branch: another branch's, sharing the commit, lends nothing.
func TestFindPR(t *testing.T) {
	const sha = "9999999999999999999999999999999999999999"
	release := ghctx.PullRequest{Number: 6, HeadSHA: sha, BaseRef: "release", MergeCommitSHA: "a1", Merged: true}
	ffMain := ghctx.PullRequest{Number: 8, HeadSHA: sha, BaseRef: "main", MergeCommitSHA: "b2", Merged: true}
	mergedMain := ghctx.PullRequest{Number: 9, HeadSHA: "h9", BaseRef: "main", MergeCommitSHA: sha, Merged: true}
	open := ghctx.PullRequest{Number: 10, HeadSHA: sha, BaseRef: "main"}
	tests := []struct {
		name, ref, event string
		prs              []ghctx.PullRequest
		want             int
		note             string
		ambiguous        []int
	}{
		{name: "merge commit", ref: "refs/heads/main", event: "push", prs: []ghctx.PullRequest{ffMain, mergedMain}, want: 9},
		{name: "fast-forward, another branch's listed first", ref: "refs/heads/main", event: "push", prs: []ghctx.PullRequest{release, ffMain}, want: 8},
		{name: "pushed to the other branch", ref: "refs/heads/release", event: "push", prs: []ghctx.PullRequest{release, ffMain}, want: 6},
		{name: "only another branch's", ref: "refs/heads/main", event: "push", prs: []ghctx.PullRequest{release, open},
			note: "no pull request merged into main has it as its merge commit or head: a direct push?; pull request #6 holds it but was merged into release, not main"},
		{name: "dispatch on main", ref: "refs/heads/main", event: "workflow_dispatch", prs: []ghctx.PullRequest{mergedMain}, want: 9},
		{name: "dispatch, nothing merged", ref: "refs/heads/main", event: "workflow_dispatch", prs: []ghctx.PullRequest{open},
			note: "the run was started by workflow_dispatch, and no pull request merged into main has it as its merge commit or head"},
		{name: "two merged pull requests share the head", ref: "refs/heads/main", event: "push", prs: []ghctx.PullRequest{ffMain, {Number: 12, HeadSHA: sha, BaseRef: "main", Merged: true}},
			ambiguous: []int{8, 12}, note: "several pull requests hold it"},
		{name: "a tag: merge commit only", ref: "refs/tags/v1", event: "push", prs: []ghctx.PullRequest{ffMain, mergedMain}, want: 9},
		{name: "a tag: no fast-forward guess", ref: "refs/tags/v1", event: "push", prs: []ghctx.PullRequest{release, ffMain},
			note: "no merged pull request has it as its merge commit (refs/tags/v1 is no branch, so a fast-forward merge is not looked for): a direct push?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			branch, _ := strings.CutPrefix(tc.ref, "refs/heads/")
			if branch == tc.ref {
				branch = ""
			}
			s := &Finder{API: prsAPI{prs: tc.prs}, Where: Where{SHA: sha, Ref: tc.ref, Branch: branch, EventName: tc.event}}
			got, note, err := s.findPR(context.Background())
			assert.NilError(t, err)
			assert.Equal(t, got, tc.want)
			assert.Equal(t, note, tc.note)
			assert.DeepEqual(t, s.ambiguous, tc.ambiguous)
		})
	}
}

// A deploy section is vouched for by any trusted deploy check run on the
// commit that recorded it (a later run that recorded another section but
// lost its write does not disown it); a failed read is an error, not an
// edit.
func TestDeploySection(t *testing.T) {
	const sha = "9999999999999999999999999999999999999999"
	section := "### cdkd deploy\n\n✅ deployed\n"
	run := func(id int64, externalID string) CheckRun {
		return CheckRun{ID: id, Name: "cdkd deploy", HeadSHA: sha, ExternalID: externalID, AppSlug: "github-actions"}
	}
	tests := []struct {
		name    string
		runs    []CheckRun
		err     error
		why     string
		wantErr string
	}{
		{name: "the newest records it", runs: []CheckRun{run(1, gate.DeployRecord(5, prcomment.ReportHash(section)))}},
		{name: "an older one records it", runs: []CheckRun{run(1, gate.DeployRecord(5, prcomment.ReportHash(section))), run(2, gate.DeployRecord(5, "other"))}},
		{name: "none records it", runs: []CheckRun{run(2, gate.DeployRecord(5, "other"))}, why: "no deploy of 9999999 wrote"},
		{name: "another comment's", runs: []CheckRun{run(2, gate.DeployRecord(6, prcomment.ReportHash(section)))}, why: "no deploy of 9999999 wrote"},
		{name: "GitHub fails", err: errors.New("502 Bad Gateway"), wantErr: "read the deploy check runs on 9999999 to verify the review comment's deploy section: 502 Bad Gateway"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &Finder{API: &checkRunsAPI{runs: tc.runs, err: tc.err}, Warn: func(string) {},
				Where: Where{SHA: sha, DeployCheck: "cdkd deploy"}}
			why, err := f.deploySection(context.Background(), &Comment{ID: 5}, section)
			if tc.wantErr != "" {
				assert.Error(t, err, tc.wantErr)
				return
			}
			assert.NilError(t, err)
			if tc.why == "" {
				assert.Equal(t, why, "")
			} else {
				assert.Assert(t, is.Contains(why, tc.why))
			}
		})
	}
}

// The record that speaks for a pull request is the newest naming one of its
// comments: one head in two pull requests with one label gives two.
func TestVouching(t *testing.T) {
	ours := []Comment{{ID: 5}}
	recs := []gate.Record{{CommentID: 9, Digest: "b"}, {CommentID: 5, Digest: "a"}, {CommentID: 4, Digest: "old"}}
	assert.Equal(t, vouching(recs, ours).Digest, "a")
	failed := append([]gate.Record{{CommentID: 0}}, recs...)
	assert.Equal(t, vouching(failed, ours).CommentID, int64(0), "a newer failed diff speaks for every pull request")
	assert.Equal(t, vouching(recs[:1], ours).CommentID, int64(9), "nothing of ours: the newest stands, for the refusal")
	assert.Assert(t, vouching(nil, ours) == nil)
}

// pushAPI answers a compare and each commit's pull requests.
type pushAPI struct {
	API
	commits []string
	prs     map[string][]ghctx.PullRequest
}

func (a pushAPI) CommitsBetween(context.Context, string, string) ([]string, error) {
	return a.commits, nil
}

func (a pushAPI) PullRequestsForCommit(_ context.Context, sha string) ([]ghctx.PullRequest, error) {
	return a.prs[sha], nil
}

// The pull requests a push merged are those merged into the pushed branch
// at one of its commits; a new branch's push, another branch's or an open
// pull request are not.
func TestBatch(t *testing.T) {
	const before, after = "1111111111111111111111111111111111111111", "9999999999999999999999999999999999999999"
	api := pushAPI{commits: []string{"c1", "c2", after}, prs: map[string][]ghctx.PullRequest{
		"c1":  {{Number: 4, Merged: true, BaseRef: "main", MergeCommitSHA: "c1"}, {Number: 5, Merged: true, BaseRef: "release", MergeCommitSHA: "c1"}},
		"c2":  {{Number: 6, BaseRef: "main", HeadSHA: "c2"}, {Number: 7, Merged: true, BaseRef: "main", HeadSHA: "c2", MergeCommitSHA: "x"}},
		after: {{Number: 8, Merged: true, BaseRef: "main", MergeCommitSHA: after}},
	}}
	tests := []struct {
		name, before string
		want         []int
	}{
		{name: "a push of three", before: before, want: []int{4, 7}},
		{name: "a new branch", before: "0000000000000000000000000000000000000000"},
		{name: "no push", before: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &Finder{API: api, Where: Where{SHA: after, Branch: "main", Before: tc.before}}
			got, err := f.batch(context.Background(), 8)
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

// A review is shown once a diff check run recording its digest completed:
// the earliest such completion, never a run that records another digest
// or has not completed.
func TestShownAt(t *testing.T) {
	t1, t2 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2024, 1, 2, 3, 9, 0, 0, time.UTC)
	head, digest := "8888888888888888888888888888888888888888", "v3:"+strings.Repeat("a", 64)
	recs := func(rs ...gate.Record) []gate.Record { return rs }
	tests := []struct {
		name    string
		recs    []gate.Record
		at      time.Time
		by      string
		unknown string
	}{
		{"the earliest completion recording the digest", recs(gate.Record{Digest: digest, CompletedAt: t2, URL: "run/3"}, gate.Record{Digest: "v3:other", CompletedAt: t1, URL: "run/2"},
			gate.Record{Digest: digest, CompletedAt: t1.Add(time.Minute), URL: "run/1"}), t1.Add(time.Minute), "run/1", ""},
		{"none completed", recs(gate.Record{Digest: digest, URL: "run/1"}), time.Time{}, "", "no diff check run on 8888888 that records its digest"},
		{"none records the digest", recs(gate.Record{Digest: "v3:other", CompletedAt: t1}), time.Time{}, "", "no diff check run of the trusted app on 8888888 records its digest"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ShownAt(tc.recs, head, digest)
			assert.Equal(t, got.At, tc.at)
			assert.Equal(t, got.By, tc.by)
			assert.Assert(t, strings.HasPrefix(got.Unknown, tc.unknown), got.Unknown)
		})
	}
}
