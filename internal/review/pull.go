package review

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// findPR names the pull request the deployed commit came from: the event's
// own, or the one merged into the branch the run is on (GITHUB_REF) whose
// merge commit (else head, for a fast-forward merge) is GITHUB_SHA. A pull
// request into another branch never counts, though it may share the commit
// (the same head proposed to two branches): its labels and review are about
// another change. Without a branch (a tag), only a merge commit, which
// belongs to one pull request, counts.
func (s *Finder) findPR(ctx context.Context) (int, string, error) {
	w := s.Where
	if w.EventPR != 0 {
		return w.EventPR, "", nil
	}
	if w.SHA == "" {
		return 0, "GITHUB_SHA is not set", nil
	}
	prs, err := s.API.PullRequestsForCommit(ctx, w.SHA)
	if err != nil {
		return 0, "", err
	}
	branch := w.Branch
	into := func(p ghctx.PullRequest) bool { return p.Merged && (branch == "" || p.BaseRef == branch) }
	matches := []func(ghctx.PullRequest) bool{
		func(p ghctx.PullRequest) bool { return into(p) && p.MergeCommitSHA == w.SHA },
	}
	if branch != "" {
		matches = append(matches, func(p ghctx.PullRequest) bool { return into(p) && p.HeadSHA == w.SHA }) // a fast-forward merge
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
	} else if w.Ref != "" {
		note += " (" + w.Ref + " is no branch, so a fast-forward merge is not looked for)"
	}
	switch {
	case w.EventName == "" || w.EventName == "push":
		note += ": a direct push?"
	default:
		note = "the run was started by " + w.EventName + ", and " + note
	}
	for _, p := range prs {
		if p.Merged && branch != "" && p.BaseRef != branch && (p.MergeCommitSHA == w.SHA || p.HeadSHA == w.SHA) {
			note += fmt.Sprintf("; pull request #%d holds it but was merged into %s, not %s", p.Number, p.BaseRef, branch)
			break
		}
	}
	return 0, note, nil
}

// maxPushCommits bounds the commits of one push whose pull requests are
// looked up, one call each.
const maxPushCommits = 250

// batch lists the other pull requests merged into the branch by the push
// being deployed (a merge queue's batch lands several in one push): those
// whose merge commit (or, fast-forwarded, head) is one of the commits
// between the push's before and SHA. primary, the pull request of SHA
// itself, is left out. None without a push's before (another event, a new
// branch).
func (s *Finder) batch(ctx context.Context, primary int) ([]int, error) {
	w := s.Where
	if w.Before == "" || strings.Trim(w.Before, "0") == "" || w.Branch == "" || w.EventPR != 0 {
		return nil, nil
	}
	commits, err := s.API.CommitsBetween(ctx, w.Before, w.SHA)
	if err != nil {
		return nil, fmt.Errorf("list the commits the push brought (%s..%s) to find the pull requests it merged: %w", reporters.ShortSHA(w.Before), reporters.ShortSHA(w.SHA), err)
	}
	if len(commits) > maxPushCommits {
		return nil, fmt.Errorf("the push brought %d commits, more than the %d whose pull requests are looked up", len(commits), maxPushCommits)
	}
	var out []int
	for _, sha := range commits {
		if sha == w.SHA {
			continue // the primary's
		}
		prs, err := s.API.PullRequestsForCommit(ctx, sha)
		if err != nil {
			return nil, fmt.Errorf("read the pull requests of commit %s of the push: %w", reporters.ShortSHA(sha), err)
		}
		for _, p := range prs {
			if p.Merged && p.BaseRef == w.Branch && (p.MergeCommitSHA == sha || p.HeadSHA == sha) && p.Number != primary && !slices.Contains(out, p.Number) {
				out = append(out, p.Number)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
