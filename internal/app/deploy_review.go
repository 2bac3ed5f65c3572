package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// prReviews finds the review of the commit being deployed: the pull request
// it came from, and on it the diff comment written by our own identity. It
// implements gate.Reviews and keeps what it found for the report.
type prReviews struct {
	r *Env

	pr *github.PullRequest
	// ambiguous lists the pull requests the commit belongs to, when
	// several do.
	ambiguous []int
	comment   *github.Comment
	header    marker.Header
	err       error
}

var _ gate.Reviews = (*prReviews)(nil)

// bot is the login trusted diff comments are written by (see
// Env.ident).
func (s *prReviews) bot(ctx context.Context) string {
	login, err := s.r.ident().Login(ctx)
	if err != nil {
		// No author: the review lookup fails with this error recorded,
		// and the deploy stops with api-failed instead of trusting a guess.
		s.err = err
		return ""
	}
	return login
}

func (s *prReviews) Review(ctx context.Context) (gate.Review, error) {
	rv, err := s.review(ctx)
	s.err = err
	return rv, err
}

func (s *prReviews) review(ctx context.Context) (gate.Review, error) {
	r := s.r
	rv := gate.Review{Commit: "commit " + reporters.ShortSHA(r.gh.SHA)}
	switch {
	case r.local:
		rv.Note = "a local run reads no pull request"
		return rv, nil
	case r.api == nil:
		rv.Note = "no GitHub token to read pull requests with"
		return rv, nil
	}
	number, note, err := s.findPR(ctx)
	if err != nil {
		return rv, err
	}
	if len(s.ambiguous) > 1 {
		rv.Ambiguous = s.ambiguous
		return rv, nil
	}
	if number == 0 {
		rv.Note = note
		return rv, nil
	}
	pr, err := r.api.GetPullRequest(ctx, r.gh.Owner, r.gh.Repo, number)
	if err != nil {
		return rv, fmt.Errorf("read pull request #%d: %w", number, err)
	}
	s.pr = &pr
	rv.PR, rv.HeadSHA = pr.Number, pr.HeadSHA
	if rv.Labels, rv.LateLabels, err = s.labelsAtMerge(ctx, pr); err != nil {
		return rv, err
	}
	if !pr.MergedAt.IsZero() {
		rv.MergedAt = pr.MergedAt.UTC().Format(time.RFC3339)
	}
	if rv.Approvals, err = s.approvals(ctx, pr); err != nil {
		return rv, err
	}

	author := s.bot(ctx)
	if author == "" && s.err != nil {
		return rv, s.err // the identity could not be read: say why
	}
	t := github.StickyTarget{Owner: r.gh.Owner, Repo: r.gh.Repo, Number: pr.Number, Kind: prcomment.KindDiff, Label: r.cfg.Label, Author: author}
	ours, others, err := github.Ours(ctx, r.api, t)
	if err != nil {
		return rv, err
	}
	for _, w := range github.Spoofs(others, t.Author) {
		r.runner.Warning(w + "; it is not trusted as a review")
	}
	if len(ours) == 0 {
		return rv, nil
	}
	// The diff's check run on the final head names the comment it vouches
	// for: that one is the review, whatever else carries our header (every
	// workflow using GITHUB_TOKEN posts as github-actions[bot]).
	onHead, recErr := s.record(ctx, pr.HeadSHA)
	c := &ours[len(ours)-1] // without a record naming one: the newest, for the refusal's message
	if recErr == nil && onHead != nil && onHead.CommentID != 0 {
		c = nil
		for i := range ours {
			if ours[i].ID == onHead.CommentID {
				c = &ours[i]
			}
		}
		if c == nil {
			rv.Comment, rv.ReviewedSHA, rv.Digest, rv.Record = true, pr.HeadSHA, onHead.Digest, onHead
			rv.Tampered = fmt.Sprintf("the diff check run %s vouches for comment %d, which is no longer on the pull request as a comment by %s", onHead.URL, onHead.CommentID, author)
			return rv, nil
		}
		for _, o := range ours {
			if o.ID != c.ID {
				r.runner.Warning(fmt.Sprintf("ignored comment %s: it carries cdkd-action's diff header, but the diff check run %s vouches for %s; it is not trusted as a review",
					o.HTMLURL, onHead.URL, c.HTMLURL))
			}
		}
	}
	h, _ := marker.Parse(c.Body)
	s.comment, s.header = c, h
	rv.Comment, rv.ReviewedSHA, rv.Digest = true, h.SHA, h.Digest
	rv.KeyID = h.Extra[fingerprintKeyIDField]
	if h.Digest == "" {
		return rv, nil // a failed diff: no review to verify
	}
	if h.SHA != "" {
		// Without the check runs the review cannot be verified (Decide
		// refuses it when the gate is on), but the rest of the review —
		// the pull request and its labels — still counts.
		rec, err := onHead, recErr
		if h.SHA != pr.HeadSHA {
			rec, err = s.record(ctx, h.SHA)
		}
		if err != nil {
			rec = nil
			r.runner.Warning(fmt.Sprintf("cannot read the diff's check runs to verify the review (the job needs checks: read): %v", err))
		}
		rv.Record = rec
	}
	rv.ChangeSet, rv.Tampered = s.verify(ctx, c, h, rv.Record)
	return rv, nil
}

// verify reads the reviewed change set from comment c (header h) and checks
// that what reviewers read is what it records: the change-set line must be
// there and match the digest, the visible report must hash to what the
// diff's check run recorded and, when the change set is stored whole,
// render again from it to the byte; a deploy section must be one a deploy
// of this commit wrote. It returns the change set and, when the
// comment was edited, how ("" when it was not).
func (s *prReviews) verify(ctx context.Context, c *github.Comment, h marker.Header, rec *gate.Record) (*gate.ChangeSet, string) {
	const edited = "the review comment was edited: "
	cs, err := prcomment.DecodeChangeSet(c.Body, h.Digest)
	switch {
	case errors.Is(err, prcomment.ErrNoChangeSet):
		return nil, edited + "the hidden change-set line under its header is missing"
	case err != nil:
		return nil, edited + err.Error()
	}
	pc, _ := prcomment.Parse(c.Body)
	if rec != nil && rec.ReportHash != "" && prcomment.ReportHash(pc.Report) != rec.ReportHash {
		return cs, edited + "its visible report is not the one the diff posted (the diff check run records another)"
	}
	if cs.Diff != nil {
		if err := pc.VerifyReport(cs, reporters.CommentBudget, s.r.set); err != nil {
			return cs, err.Error()
		}
	}
	if pc.Deploy != "" {
		if why := s.deploySection(ctx, c, pc.Deploy); why != "" {
			return cs, edited + why
		}
	}
	return cs, ""
}

// record reads what the diff command's check run on commit sha recorded
// (gate.DiffMarker in its external ID). A comment can be edited by anyone
// with write access (GitHub keeps its author), a check run cannot be edited
// in GitHub's UI. Nil when there is none.
func (s *prReviews) record(ctx context.Context, sha string) (*gate.Record, error) {
	name := checkName("cdkd diff", s.r.cfg.Label)
	newest, err := s.newestCheckRun(ctx, sha, name)
	if err != nil {
		return nil, fmt.Errorf("read the diff check runs on %s to verify the review: %w", reporters.ShortSHA(sha), err)
	}
	if newest == nil {
		return nil, nil
	}
	rec, _ := gate.ParseDiffMarker(newest.ExternalID)
	rec.Name, rec.URL = name, newest.HTMLURL
	return &rec, nil
}

// newestCheckRun is the newest check run named name on commit sha created
// by the trusted app (input trusted-app); check runs of any other app, or
// of none, are named in the log and never count. Nil when there is none.
func (s *prReviews) newestCheckRun(ctx context.Context, sha, name string) (*github.CheckRunInfo, error) {
	r := s.r
	if sha == "" {
		return nil, nil
	}
	runs, err := r.api.ListCheckRunsForRef(ctx, r.gh.Owner, r.gh.Repo, sha, name)
	if err != nil {
		return nil, err
	}
	app := r.cfg.TrustedApp
	if app == "" {
		app = config.DefaultTrustedApp
	}
	var newest *github.CheckRunInfo
	for i, cr := range runs {
		if cr.Name != name || cr.HeadSHA != "" && cr.HeadSHA != sha {
			continue
		}
		if !strings.EqualFold(cr.AppSlug, app) {
			by := "by the app " + cr.AppSlug
			if cr.AppSlug == "" {
				by = "by no app"
			}
			r.runner.Warning(fmt.Sprintf("ignored check run %s: it is named %q but was created %s, not %s (input trusted-app); it is not trusted as a record of the review",
				cr.HTMLURL, name, by, app))
			continue
		}
		if newest == nil || cr.ID > newest.ID {
			newest = &runs[i]
		}
	}
	return newest, nil
}

// deploySection checks the deploy section of review comment c, the one
// part written after the review: only a deploy of this commit writes one,
// and its check run records which. "" when that record vouches for it,
// else why not.
func (s *prReviews) deploySection(ctx context.Context, c *github.Comment, section string) string {
	r := s.r
	newest, err := s.newestCheckRun(ctx, r.gh.SHA, checkName("cdkd deploy", r.cfg.Label))
	if err != nil {
		return fmt.Sprintf("its deploy section cannot be verified (reading the deploy check runs on %s failed: %v)", reporters.ShortSHA(r.gh.SHA), err)
	}
	if newest != nil {
		if id, hash, ok := gate.ParseDeployMarker(newest.ExternalID); ok && id == c.ID && hash == prcomment.ReportHash(section) {
			return ""
		}
	}
	return fmt.Sprintf("it carries a deploy section that no deploy of %s wrote (the newest \"cdkd deploy\" check run of the trusted app does not record it)", reporters.ShortSHA(r.gh.SHA))
}

// labelsAtMerge splits pr's labels into those it carried when it merged,
// which approve what was merged, and those added after, which approve
// nothing: anyone with triage rights can label a merged pull request and
// re-run the deploy. Only a pull request carrying the destructive-approval
// label needs its history read; one not merged counts its labels as they are.
func (s *prReviews) labelsAtMerge(ctx context.Context, pr github.PullRequest) (atMerge, late []string, err error) {
	label := s.r.cfg.DestructiveLabel
	if pr.MergedAt.IsZero() || label == "" || !slices.ContainsFunc(pr.Labels, func(l string) bool { return strings.EqualFold(l, label) }) {
		return pr.Labels, nil, nil
	}
	events, err := s.r.api.ListLabelEvents(ctx, s.r.gh.Owner, s.r.gh.Repo, pr.Number)
	if err != nil {
		return nil, nil, fmt.Errorf("read when the labels of pull request #%d were added (the job needs issues: read or pull-requests: read): %w", pr.Number, err)
	}
	slices.SortStableFunc(events, func(a, b github.LabelEvent) int { return a.At.Compare(b.At) })
	on := map[string]bool{}
	for _, e := range events {
		if !e.At.Before(pr.MergedAt) {
			continue // the same second counts as after: fail closed
		}
		on[strings.ToLower(e.Label)] = e.Event == "labeled"
	}
	for _, l := range pr.Labels {
		if on[strings.ToLower(l)] {
			atMerge = append(atMerge, l)
		} else {
			late = append(late, l)
		}
	}
	return atMerge, late, nil
}

// findPR names the pull request the deployed commit came from: the event's
// own, or the one merged into the branch the run is on (GITHUB_REF) whose
// merge commit (else head, for a fast-forward merge) is GITHUB_SHA. A pull
// request into another branch never counts, though it may share the commit
// (the same head proposed to two branches): its labels and review are about
// another change. Without a branch (a tag), only a merge commit, which
// belongs to one pull request, counts.
func (s *prReviews) findPR(ctx context.Context) (int, string, error) {
	r := s.r
	if r.gh.PR != nil {
		return r.gh.PR.Number, "", nil
	}
	if r.gh.SHA == "" {
		return 0, "GITHUB_SHA is not set", nil
	}
	prs, err := r.api.PullRequestsForCommit(ctx, r.gh.Owner, r.gh.Repo, r.gh.SHA)
	if err != nil {
		return 0, "", err
	}
	branch := r.gh.Branch()
	into := func(p github.PullRequest) bool { return p.Merged && (branch == "" || p.BaseRef == branch) }
	matches := []func(github.PullRequest) bool{
		func(p github.PullRequest) bool { return into(p) && p.MergeCommitSHA == r.gh.SHA },
	}
	if branch != "" {
		matches = append(matches, func(p github.PullRequest) bool { return into(p) && p.HeadSHA == r.gh.SHA }) // a fast-forward merge
	}
	for _, match := range matches {
		var found []int
		for _, p := range prs {
			if match(p) && !slices.Contains(found, p.Number) {
				found = append(found, p.Number)
			}
		}
		switch {
		case len(found) == 1:
			return found[0], "", nil
		case len(found) > 1:
			// Whose review and whose labels? Taking the first would let
			// another pull request's approval deploy this one's change.
			slices.Sort(found)
			s.ambiguous = found
			return 0, "several pull requests hold it", nil
		}
	}
	note := "no merged pull request has it as its merge commit"
	if branch != "" {
		note = "no pull request merged into " + branch + " has it as its merge commit or head"
	} else if r.gh.Ref != "" {
		note += " (" + r.gh.Ref + " is no branch, so a fast-forward merge is not looked for)"
	}
	switch {
	case r.gh.EventName == "" || r.gh.EventName == "push":
		note += ": a direct push?"
	default:
		note = "the run was started by " + r.gh.EventName + ", and " + note
	}
	for _, p := range prs {
		if p.Merged && branch != "" && p.BaseRef != branch && (p.MergeCommitSHA == r.gh.SHA || p.HeadSHA == r.gh.SHA) {
			note += fmt.Sprintf("; pull request #%d holds it but was merged into %s, not %s", p.Number, p.BaseRef, branch)
			break
		}
	}
	return 0, note, nil
}

// describe adds what was found to the report.
func (s *prReviews) describe(rep *reporters.DeployReport) {
	if s.pr != nil {
		rep.PR = s.pr.Number
	}
	if s.comment != nil {
		rep.ReviewedSHA = s.header.SHA
		rep.ReviewURL = s.comment.HTMLURL
	}
}

// currentChangeSet runs `cdkd diff` on what is being deployed and computes
// its digest exactly as the diff command does: redacted, sorted, digested.
type currentChangeSet struct {
	r       *Env
	version string
	// assembly is the cloud assembly the gate's diff synthesized, when app
	// is a command: cdkd deploy reads it rather than synthesizing again, so
	// it deploys exactly the templates that were compared ("" when app is
	// already an assembly, or the diff left none).
	assembly string
	// resynth says why cdkd deploy synthesizes again although app is a
	// command, "" when it does not.
	resynth string
}

var _ gate.ChangeSets = (*currentChangeSet)(nil)

func (c *currentChangeSet) ChangeSet(ctx context.Context) (gate.Current, error) {
	before := stampAssembly(c.r.synthesizedPath())
	d, version, err := c.r.obtainDiff(ctx)
	c.version = version
	if err != nil {
		return gate.Current{}, err
	}
	c.pinAssembly(before)
	_, unverifiable := c.r.redactDiff(ctx, &d)
	c.r.securityChanges(ctx, &d) // as the diff does: the rows are in the digest
	d.Sort()
	return gate.Current{Diff: d, Digest: d.Digest(), Unverifiable: unverifiable, KeyID: c.r.maskKeyID(ctx)}, nil
}

// pinAssembly decides what cdkd deploy reads. With app a command, cdkd
// synthesizes on each run, and a synth that is not deterministic (a
// timestamp, a lookup, a random name) would let the deploy apply templates
// other than the ones the gate just compared. So the assembly the gate's
// diff wrote to <working-directory>/cdk.out is deployed instead; one that
// the diff did not write (unchanged since before it ran) may be stale and
// is not used.
func (c *currentChangeSet) pinAssembly(before assemblyStamp) {
	r := c.r
	if r.assemblyDir() != "" {
		return // app is an assembly already: nothing is synthesized
	}
	dir := r.synthesizedPath()
	after := stampAssembly(dir)
	switch {
	case !after.exists || !assembly.IsAssembly(dir):
		c.resynth = fmt.Sprintf("the gate's cdkd diff left no cloud assembly in %s", dir)
	case before.same(after):
		c.resynth = fmt.Sprintf("the cloud assembly in %s was not written by the gate's cdkd diff (it may be stale)", dir)
	default:
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		c.assembly = dir
	}
}

// synthesizedPath is where cdkd writes the assembly it synthesizes.
func (r *Env) synthesizedPath() string {
	return filepath.Join(r.cfg.WorkingDirectory, synthesizedDir)
}

// assemblyStamp is the state of an assembly's manifest, to tell whether a
// command rewrote it.
type assemblyStamp struct {
	exists bool
	mod    time.Time
	size   int64
}

func (a assemblyStamp) same(b assemblyStamp) bool {
	return a.exists == b.exists && a.size == b.size && a.mod.Equal(b.mod)
}

func stampAssembly(dir string) assemblyStamp {
	fi, err := os.Stat(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return assemblyStamp{}
	}
	return assemblyStamp{exists: true, mod: fi.ModTime(), size: fi.Size()}
}
