package cdkd

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Deploy exit codes, as cdkd documents them.
const (
	DeployExitOK        = 0
	DeployExitFailed    = 1
	DeployExitPartial   = 2   // resources left unaddressed (PartialFailureError)
	DeployExitCancelled = 130 // a second SIGINT
)

// LockInfo names who holds a stack's lock, from cdkd's contention message.
// Owner, Operation and ExpiresIn are empty when cdkd could not read the lock.
type LockInfo struct {
	Stack, Region, Owner, Operation, ExpiresIn string
}

// StackFailure is one failed node of a deploy ("stack:X" nodes give the stack
// name; any other node keeps its full id, e.g. "asset:abc").
type StackFailure struct {
	Stack, Message string
}

// StackSummary is one stack's "Deployment Summary:" block.
type StackSummary struct {
	Stack                                string
	Created, Updated, Deleted, Unchanged int
	// Duration is as cdkd printed it, e.g. "0.12s".
	Duration string
	// Outputs are the stack's `Outputs:` lines, by output name. They are
	// stack outputs and may carry secrets: redact before showing.
	Outputs map[string]string
}

// DeployRun is what a deploy did, read from its exit code and text (deploy
// has no JSON; `cdkd events` is the structured record).
type DeployRun struct {
	ExitCode int
	// OK is a deploy that exited 0 and was not cancelled.
	OK bool
	// Failures are the nodes cdkd listed under "Error: N node(s) failed:".
	Failures []StackFailure
	// FailedNodes is N from that header; it can exceed len(Failures) when
	// the list was longer than the stderr tail.
	FailedNodes int
	// Lock is set when a stack's lock was held by someone else.
	Lock *LockInfo
	// Partial is exit 2: some resources were left unaddressed.
	Partial bool
	// Cancelled is a run stopped by cancellation (or exit 130).
	Cancelled bool
	Summaries []StackSummary
	// Reason is one sentence for a deploy that did not succeed.
	Reason string
}

var (
	// Today: "Failed to acquire lock for stack 'S' (r) after 4 attempts.
	// Locked by: OWNER, operation: deploy, expires in: 19m48s."; newer: "Could
	// not acquire lock for stack 'S' (r) — held by OWNER, operation: deploy,
	// expires in ~12m."
	lockRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:Failed|Could not) (?:to )?acquire lock for (?:nested-stack child|nested stack|stack) '?([^'\s()]+)'? \(([^)\s]+)\)`)
	})
	// Holder details, after the stack and region.
	holderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:Locked by:|held by) (.+?)(?:, operation: ([^,]+?))?, expires (?:in:? ?)?(.+?)\.(?:\s|$)`)
	})
	nodesRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Error: (\d+) node\(s\) failed:?`) })
	nodeRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*- ([A-Za-z-]+):(.+?): (.*)$`) })
	failedRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Failed: ([A-Za-z-]+):(.+?): (.*)$`) })
	summaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(Stack|Created|Updated|Deleted|Unchanged|Duration):\s*(.*?)\s*$`)
	})
)

// ParseLock reads cdkd's lock-contention message from one line (a stderr
// line, a failure message). Both today's and newer cdkd wordings are read.
func ParseLock(line string) (LockInfo, bool) {
	line = StripANSI(line)
	m := lockRE().FindStringSubmatchIndex(line)
	if m == nil {
		return LockInfo{}, false
	}
	info := LockInfo{Stack: line[m[2]:m[3]], Region: line[m[4]:m[5]]}
	if h := holderRE().FindStringSubmatch(line[m[1]:]); h != nil {
		info.Owner = strings.TrimSpace(h[1])
		info.Operation = strings.TrimSpace(h[2])
		info.ExpiresIn = strings.TrimSpace(h[3])
	}
	return info, true
}

// ClassifyDeploy reads a deploy: 0 ok, 1 failure (per-node failures and lock
// contention parsed from the text), 2 partial, 130 cancelled. Summaries are
// parsed from stdout whatever the exit code: a multi-stack deploy can finish
// some stacks before another fails.
func ClassifyDeploy(res Result) DeployRun {
	run := DeployRun{ExitCode: res.ExitCode}
	run.Summaries = parseSummaries(plainLines(res.Stdout))

	// Failures and lock contention: stderr first (where cdkd's error handler
	// writes), then stdout for older builds that printed there.
	seen := map[StackFailure]bool{}
	addFailure := func(kind, id, msg string) {
		f := StackFailure{Stack: id, Message: strings.TrimSpace(msg)}
		if kind != "stack" {
			f.Stack = kind + ":" + id
		}
		if !seen[f] {
			seen[f] = true
			run.Failures = append(run.Failures, f)
		}
	}
	scan := func(lines []string) {
		for _, l := range lines {
			l = StripANSI(l)
			if m := nodesRE().FindStringSubmatch(strings.TrimSpace(l)); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil && n > run.FailedNodes {
					run.FailedNodes = n
				}
			}
			if m := nodeRE().FindStringSubmatch(l); m != nil {
				addFailure(m[1], m[2], m[3])
			} else if m := failedRE().FindStringSubmatch(strings.TrimSpace(l)); m != nil {
				addFailure(m[1], m[2], m[3])
			}
			if run.Lock == nil {
				if info, ok := ParseLock(l); ok {
					run.Lock = &info
				}
			}
		}
	}
	scan(res.StderrTail)
	if res.ExitCode != DeployExitOK {
		scan(plainLines(res.Stdout))
	}

	switch {
	case res.Cancelled || res.ExitCode == DeployExitCancelled:
		run.Cancelled = true
		run.Reason = "the deploy was cancelled"
	case res.ExitCode == DeployExitOK:
		run.OK = true
	case res.ExitCode == DeployExitPartial:
		run.Partial = true
		run.Reason = LastErrorLine(res.StderrTail)
		if run.Reason == "" {
			run.Reason = "cdkd left some resources unaddressed (exit 2)"
		}
	case res.Signal != "" || res.TimedOut:
		run.Reason = crashReason(res)
	default:
		run.Reason = LastErrorLine(res.StderrTail)
		if run.Reason == "" {
			run.Reason = "cdkd exited with code " + strconv.Itoa(res.ExitCode) + " and printed no error message"
		}
	}
	if run.Lock != nil && !run.OK {
		run.Reason = lockReason(*run.Lock)
	}
	return run
}

func lockReason(l LockInfo) string {
	return l.Describe() + "; if no other job holds it, release it with `" + ForceUnlockCommand(l.Stack, l.Region) + "`"
}

// Describe says who holds a stack's lock, for what, and until when:
// "stack S (r) is locked by O (operation: deploy); the lock expires in T".
func (l LockInfo) Describe() string {
	s := "stack " + l.Stack + " (" + l.Region + ") is locked"
	if l.Owner != "" {
		s += " by " + l.Owner
	}
	if l.Operation != "" {
		s += " (operation: " + l.Operation + ")"
	}
	if l.ExpiresIn != "" {
		s += "; the lock expires in " + strings.TrimPrefix(l.ExpiresIn, "in ")
	}
	return s
}

// parseSummaries reads every "Deployment Summary:" block and the "Outputs:"
// block that follows it.
func parseSummaries(lines []string) []StackSummary {
	var out []StackSummary
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "Deployment Summary:" {
			continue
		}
		var s StackSummary
		j := i + 1
		for ; j < len(lines); j++ {
			m := summaryRE().FindStringSubmatch(lines[j])
			if m == nil {
				break
			}
			n, _ := strconv.Atoi(m[2])
			switch m[1] {
			case "Stack":
				s.Stack = m[2]
			case "Created":
				s.Created = n
			case "Updated":
				s.Updated = n
			case "Deleted":
				s.Deleted = n
			case "Unchanged":
				s.Unchanged = n
			case "Duration":
				s.Duration = m[2]
			}
		}
		// An "Outputs:" block may follow after blank lines.
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j < len(lines) && strings.TrimSpace(lines[j]) == "Outputs:" {
			for j++; j < len(lines) && strings.TrimSpace(lines[j]) != ""; j++ {
				key, value, ok := strings.Cut(strings.TrimSpace(lines[j]), " = ")
				if !ok {
					break
				}
				if s.Stack != "" {
					key = strings.TrimPrefix(key, s.Stack+".")
				}
				if s.Outputs == nil {
					s.Outputs = map[string]string{}
				}
				s.Outputs[key] = value
			}
		}
		if s.Stack != "" {
			out = append(out, s)
		}
		i = j - 1
	}
	return out
}
