// Package ghctx reads what the runner tells an action about the run: the
// repository, the event and its pull request, and where the API is. Its
// PullRequest is the one pull request type: the event's, the API's and the
// review lookup's.
package ghctx

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Context is the run as the action sees it.
type Context struct {
	// Actions is true inside GitHub Actions (GITHUB_ACTIONS=true).
	Actions   bool
	Owner     string
	Repo      string
	EventName string
	SHA       string // GITHUB_SHA: the commit the workflow runs on
	// Ref is GITHUB_REF: for a push, the branch pushed (refs/heads/main)
	// or tag; for a dispatch, the branch or tag it ran on.
	Ref        string
	HeadSHA    string // the pull request's head commit, else SHA
	PR         *PullRequest
	ServerURL  string
	APIURL     string
	RunID      string
	RunURL     string
	RunnerTemp string
	// Workspace is GITHUB_WORKSPACE: the checkout, shared by the action's
	// container and the job's other steps.
	Workspace string
	Actor     string
	// Before is a push event's "before": the branch's head before the
	// push ("" for other events, or a new branch's all-zero SHA as given).
	Before string
	// WorkflowRun is set in a workflow_run job: the run that triggered
	// it, as GitHub's event says (never as an artifact of that run says).
	WorkflowRun *WorkflowRun
	// MergeGroup is set in a merge_group job: the merge queue's group
	// being checked.
	MergeGroup *MergeGroup
}

// MergeGroup is the part of a merge_group event payload that names the
// group: its head commit (the commit checked out, which the queue
// fast-forwards the base branch to when the group merges), its ref and the
// branch it merges into. The payload names no pull request.
type MergeGroup struct {
	HeadSHA string
	// HeadRef is refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>.
	HeadRef string
	// BaseSHA is the group's parent commit: the base branch's head, or
	// the head of the group ahead of this one in the queue.
	BaseSHA string
	// BaseRef is refs/heads/<base>.
	BaseRef string
}

// BaseBranch is the branch the group merges into ("" when BaseRef names
// no branch).
func (g MergeGroup) BaseBranch() string {
	b, _ := strings.CutPrefix(g.BaseRef, "refs/heads/")
	if b == g.BaseRef {
		return ""
	}
	return b
}

// QueuedPR is the pull request the group's ref names (pr-<N> in
// gh-readonly-queue/<base>/pr-<N>-<sha>): the last one the group adds;
// 0 when the ref names none.
func (g MergeGroup) QueuedPR() int {
	q, _ := ParseQueueRef(g.HeadRef)
	return q.PR
}

// QueueRef is what the name of a merge queue's ref says: each entry of the
// queue has one, refs/heads/gh-readonly-queue/<branch>/pr-<N>-<sha>,
// pointing at that entry's group head.
type QueueRef struct {
	// Branch is the branch the entry merges into.
	Branch string
	// PR is the pull request the entry adds.
	PR int
}

// ParseQueueRef reads a merge queue ref's name; ok is false when ref is
// not one. The branch is everything up to the last /pr-, since a branch
// name may hold slashes (release/v2).
func ParseQueueRef(ref string) (q QueueRef, ok bool) {
	name, ok := strings.CutPrefix(ref, "refs/heads/gh-readonly-queue/")
	if !ok {
		return QueueRef{}, false
	}
	i := strings.LastIndex(name, "/pr-")
	if i <= 0 {
		return QueueRef{}, false
	}
	num, sha, ok := strings.Cut(name[i+len("/pr-"):], "-")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 || strings.Trim(num, "0123456789") != "" || sha == "" || strings.Trim(sha, "0123456789abcdef") != "" {
		return QueueRef{}, false
	}
	return QueueRef{Branch: name[:i], PR: n}, true
}

// WorkflowRun is the part of a workflow_run event payload that names what
// the triggering run ran on: a fork's pull request reaches a trusted
// workflow this way, and its pull_requests list is empty for forks.
type WorkflowRun struct {
	// Event is the triggering run's event, such as pull_request.
	Event      string
	HeadSHA    string
	HeadBranch string
	// HeadOwner and HeadRepo (owner/name) name the repository the head
	// lives in: a fork's for a fork's pull request.
	HeadOwner string
	HeadRepo  string
}

type eventPayload struct {
	Number     int    `json:"number"`
	Before     string `json:"before"`
	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	WorkflowRun *struct {
		Event          string `json:"event"`
		HeadSHA        string `json:"head_sha"`
		HeadBranch     string `json:"head_branch"`
		HeadRepository *struct {
			FullName string `json:"full_name"`
			Owner    struct {
				Login string `json:"login"`
			} `json:"owner"`
		} `json:"head_repository"`
	} `json:"workflow_run"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA  string `json:"sha"`
			Repo *struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"head"`
		Base struct {
			Ref  string `json:"ref"`
			Repo *struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"base"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
	} `json:"pull_request"`
}

// Load reads the runner's GITHUB_* variables and the event payload.
func Load(getenv func(string) string) (Context, error) {
	c := Context{
		Actions:    getenv("GITHUB_ACTIONS") == "true",
		EventName:  getenv("GITHUB_EVENT_NAME"),
		SHA:        getenv("GITHUB_SHA"),
		Ref:        getenv("GITHUB_REF"),
		ServerURL:  orDefault(getenv("GITHUB_SERVER_URL"), "https://github.com"),
		APIURL:     orDefault(getenv("GITHUB_API_URL"), "https://api.github.com"),
		RunID:      getenv("GITHUB_RUN_ID"),
		RunnerTemp: getenv("RUNNER_TEMP"),
		Workspace:  getenv("GITHUB_WORKSPACE"),
		Actor:      getenv("GITHUB_ACTOR"),
	}
	if repo := getenv("GITHUB_REPOSITORY"); repo != "" {
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" {
			return c, fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name", repo)
		}
		c.Owner, c.Repo = owner, name
	}
	if c.RunID != "" && c.Owner != "" {
		c.RunURL = fmt.Sprintf("%s/%s/%s/actions/runs/%s", strings.TrimRight(c.ServerURL, "/"), c.Owner, c.Repo, c.RunID)
	}
	c.HeadSHA = c.SHA
	if path := getenv("GITHUB_EVENT_PATH"); path != "" {
		if err := c.readEvent(path); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (c *Context) readEvent(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read event payload %s: %w", path, err)
	}
	var p eventPayload
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("decode event payload %s: %w", path, err)
	}
	c.Before = p.Before
	if w := p.WorkflowRun; w != nil && c.EventName == "workflow_run" {
		c.WorkflowRun = &WorkflowRun{Event: w.Event, HeadSHA: w.HeadSHA, HeadBranch: w.HeadBranch}
		if h := w.HeadRepository; h != nil {
			c.WorkflowRun.HeadOwner, c.WorkflowRun.HeadRepo = h.Owner.Login, h.FullName
		}
		if w.HeadSHA != "" {
			// The review belongs to the commit the triggering run ran on,
			// not to GITHUB_SHA (the default branch's head).
			c.HeadSHA = w.HeadSHA
		}
	}
	if g := p.MergeGroup; g != nil && c.EventName == "merge_group" {
		c.MergeGroup = &MergeGroup{HeadSHA: g.HeadSHA, HeadRef: g.HeadRef, BaseSHA: g.BaseSHA, BaseRef: g.BaseRef}
		if g.HeadSHA != "" {
			// GITHUB_SHA is the group's head too; the event says so first.
			c.HeadSHA = g.HeadSHA
		}
	}
	if p.PullRequest == nil {
		return nil
	}
	pr := &PullRequest{Number: p.PullRequest.Number, HeadSHA: p.PullRequest.Head.SHA, BaseRef: p.PullRequest.Base.Ref}
	if pr.Number == 0 {
		pr.Number = p.Number
	}
	for _, l := range p.PullRequest.Labels {
		pr.Labels = append(pr.Labels, l.Name)
	}
	if h, b := p.PullRequest.Head.Repo, p.PullRequest.Base.Repo; h != nil && b != nil {
		pr.HeadRepo, pr.BaseRepo = h.FullName, b.FullName
		pr.Fork = h.FullName != b.FullName
	}
	c.PR = pr
	if pr.HeadSHA != "" {
		c.HeadSHA = pr.HeadSHA
	}
	return nil
}

// Branch is the branch GITHUB_REF names (refs/heads/<branch>), "" when it
// names none (a tag, a pull request's merge ref, or no GITHUB_REF).
func (c Context) Branch() string {
	b, ok := strings.CutPrefix(c.Ref, "refs/heads/")
	if !ok {
		return ""
	}
	return b
}

// Repository is "owner/name".
func (c Context) Repository() string { return c.Owner + "/" + c.Repo }

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}
