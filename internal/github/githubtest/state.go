package githubtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Comment is an issue or pull request comment as stored by the server.
type Comment struct {
	ID          int64
	Owner, Repo string
	IssueNumber int
	Body        string
	// Login is the author: the login of the token that created it.
	Login                string
	HTMLURL              string
	CreatedAt, UpdatedAt time.Time
}

// PR is a pull request. Tests seed them with AddPullRequest; the fake has no
// endpoint that creates one.
type PR struct {
	// Owner and Repo default to the server's default repository.
	Owner, Repo string
	// Number 0 takes the repository's next issue number.
	Number int
	Title  string
	Body   string
	// Login is the author; default DefaultAuthor.
	Login string
	// State is "open" (default) or "closed".
	State   string
	HeadSHA string
	// HeadRef defaults to "feature-<number>", BaseRef to "main"; empty
	// SHAs get made-up but stable values.
	HeadRef string
	// HeadOwner and HeadRepo name a fork the head lives in; empty: the
	// pull request's own repository.
	HeadOwner, HeadRepo string
	BaseSHA             string
	BaseRef             string
	MergeCommitSHA      string
	Merged              bool
	Draft               bool
	Labels              []string
}

// Issue is an issue (not a pull request) as stored by the server.
type Issue struct {
	// Owner and Repo default to the server's default repository in AddIssue.
	Owner, Repo string
	// Number 0 takes the repository's next issue number in AddIssue.
	Number int
	ID     int64
	Title  string
	Body   string
	// Login is the author; default DefaultAuthor in AddIssue.
	Login string
	// State is "open" (default) or "closed".
	State       string
	StateReason string
	Labels      []string
	Assignees   []string
	HTMLURL     string
	// CreatedAt, UpdatedAt and ClosedAt are set by the server.
	CreatedAt, UpdatedAt, ClosedAt time.Time
}

// CheckRun is a check run with everything that was sent for it.
type CheckRun struct {
	ID          int64
	Owner, Repo string
	Name        string
	HeadSHA     string
	Status      string
	Conclusion  string
	DetailsURL  string
	ExternalID  string
	StartedAt   time.Time
	CompletedAt time.Time
	Output      CheckRunOutput
	// Annotations accumulate across the create and every update, as on
	// GitHub.
	Annotations []Annotation
	HTMLURL     string
	// Login is who created it.
	Login string
	// Updates counts the successful PATCH requests.
	Updates int
}

// CheckRunOutput is the latest output of a check run.
type CheckRunOutput struct {
	Title, Summary, Text string
}

// Annotation is one check run annotation, with GitHub's JSON names.
type Annotation struct {
	Path            string `json:"path"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	StartColumn     int    `json:"start_column,omitempty"`
	EndColumn       int    `json:"end_column,omitempty"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title,omitempty"`
	RawDetails      string `json:"raw_details,omitempty"`
}

// Deployment is a deployment and the statuses posted for it.
type Deployment struct {
	ID          int64
	Owner, Repo string
	Ref         string
	// SHA is the ref's head as the fake knows it: the ref itself when it is a
	// full SHA, the head of a seeded pull request with that head ref, else a
	// made-up but stable SHA.
	SHA                   string
	Task                  string
	Environment           string
	Description           string
	Payload               json.RawMessage
	AutoMerge             bool
	RequiredContexts      []string // nil when not sent
	TransientEnvironment  bool
	ProductionEnvironment bool
	Login                 string
	CreatedAt             time.Time
	Statuses              []DeploymentStatus
}

// DeploymentStatus is one status of a deployment.
type DeploymentStatus struct {
	ID             int64
	State          string
	Description    string
	LogURL         string
	TargetURL      string
	EnvironmentURL string
	Environment    string
	// AutoInactive is true for the "inactive" statuses the server added
	// itself because a later deployment to the environment succeeded.
	AutoInactive bool
	Login        string
	CreatedAt    time.Time
}

// repoState is everything stored for one repository.
type repoState struct {
	owner, name string
	lastNumber  int
	items       map[int]*item // issues and pull requests share numbers
	comments    []*Comment
	deployments []*Deployment
	// commits are what a compare of "base...head" lists (SetCommits).
	commits map[string][]string
	// refs are git refs by full name, each at a commit (SetRef).
	refs map[string]string
	// activities are the pushes to its branches, oldest first, and
	// permissions each login's role (approvals.go).
	activities  []activity
	permissions map[string]string
}

// item is an issue or, when pr is set, a pull request.
type item struct {
	id          int64
	number      int
	title, body string
	login       string
	state       string
	stateReason string
	labels      []string
	assignees   []string
	created     time.Time
	updated     time.Time
	closed      time.Time
	pr          *prData
	// labelEvents say when labels were added and removed, oldest first.
	labelEvents []labelEvent
	// autoMerge says when auto-merge was enabled and disabled, oldest
	// first (approvals.go).
	autoMerge []autoMergeEvent
}

type prData struct {
	headSHA, headRef string
	// forkOwner, forkRepo: the head's repository when it is a fork.
	forkOwner, forkRepo string
	baseSHA, baseRef    string
	mergeCommitSHA      string
	merged, draft       bool
	mergedAt            time.Time
	// reviews are its reviews, oldest first (reviews.go).
	reviews []Review
}

// headOwner is the owner of the repository the head lives in.
func (p *prData) headOwner(r *repoState) string {
	if p.forkOwner != "" {
		return p.forkOwner
	}
	return r.owner
}

// repo returns the state of owner/repo, creating it. Owner and repository
// names are case-insensitive on GitHub. Called with s.mu held.
func (s *Server) repo(owner, name string) *repoState {
	key := strings.ToLower(owner + "/" + name)
	r := s.repos[key]
	if r == nil {
		r = &repoState{owner: owner, name: name, items: map[int]*item{}}
		s.repos[key] = r
	}
	return r
}

func (s *Server) defaults(owner, repo string) (string, string) {
	if owner == "" {
		owner = s.cfg.owner
	}
	if repo == "" {
		repo = s.cfg.repo
	}
	return owner, repo
}

// addItem stores it under its number (or the next free one). Called with
// s.mu held.
func (r *repoState) addItem(it *item) error {
	if it.number == 0 {
		it.number = r.lastNumber + 1
	}
	if _, taken := r.items[it.number]; taken {
		return fmt.Errorf("%s/%s#%d already exists (issues and pull requests share numbers)", r.owner, r.name, it.number)
	}
	r.items[it.number] = it
	r.lastNumber = max(r.lastNumber, it.number)
	return nil
}

// AddPullRequest seeds a pull request and returns it with defaults filled in.
func (s *Server) AddPullRequest(pr PR) PR {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	pr.Owner, pr.Repo = s.defaults(pr.Owner, pr.Repo)
	if pr.Login == "" {
		pr.Login = DefaultAuthor
	}
	if pr.State == "" {
		pr.State = "open"
		if pr.Merged {
			pr.State = "closed"
		}
	}
	if pr.BaseRef == "" {
		pr.BaseRef = "main"
	}
	now := s.now()
	it := &item{
		id:     s.id("pull"),
		number: pr.Number,
		title:  pr.Title,
		body:   pr.Body,
		login:  pr.Login,
		state:  pr.State,
		labels: slices.Clone(pr.Labels),
		pr: &prData{
			headSHA: pr.HeadSHA, headRef: pr.HeadRef,
			forkOwner: pr.HeadOwner, forkRepo: pr.HeadRepo,
			baseSHA: pr.BaseSHA, baseRef: pr.BaseRef,
			mergeCommitSHA: pr.MergeCommitSHA,
			merged:         pr.Merged, draft: pr.Draft,
		},
		created: now,
		updated: now,
	}
	if pr.State == "closed" {
		it.closed = now
	}
	if pr.Merged {
		it.pr.mergedAt = now
	}
	for _, l := range pr.Labels {
		// Seeded labels were there before anything else happened.
		it.labelEvents = append(it.labelEvents, labelEvent{id: s.id("event"), event: "labeled", label: l, login: pr.Login, at: now.Add(-time.Minute)})
	}
	r := s.repo(pr.Owner, pr.Repo)
	if err := r.addItem(it); err != nil {
		s.t.Fatalf("githubtest: AddPullRequest: %v", err)
	}
	if it.title == "" {
		it.title = fmt.Sprintf("Pull request %d", it.number)
	}
	if it.pr.headRef == "" {
		it.pr.headRef = fmt.Sprintf("feature-%d", it.number)
	}
	if it.pr.headSHA == "" {
		it.pr.headSHA = madeUpSHA(fmt.Sprintf("%s/%s#%d head", r.owner, r.name, it.number))
	}
	if it.pr.baseSHA == "" {
		it.pr.baseSHA = madeUpSHA(fmt.Sprintf("%s/%s#%d base", r.owner, r.name, it.number))
	}
	if it.pr.forkOwner == "" {
		// Its author pushed the branch here: the activity records it.
		s.pushed(r, it.pr.headRef, "", it.pr.headSHA, pr.Login, "branch_creation", now.Add(-time.Minute))
	}
	return s.prView(r, it)
}

// EditComment replaces a comment's body as someone with write access does
// in GitHub's UI: the author stays who it was. It returns the comment as
// edited.
func (s *Server) EditComment(owner, repo string, id int64, body string) Comment {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo = s.defaults(owner, repo)
	for _, c := range s.repo(owner, repo).comments {
		if c.ID == id {
			c.Body, c.UpdatedAt = body, s.now()
			return *c
		}
	}
	s.t.Fatalf("githubtest: EditComment: no comment %d in %s/%s", id, owner, repo)
	return Comment{}
}

// DeleteComment deletes comment id as its author (or a moderator) would
// in GitHub's UI.
func (s *Server) DeleteComment(owner, repo string, id int64) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo = s.defaults(owner, repo)
	r := s.repo(owner, repo)
	for i, c := range r.comments {
		if c.ID == id {
			r.comments = append(r.comments[:i], r.comments[i+1:]...)
			return
		}
	}
	s.t.Fatalf("githubtest: DeleteComment: no comment %d in %s/%s", id, owner, repo)
}

// PushToPullRequest moves a seeded pull request's head to sha, as a push to
// its branch by the pull request's author does (owner and repo default as for
// AddPullRequest; PushAs pushes as someone else).
func (s *Server) PushToPullRequest(owner, repo string, number int, sha string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if it := s.pullRequest("PushToPullRequest", owner, repo, number, false); it != nil {
		s.pushTo(owner, repo, it, sha, it.login)
	}
}

// pullRequest is pull request number (an open one when open is set), for
// the test helper named op; it fails the test when there is none. The
// caller holds s.mu.
func (s *Server) pullRequest(op, owner, repo string, number int, open bool) *item {
	s.t.Helper()
	owner, repo = s.defaults(owner, repo)
	it := s.repo(owner, repo).items[number]
	if it == nil || it.pr == nil || open && it.state != "open" {
		s.t.Fatalf("githubtest: %s: %s/%s#%d is no pull request (open: %v)", op, owner, repo, number, open)
		return nil
	}
	return it
}

// MergePullRequest merges an open pull request as the merge queue does
// when its group lands: closed, merged now, at mergeCommitSHA (the
// group's commit for it).
func (s *Server) MergePullRequest(owner, repo string, number int, mergeCommitSHA string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.pullRequest("MergePullRequest", owner, repo, number, true)
	if it == nil {
		return
	}
	now := s.now()
	it.state, it.closed, it.updated = "closed", now, now
	it.pr.merged, it.pr.mergedAt, it.pr.mergeCommitSHA = true, now, mergeCommitSHA
}

// SetCommits seeds what GitHub's compare of base...head lists: shas, oldest
// first (the commits a push from base to head brought).
func (s *Server) SetCommits(owner, repo, base, head string, shas ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, repo = s.defaults(owner, repo)
	r := s.repo(owner, repo)
	if r.commits == nil {
		r.commits = map[string][]string{}
	}
	r.commits[base+"..."+head] = append([]string(nil), shas...)
}

// AddIssue seeds an issue and returns it with defaults filled in.
func (s *Server) AddIssue(is Issue) Issue {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	is.Owner, is.Repo = s.defaults(is.Owner, is.Repo)
	if is.Login == "" {
		is.Login = DefaultAuthor
	}
	if is.State == "" {
		is.State = "open"
	}
	now := s.now()
	it := &item{
		id:          s.id("issue"),
		number:      is.Number,
		title:       is.Title,
		body:        is.Body,
		login:       is.Login,
		state:       is.State,
		stateReason: is.StateReason,
		labels:      slices.Clone(is.Labels),
		assignees:   slices.Clone(is.Assignees),
		created:     now,
		updated:     now,
	}
	if is.State == "closed" {
		it.closed = now
	}
	r := s.repo(is.Owner, is.Repo)
	if err := r.addItem(it); err != nil {
		s.t.Fatalf("githubtest: AddIssue: %v", err)
	}
	return s.issueView(r, it)
}

// SeedComments adds comments by login to an existing issue or pull request,
// as if posted before the test started, and returns them.
func (s *Server) SeedComments(owner, repo string, number int, login string, bodies ...string) []Comment {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo)
	it := r.items[number]
	if it == nil {
		s.t.Fatalf("githubtest: SeedComments: %s/%s#%d does not exist; seed it with AddPullRequest or AddIssue first", owner, repo, number)
		return nil
	}
	var out []Comment
	for _, b := range bodies {
		c := s.newComment(r, it, login, b)
		out = append(out, *c)
	}
	return out
}

// newComment stores a comment. Called with s.mu held.
func (s *Server) newComment(r *repoState, it *item, login, body string) *Comment {
	now := s.now()
	c := &Comment{
		ID:          s.id("comment"),
		Owner:       r.owner,
		Repo:        r.name,
		IssueNumber: it.number,
		Body:        body,
		Login:       login,
		CreatedAt:   now,
		UpdatedAt:   now,
	}
	c.HTMLURL = fmt.Sprintf("%s#issuecomment-%d", s.itemHTMLURL(r, it), c.ID)
	r.comments = append(r.comments, c)
	return c
}

func (s *Server) itemHTMLURL(r *repoState, it *item) string {
	kind := "issues"
	if it.pr != nil {
		kind = "pull"
	}
	return fmt.Sprintf("%s/%s/%s/%s/%d", s.URL, r.owner, r.name, kind, it.number)
}
