package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reviewstore"
)

// A review is a contract across releases: what one release writes, every
// later one reads. testdata/cross-release keeps, per release, review
// comments that release wrote through its real diff path, with the check
// run record its diff left and, when the change set was kept in the state
// bucket, the object it stored. They are written once and never again: a
// later release that cannot deploy them through its gate has broken every
// review open when it ships. docs/versions.md says when to add a release's.
//
// To add the reviews of the current release (a new layout), run once:
//
//	CDKD_WRITE_CROSS_RELEASE=1 go test ./cmd/cdkd-action -run TestCrossReleaseFixtures
//
// which writes the reviews of the current layout that are not there yet
// and never touches one that is.
const crossReleaseDir = "testdata/cross-release"

// crossReleaseReview is one kept review: meta.json in its folder.
type crossReleaseReview struct {
	// Release says which release wrote it and what it covers.
	Release string `json:"release"`
	// Commit is the commit whose code wrote it: the last commit that
	// wrote its layout, checked out clean (writeCrossRelease refuses a
	// tree with changes).
	Commit string `json:"commit"`
	// Diff is cdkd's diff --json, read by the diff that wrote the review
	// and by the deploy that accepts it.
	Diff string `json:"diff"`
	// CommentID is the id the comment had when it was written; its check
	// run record names it (the test seeds the comment anew and rewrites
	// only that id in the record).
	CommentID int64 `json:"commentId"`
	// CheckRun is the external ID of the diff's check run.
	CheckRun string `json:"checkRun"`
	// StoredKey and Stored are the state bucket's object, when the change
	// set was kept there ("" otherwise).
	StoredKey string `json:"storedKey,omitempty"`
	Stored    string `json:"stored,omitempty"`
	// Assembly is the cloud assembly folder both runs read ("": the
	// deploy fixtures' created resources).
	Assembly string `json:"assembly,omitempty"`
}

// crossReleaseCases are the reviews this release writes, by folder: the
// three ways a change set is kept (whole in the comment, only its
// fingerprints there, in the state bucket).
var crossReleaseCases = []struct {
	name, release string
	// diff writes the cdkd diff --json file into dir.
	diff   func(t *testing.T, dir string) string
	bucket bool
	// assembly is the cloud assembly the diff reads ("": the deploy
	// fixtures' created resources).
	assembly string
}{
	{name: "whole", release: "a change set kept whole in the comment",
		diff: copiedDiff("testdata/deploy/diff-safe.json")},
	{name: "fingerprints", release: "700 changes, only their fingerprints in the comment, no state bucket",
		diff: func(t *testing.T, dir string) string { return largeValueDiff(t, dir, "StackA", 700) }},
	{name: "stored", release: "1,000 changes kept in the state bucket",
		diff: func(t *testing.T, dir string) string { return largeValueDiff(t, dir, "StackA", 1000) }, bucket: true},
	{name: "picture", release: "a replacement and a deletion, with the picture of what they touch (layout v2 on)",
		diff: copiedDiff("testdata/picture/diff.json"), assembly: "testdata/picture/assembly"},
}

// copiedDiff writes a copy of the cdkd diff --json file into dir.
func copiedDiff(file string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		b, err := os.ReadFile(file)
		assert.NilError(t, err)
		path := filepath.Join(dir, "diff.json")
		writeFile(t, path, string(b))
		return path
	}
}

// Every review kept in testdata/cross-release deploys through this
// release's gate, whichever release wrote it.
func TestCrossReleaseFixtures(t *testing.T) {
	if os.Getenv("CDKD_WRITE_CROSS_RELEASE") != "" {
		writeCrossRelease(t) // its subtests run in parallel, after this returns
		return
	}
	dirs, err := filepath.Glob(filepath.Join(crossReleaseDir, "r*-*"))
	assert.NilError(t, err)
	assert.Assert(t, len(dirs) >= len(crossReleaseCases), "the reviews of layout v1 are kept (%d found)", len(dirs))
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { deployCrossRelease(t, dir) })
	}
}

// deployCrossRelease seeds the review kept in dir on pull request #8, as
// GitHub (and the state bucket) held it, and deploys its change set.
func deployCrossRelease(t *testing.T, dir string) {
	var kept crossReleaseReview
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(raw, &kept))
	assert.Assert(t, commitID.MatchString(kept.Commit), "%s/meta.json names the commit that wrote it (%q)", dir, kept.Commit)
	body, err := os.ReadFile(filepath.Join(dir, "comment.md"))
	assert.NilError(t, err)
	h, ok := marker.Parse(string(body))
	assert.Assert(t, ok, "the kept comment starts with its header")
	blasttest.Check(t, map[string]string{filepath.Base(dir): string(body)}, nil)

	aws := startAWS(t)
	w := newDeployWorkspace(t, h.SHA)
	key := w.vars["INPUT_FINGERPRINT-KEY"]
	w.useAWS(aws)
	w.vars["INPUT_FINGERPRINT-KEY"] = key
	var env []string
	if kept.Stored != "" {
		bucket := "cross-release-" + unique(t)
		stored, err := os.ReadFile(filepath.Join(dir, kept.Stored))
		assert.NilError(t, err)
		aws.createBucket(t, bucket, map[string]string{kept.StoredKey: string(stored)})
		env = append(env, "CDKD_STATE_BUCKET="+bucket)
	}

	seeded := w.gh.SeedComments(owner, repo, deployPR, githubtest.DefaultLogin, string(body))
	rec, ok := gate.ParseDiffRecord(kept.CheckRun)
	assert.Assert(t, ok, "the kept record parses: %s", kept.CheckRun)
	assert.Equal(t, rec.CommentID, kept.CommentID)
	externalID := strings.Replace(kept.CheckRun, ":"+itoa(kept.CommentID)+":", ":"+itoa(seeded[0].ID)+":", 1)
	c, err := github.NewClient(token, w.gh.APIURL())
	assert.NilError(t, err)
	_, err = c.CreateCheckRun(context.Background(), owner, repo, github.CheckRun{Name: "cdkd diff", HeadSHA: h.SHA, ExternalID: externalID,
		Status: "completed", Conclusion: "success", Title: "the kept review", Summary: "seeded by the cross-release test"})
	assert.NilError(t, err)

	diff := abs(t, filepath.Join(dir, kept.Diff))
	// The deploy is given the stacks the change set changes, and the
	// picture's Api, which imports an export of Storage.
	stacks := changedStacks(t, diff)
	if kept.Assembly != "" {
		stacks = append(stacks, "Api")
		slices.Sort(stacks)
	}
	invs := append([]cdkdtest.Invocation{gateDiff(t, diff), deployInvocation(t, stacks...)}, resultInvocationsOf(t, "events-StackA-run.json", stacks...)...)
	inputs := deployInputs()
	if kept.Assembly != "" {
		useAssembly(t, w, filepath.Join(dir, kept.Assembly))
		invs = append(invs, pictureResultInvocations(t)...)
		inputs["allow-destructive"] = "true"
	}
	stub := w.stub(invs...)
	w.onPush()
	res := w.run(inputs, env...)
	assert.Equal(t, res.code, 0, "%s: %s", kept.Release, lastLines(res.stdout, 30))
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Equal(t, res.outputs["digest"], h.Digest, "the kept review's change set is the one deployed")
}

// writeCrossRelease writes, through the real diff path, the reviews of
// this release's layout that are not kept yet. It never rewrites one.
func writeCrossRelease(t *testing.T) {
	commit := cleanCheckout(t)
	for _, tc := range crossReleaseCases {
		dir := filepath.Join(crossReleaseDir, "r"+itoa(int64(prcomment.RendererVersion))+"-"+tc.name)
		if _, err := os.Stat(dir); err == nil {
			t.Logf("%s is kept already: left as it is", dir)
			continue
		}
		t.Run("write "+tc.name, func(t *testing.T) {
			aws := startAWS(t)
			w := newDeployWorkspace(t, reviewedSHA)
			key := w.vars["INPUT_FINGERPRINT-KEY"]
			w.useAWS(aws)
			w.vars["INPUT_FINGERPRINT-KEY"] = key
			diff := tc.diff(t, t.TempDir())
			var env []string
			bucket := "cross-release-" + unique(t)
			if tc.bucket {
				aws.createBucket(t, bucket, nil)
				env = append(env, "CDKD_STATE_BUCKET="+bucket)
			}
			if tc.assembly != "" {
				useAssembly(t, w, tc.assembly)
			}
			w.stub(gateDiff(t, diff))
			h := w.review(reviewedSHA, diffInputs(), env...)
			comment := prComment(t, w.gh)
			kept := crossReleaseReview{Release: "layout v" + itoa(int64(prcomment.RendererVersion)) + ": " + tc.release, Diff: "diff.json", Commit: commit, CommentID: comment.ID, CheckRun: diffCheck(t, w.gh).ExternalID}
			if tc.assembly != "" {
				kept.Assembly = "assembly"
				copyDir(t, tc.assembly, filepath.Join(dir, kept.Assembly))
			}
			rec, ok := gate.ParseDiffRecord(kept.CheckRun)
			assert.Assert(t, ok)
			assert.Equal(t, rec.Renderer, prcomment.RendererVersion)
			var stored string
			if tc.bucket {
				assert.Equal(t, rec.Kept, gate.KeptStored)
				kept.StoredKey, kept.Stored = storedKey(h.Digest), "stored.json.gz"
				var there bool
				stored, there = aws.object(t, bucket, kept.StoredKey)
				assert.Assert(t, there)
			} else {
				assert.Equal(t, rec.Kept, gate.KeptInComment)
			}
			assert.NilError(t, os.MkdirAll(dir, 0o755))
			b, err := os.ReadFile(diff)
			assert.NilError(t, err)
			writeFile(t, filepath.Join(dir, kept.Diff), string(b))
			writeFile(t, filepath.Join(dir, "comment.md"), comment.Body)
			if stored != "" {
				writeFile(t, filepath.Join(dir, kept.Stored), stored)
			}
			meta, err := json.MarshalIndent(kept, "", "  ")
			assert.NilError(t, err)
			writeFile(t, filepath.Join(dir, "meta.json"), string(meta)+"\n")
			assert.Assert(t, is.Contains(comment.Body, `"render":`+itoa(int64(prcomment.RendererVersion))))
		})
	}
}

// commitID is a full commit ID.
var commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// cleanCheckout is the commit checked out, refusing a tree whose tracked
// files have changes: a kept review is what that commit's code wrote.
func cleanCheckout(t *testing.T) string {
	t.Helper()
	if out, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err != nil || len(out) > 0 {
		t.Fatalf("write the kept reviews from a clean checkout of the commit that writes the layout (git status: %v)\n%s", err, out)
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	assert.NilError(t, err)
	return strings.TrimSpace(string(out))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// storedKey is where the diff keeps a change set under the default prefix.
func storedKey(digest string) string { return reviewstore.Key("", digest) }

// A review in a layout this release does not render (a later release's,
// or one it no longer keeps) is refused as such, asking for the diff to be
// run again: it is no edit. A header that names another layout than its
// check run records is an edit.
func TestReviewLayoutIsBoundAndNamed(t *testing.T) {
	const next = prcomment.RendererVersion + 1 // a layout no release has yet
	for _, tc := range []struct {
		name           string
		header, record int
		want           []string
		edited         bool
	}{
		{name: "a layout this release does not render", header: next, record: next,
			want: []string{"The reviewed change set of pull request #8 cannot be verified: its visible report is in a layout this release cannot render again to check it " +
				"(unknown report layout v" + itoa(next) + ": this release of cdkd-action renders " + prcomment.SupportedRenderers() + "); this is no edit: re-run the pull request's diff"}},
		{name: "the header contradicts its record", header: next, record: prcomment.RendererVersion, edited: true,
			want: []string{"The diff comment on pull request #8 was altered after the diff wrote it (the review comment was edited: its header names report layout v" + itoa(next) + ", the diff check run ",
				"records v" + itoa(prcomment.RendererVersion) + ")"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
			w.review(reviewedSHA, diffInputs())
			c := prComment(t, w.gh)
			first, rest, _ := strings.Cut(c.Body, "\n")
			h, ok := marker.Parse(first)
			assert.Assert(t, ok)
			assert.Equal(t, h.Render, prcomment.RendererVersion, "this release writes its layout")
			h.Render = tc.header
			w.gh.EditComment(owner, repo, c.ID, h.String()+"\n"+rest)
			check := diffCheck(t, w.gh)
			rec, ok := gate.ParseDiffRecord(check.ExternalID)
			assert.Assert(t, ok)
			client, err := github.NewClient(token, w.gh.APIURL())
			assert.NilError(t, err)
			_, err = client.UpdateCheckRun(context.Background(), owner, repo, check.ID, github.CheckRun{
				ExternalID: gate.DiffRecord(rec.Digest, rec.CommentID, rec.ReportHash, tc.record, rec.Kept)})
			assert.NilError(t, err)

			res := w.run(deployInputs())
			stub.AssertAllUsed(t)
			assert.Equal(t, res.code, 1, lastLines(res.stdout, 30))
			assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
			for _, want := range tc.want {
				assert.Assert(t, strings.Contains(res.stdout, want), "%q in %s", want, lastLines(res.stdout, 30))
			}
			if !tc.edited {
				assert.Assert(t, strings.Contains(res.stdout, "::error::Deploy refused: Review cannot be verified: "), lastLines(res.stdout, 30))
				assert.Assert(t, !strings.Contains(res.stdout, "edited"), lastLines(res.stdout, 30))
				assert.Assert(t, !strings.Contains(res.stdout, "altered"), lastLines(res.stdout, 30))
			}
		})
	}
}

// A record older than v3 does not say where the change set is kept: a
// comment of it without its hidden line is refused as unverifiable, never
// called edited (its diff may have been unable to keep a large change set).
func TestOlderRecordWithoutALineIsNoProvenEdit(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.review(reviewedSHA, diffInputs())
	c := prComment(t, w.gh)
	lines := strings.SplitN(c.Body, "\n", 3)
	assert.Assert(t, strings.HasPrefix(lines[1], "<!-- cdkd-action-changeset:"))
	// An older release's comment, as its record is: no layout in the header.
	h, ok := marker.Parse(lines[0])
	assert.Assert(t, ok)
	h.Render = 0
	w.gh.EditComment(owner, repo, c.ID, h.String()+"\n"+lines[2])
	check := diffCheck(t, w.gh)
	rec, ok := gate.ParseDiffRecord(check.ExternalID)
	assert.Assert(t, ok)
	client, err := github.NewClient(token, w.gh.APIURL())
	assert.NilError(t, err)
	_, err = client.UpdateCheckRun(context.Background(), owner, repo, check.ID, github.CheckRun{ExternalID: gate.DiffRecordV2(rec.Digest, rec.CommentID, rec.ReportHash)})
	assert.NilError(t, err)

	res := w.run(deployInputs())
	stub.AssertAllUsed(t)
	assert.Equal(t, res.code, 1, lastLines(res.stdout, 30))
	assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
	assert.Assert(t, strings.Contains(res.stdout, "::error::Deploy refused: Review cannot be verified: The reviewed change set of pull request #8 cannot be verified: its comment carries no hidden change-set line"), lastLines(res.stdout, 30))
	assert.Assert(t, !strings.Contains(res.stdout, "altered"), lastLines(res.stdout, 30))
}
