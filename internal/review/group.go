package review

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Group is a merge queue's group as its check sees it: the pull requests
// in it are open, not merged yet, so what ties one to the group is its
// head commit among the group's commits, not a merge commit.
type Group struct {
	// HeadSHA is the group's head commit: what the queue would merge.
	HeadSHA string
	// Branch is the branch the group merges into.
	Branch string
	// QueuedPR is the pull request the group's ref names
	// (gh-readonly-queue/<branch>/pr-<N>-<sha>), 0 when none.
	QueuedPR int
}

// groupReview is the review of a merge group: every pull request in it,
// each found and verified as a deploy verifies the pull requests of a push
// (their diff comment, the trusted app's record, a stale head, an edit);
// the one the group's ref names first, the others as its batch.
func (s *Finder) groupReview(ctx context.Context, rv gate.Review) (gate.Review, error) {
	g := s.Where.Group
	rv.Commit = "the merge group " + reporters.ShortSHA(g.HeadSHA)
	numbers, orphan, err := s.groupPRs(ctx)
	if err != nil {
		return rv, err
	}
	s.GroupPRs = numbers
	if orphan != "" {
		// Its changes would read as a change no review holds, blamed on a
		// pull request whose diff did not change.
		rv.Note = orphan
		return rv, nil
	}
	if len(numbers) == 0 {
		rv.Note = fmt.Sprintf("no open pull request into %s has its head among the group's commits, and no merge queue ref names one", g.Branch)
		return rv, nil
	}
	primary := numbers[len(numbers)-1]
	if slices.Contains(numbers, g.QueuedPR) {
		primary = g.QueuedPR
	}
	out, f, err := s.pullRequest(ctx, primary, rv.Commit)
	s.PR, s.Comment, s.Header = f.pr, f.comment, f.header
	if err != nil {
		return out, err
	}
	for _, n := range numbers {
		if n == primary {
			continue
		}
		b, _, err := s.pullRequest(ctx, n, rv.Commit)
		if err != nil {
			return out, err
		}
		out.Batch = append(out.Batch, b)
	}
	return out, nil
}

// groupPRs lists the pull requests a merge group would merge, sorted, from
// the commits the group adds to its branch. Those are GitHub's compare of
// branch...head, not of the event's base_sha...head: base_sha is the
// group's parent, which for a group behind others in the queue is the head
// of the group ahead, while this group's head holds the changes of every
// group ahead of it too. A commit brings a pull request in two ways:
//   - it is the head of an open pull request into the branch (a queue that
//     merges with merge commits keeps each head). A pull request whose
//     head is not in the group (it moved since it was queued, or another
//     branch holds the same commit) never counts;
//   - a queue ref, gh-readonly-queue/<branch>/pr-<N>-<sha>, points at it:
//     each entry of the queue has one, at the commit its squash or rebase
//     (or merge) added, which GitHub associates with no pull request. The
//     group's own ref, from the event, is one of them.
//
// A pull request found by a ref counts only when it is open and into the
// branch; a ref whose name is not a queue ref is said and ignored. Failing
// to list the refs fails the lookup: without them a squash queue's groups
// ahead would be missing, and their changes read as unreviewed.
//
// orphan is not "" when the queue's refs listing holds no ref at all
// (though the event names the group's own) and a commit of the group is
// associated with no pull request: its changes belong to no pull request
// the action can find, and orphan says so.
func (s *Finder) groupPRs(ctx context.Context) (numbers []int, orphan string, err error) {
	g := s.Where.Group
	if g.Branch == "" || g.HeadSHA == "" {
		return nil, "", nil
	}
	commits, err := s.API.CommitsBetween(ctx, g.Branch, g.HeadSHA)
	if err != nil {
		return nil, "", fmt.Errorf("list the commits the merge group adds to %s (%s...%s) to find its pull requests: %w", g.Branch, g.Branch, reporters.ShortSHA(g.HeadSHA), err)
	}
	if len(commits) > maxPushCommits {
		return nil, "", fmt.Errorf("the merge group adds %d commits to %s, more than the %d whose pull requests are looked up", len(commits), g.Branch, maxPushCommits)
	}
	queued, listed, err := s.queuedAt(ctx)
	if err != nil {
		return nil, "", err
	}
	var out []int
	var byRef []queueEntry
	var orphans []string
	if g.QueuedPR != 0 {
		byRef = append(byRef, queueEntry{pr: g.QueuedPR, ref: "the merge group's ref"})
	}
	for _, sha := range commits {
		prs, err := s.API.PullRequestsForCommit(ctx, sha)
		if err != nil {
			return nil, "", fmt.Errorf("read the pull requests of commit %s of the merge group: %w", reporters.ShortSHA(sha), err)
		}
		if len(prs) == 0 && len(queued[sha]) == 0 && (sha != g.HeadSHA || g.QueuedPR == 0) {
			orphans = append(orphans, reporters.ShortSHA(sha))
		}
		for _, p := range prs {
			if p.Open && p.BaseRef == g.Branch && p.HeadSHA == sha && !slices.Contains(out, p.Number) {
				out = append(out, p.Number)
			}
		}
		byRef = append(byRef, queued[sha]...)
	}
	checked := map[int]bool{}
	for _, e := range byRef {
		if slices.Contains(out, e.pr) || checked[e.pr] {
			continue
		}
		checked[e.pr] = true
		pr, err := s.API.GetPullRequest(ctx, e.pr)
		if err != nil {
			return nil, "", fmt.Errorf("read pull request #%d, which %s names: %w", e.pr, e.ref, err)
		}
		if pr.Open && pr.BaseRef == g.Branch {
			out = append(out, e.pr)
		} else {
			s.Warn(fmt.Sprintf("%s names pull request #%d, which is not an open pull request into %s; its review does not count", e.ref, e.pr, g.Branch))
		}
	}
	slices.Sort(out)
	if listed == 0 && len(orphans) > 0 {
		what, verb, it := "commit", "belongs", "it"
		if len(orphans) > 1 {
			what, verb, it = "commits", "belong", "them"
		}
		orphan = fmt.Sprintf("%s %s of the group %s to no pull request the action can find: GitHub associates no pull request with %s (as with the commits a queue that squashes or rebases writes), "+
			"and GitHub's list of the merge queue's refs (gh-readonly-queue/%s/), which would name the entry that wrote each, answered none, not even the group's own ref",
			what, strings.Join(orphans, ", "), verb, it, g.Branch)
	}
	return out, orphan, nil
}

// queueEntry is a pull request a queue ref names, and which ref.
type queueEntry struct {
	pr  int
	ref string
}

// queuedAt maps each commit a queue ref of the group's branch points at to
// the pull requests those refs name. A ref of a branch under this one
// (main/v2's queue lists under main's) belongs to another queue; a name
// that is no queue ref at all is said and ignored.
// listed is how many refs GitHub listed, of any branch.
func (s *Finder) queuedAt(ctx context.Context) (out map[string][]queueEntry, listed int, err error) {
	g := s.Where.Group
	refs, err := s.API.QueueRefs(ctx, g.Branch)
	if err != nil {
		return nil, 0, fmt.Errorf("list the merge queue's refs of %s (gh-readonly-queue/%s/) to find the pull requests of the groups ahead (the job needs contents: read): %w", g.Branch, g.Branch, err)
	}
	out = map[string][]queueEntry{}
	for _, r := range refs {
		q, ok := ghctx.ParseQueueRef(r.Name)
		switch {
		case !ok:
			s.Warn(fmt.Sprintf("ignored ref %s: it is not a merge queue entry's (gh-readonly-queue/%s/pr-<number>-<sha>)", r.Name, g.Branch))
		case q.Branch == g.Branch:
			out[r.SHA] = append(out[r.SHA], queueEntry{pr: q.PR, ref: "the merge queue's ref " + strings.TrimPrefix(r.Name, "refs/heads/")})
		}
	}
	return out, len(refs), nil
}
