package model

// DeployOutcome is how a deploy ended.
type DeployOutcome string

const (
	OutcomeDeployed  DeployOutcome = "deployed"
	OutcomeRefused   DeployOutcome = "refused"   // the gate said no; nothing ran
	OutcomeFailed    DeployOutcome = "failed"    // cdkd deploy (or what precedes it) failed
	OutcomePartial   DeployOutcome = "partial"   // cdkd left resources unaddressed
	OutcomeLocked    DeployOutcome = "locked"    // another job holds a stack's lock
	OutcomeCancelled DeployOutcome = "cancelled" // the job was cancelled or timed out
	// OutcomeVerified: a merge queue's group the gate would deploy (verify).
	OutcomeVerified DeployOutcome = "verified"
)

// DeployResult is one deploy as a typed result: whether it ran, why not,
// and what it did. Every string is redacted by whoever fills it. It is the
// deploy report JSON.
type DeployResult struct {
	Header
	Origin
	Outcome DeployOutcome `json:"outcome"`
	// Deployed is Outcome == deployed, for workflows to read.
	Deployed bool `json:"deployed"`
	// Title is the headline's words after the outcome, e.g. "Diff changed
	// since review".
	Title string `json:"title,omitempty"`
	// Message says why, in one or two sentences.
	Message string `json:"message,omitempty"`
	// Reason is the failure-reason output, "" on success.
	Reason string `json:"failureReason,omitempty"`

	SHA            string              `json:"sha,omitempty"`    // the deployed commit
	Digest         string              `json:"digest,omitempty"` // the change set's digest
	Review         DeployReview        `json:"review"`
	Warnings       []string            `json:"warnings,omitempty"`
	Comparison     *Comparison         `json:"comparison,omitempty"`
	ComparisonNote string              `json:"comparisonNote,omitempty"`
	Destructive    []DestructiveChange `json:"destructive,omitempty"`
	Lock           *DeployLock         `json:"lock,omitempty"`
	Stacks         []DeployedStack     `json:"stacks"`
	// StackOutputs are the deployed stacks' outputs (stack → name → value),
	// secret ones hidden.
	StackOutputs map[string]map[string]string `json:"stackOutputs,omitempty"`
	// StderrTail is the end of cdkd's stderr, for a failure.
	StderrTail []string `json:"stderrTail,omitempty"`
	// Group is set by verify: the merge queue's group the gate judged
	// (nothing was deployed), SHA being its head.
	Group *GroupCheck `json:"group,omitempty"`
}

// GroupCheck is a merge queue's group as verify judged it.
type GroupCheck struct {
	// Branch is the branch the group merges into.
	Branch string `json:"branch"`
	// PullRequests are the group's pull requests, each with what the
	// gate's review rules found wrong with its review.
	PullRequests []GroupPullRequest `json:"pullRequests"`
}

// GroupPullRequest is one pull request of a merge group.
type GroupPullRequest struct {
	Number      int    `json:"number"`
	ReviewedSHA string `json:"reviewedSha,omitempty"`
	// Reason and Problem are empty when its review passes the rules.
	Reason  string `json:"failureReason,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// DeployReview is the review a deploy was checked against.
type DeployReview struct {
	// PullRequest is the merged pull request, 0 when none was found.
	PullRequest int `json:"pullRequest,omitempty"`
	// HeadSHA is the pull request's head when the deploy looked.
	HeadSHA string `json:"headSha,omitempty"`
	// CommentURL is the reviewed diff comment, ReviewedSHA the commit it
	// was written for, Digest the digest its header holds.
	CommentURL  string `json:"commentUrl,omitempty"`
	ReviewedSHA string `json:"reviewedSha,omitempty"`
	Digest      string `json:"digest,omitempty"`
	// Reviewed is true when the deployed change set is the reviewed one.
	Reviewed bool `json:"reviewed"`
}

// DestructiveChange is a delete or replacement and what allowed it.
type DestructiveChange struct {
	Stack     string   `json:"stack"`
	LogicalID string   `json:"logicalId"`
	Type      string   `json:"type"`
	Action    Action   `json:"action"`
	ForcedBy  []string `json:"forcedBy,omitempty"`
	// AllowedBy names the input that allowed it; "" means refused.
	AllowedBy string `json:"allowedBy,omitempty"`
}

// DeployLock names who holds a stack's lock and how to release it.
type DeployLock struct {
	Stack     string `json:"stack"`
	Region    string `json:"region,omitempty"`
	Owner     string `json:"owner,omitempty"`
	Operation string `json:"operation,omitempty"`
	ExpiresIn string `json:"expiresIn,omitempty"`
	// Unlock is the command that releases it.
	Unlock string `json:"unlock,omitempty"`
}

// DeployedStack is what a deploy did to one stack.
type DeployedStack struct {
	Stack  string `json:"stack"`
	Region string `json:"region,omitempty"`
	// Result is the run's: SUCCEEDED, FAILED, or "" when unknown.
	Result    string             `json:"result,omitempty"`
	Created   int                `json:"created"`
	Updated   int                `json:"updated"`
	Deleted   int                `json:"deleted"`
	Failed    int                `json:"failed"`
	Unchanged int                `json:"unchanged"`
	Duration  string             `json:"duration,omitempty"`
	Resources []DeployedResource `json:"resources,omitempty"`
	Outputs   []StackOutput      `json:"outputs,omitempty"`
	// Note says what is not known, e.g. that no run was recorded.
	Note string `json:"note,omitempty"`
	// ChangesUnknown: what the run changed in the stack is not known for
	// sure (its events could not be read, or cdkd was stopped or killed
	// while it deployed the stack); the counts are what is known.
	ChangesUnknown bool `json:"changesUnknown,omitempty"`
}

// DeployedResource is one resource's outcome in the run.
type DeployedResource struct {
	LogicalID string `json:"logicalId"`
	Type      string `json:"type"`
	// Result is created, updated, deleted, failed, skipped, retained or
	// interrupted.
	Result   string `json:"result"`
	Duration string `json:"duration,omitempty"`
	Error    string `json:"error,omitempty"`
}

// StackOutput is one stack output. A Secret one is shown hidden whatever
// Value holds, and its Value is redacted before a result leaves the process.
type StackOutput struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Secret bool   `json:"secret,omitempty"`
}
