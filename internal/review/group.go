package review

import (
	"context"
	"fmt"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/gate"
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
	numbers, err := s.groupPRs(ctx)
	if err != nil {
		return rv, err
	}
	s.GroupPRs = numbers
	if len(numbers) == 0 {
		rv.Note = fmt.Sprintf("no open pull request into %s has its head among the group's commits, and the group's ref names none", g.Branch)
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

// groupPRs lists the pull requests a merge group would merge, sorted: the
// open pull requests into the group's branch whose head commit is one of
// the commits the group adds to the branch. Those are GitHub's compare of
// branch...head, not of the event's base_sha...head: base_sha is the
// group's parent, which for a group behind others in the queue is the head
// of the group ahead, while this group's head holds the changes of every
// group ahead of it too. A pull request whose head is not in the group
// (it moved since it was queued, or another branch holds the same commit)
// never counts.
//
// The pull request the group's ref names counts when it is open and into
// the branch: a queue that squashes or rebases writes new commits, which
// GitHub associates with no pull request, so without the ref that pull
// request would not be found at all.
func (s *Finder) groupPRs(ctx context.Context) ([]int, error) {
	g := s.Where.Group
	if g.Branch == "" || g.HeadSHA == "" {
		return nil, nil
	}
	commits, err := s.API.CommitsBetween(ctx, g.Branch, g.HeadSHA)
	if err != nil {
		return nil, fmt.Errorf("list the commits the merge group adds to %s (%s...%s) to find its pull requests: %w", g.Branch, g.Branch, reporters.ShortSHA(g.HeadSHA), err)
	}
	if len(commits) > maxPushCommits {
		return nil, fmt.Errorf("the merge group adds %d commits to %s, more than the %d whose pull requests are looked up", len(commits), g.Branch, maxPushCommits)
	}
	var out []int
	for _, sha := range commits {
		prs, err := s.API.PullRequestsForCommit(ctx, sha)
		if err != nil {
			return nil, fmt.Errorf("read the pull requests of commit %s of the merge group: %w", reporters.ShortSHA(sha), err)
		}
		for _, p := range prs {
			if p.Open && p.BaseRef == g.Branch && p.HeadSHA == sha && !slices.Contains(out, p.Number) {
				out = append(out, p.Number)
			}
		}
	}
	if n := g.QueuedPR; n != 0 && !slices.Contains(out, n) {
		pr, err := s.API.GetPullRequest(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("read pull request #%d, which the merge group's ref names: %w", n, err)
		}
		if pr.Open && pr.BaseRef == g.Branch {
			out = append(out, n)
		} else {
			s.Warn(fmt.Sprintf("the merge group's ref names pull request #%d, which is not an open pull request into %s; its review does not count", n, g.Branch))
		}
	}
	slices.Sort(out)
	return out, nil
}
