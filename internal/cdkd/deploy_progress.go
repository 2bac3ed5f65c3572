package cdkd

import (
	"regexp"
	"strings"
	"sync"
)

// StackProgress is what deploy's log says it did to one stack, line by
// line as it went: the evidence left when a deploy was stopped or killed
// before its Deployment Summary (and when its events cannot be read).
type StackProgress struct {
	Stack string
	// Started: cdkd began changing the stack's resources ("Deploying 4
	// resource(s)", or a resource's result). What was in flight when it
	// stopped is not in the log.
	Started                           bool
	Created, Updated, Deleted, Failed int
}

var (
	// "[2/5] ✓ NewQueue1C62264E (AWS::SQS::Queue) created",
	// "[4/5] ↻ Queue4A7E3555 (AWS::SQS::Queue) replaced".
	resultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\d+/\d+\]\s+\S+\s+\S+\s+\([^)]*\)\s+(created|updated|replaced|deleted|failed)\b`)
	})
	startRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:Deploying|Deleting) \d+ resource\(s\)`)
	})
)

// DeployProgress reads deploy's stdout for what it did, per stack, in the
// order the stacks started.
func DeployProgress(stdout []byte) []StackProgress {
	var out []StackProgress
	var cur *StackProgress
	for _, l := range plainLines(stdout) {
		l = strings.TrimSpace(l)
		if name, ok := strings.CutPrefix(l, "Deploying stack: "); ok {
			out = append(out, StackProgress{Stack: strings.TrimSpace(name)})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if startRE().MatchString(l) {
			cur.Started = true
			continue
		}
		m := resultRE().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		cur.Started = true
		switch m[1] {
		case "created":
			cur.Created++
		case "updated", "replaced":
			cur.Updated++
		case "deleted":
			cur.Deleted++
		case "failed":
			cur.Failed++
		}
	}
	return out
}
