package cdkd

import (
	"regexp"
	"strings"
	"sync"
)

// DeployStdoutTail is how much of deploy's stdout is kept besides the
// lines its report needs (see Runner.StdoutTail): enough for the last
// stack's progress and error, bounded whatever cdkd prints.
const DeployStdoutTail = 1 << 20

// maxReportLines bounds the lines kept because the report needs them
// (summaries, outputs, progress, lock and error lines) when they leave the
// tail: a deploy of thousands of resources needs well under this.
const maxReportLines = 8 << 20

// stdoutKeeper keeps what a report needs of a long text stdout: every
// line that reportLines says matters (in order), and the last tail bytes
// of the rest. Lines are kept in order; the point where others were left
// out is marked once.
type stdoutKeeper struct {
	tail    int
	marked  reportLines
	kept    []string // lines the report needs, older than the tail
	keptLen int
	recent  []keptLine
	size    int  // bytes in recent
	gap     bool // lines were left out since the last kept one
}

type keptLine struct {
	text   string
	needed bool
}

func (k *stdoutKeeper) add(line string) {
	k.recent = append(k.recent, keptLine{text: line, needed: k.marked.needed(line)})
	k.size += len(line) + 1
	for k.size > k.tail && len(k.recent) > 1 {
		old := k.recent[0]
		k.recent[0] = keptLine{}
		k.recent = k.recent[1:]
		k.size -= len(old.text) + 1
		switch {
		case old.needed && k.keptLen+len(old.text) < maxReportLines:
			if k.gap {
				k.kept = append(k.kept, elisionLine)
				k.gap = false
			}
			k.kept = append(k.kept, old.text)
			k.keptLen += len(old.text) + 1
		case strings.TrimSpace(old.text) != "":
			// Blank lines go silently: one between a summary and its
			// Outputs block must not become a marker the parser stops at.
			k.gap = true
		}
	}
}

// elisionLine stands where lines were left out.
const elisionLine = "[cdkd-action: lines of cdkd's output were left out here; the full output is in the step's log]"

// bytes is the kept text, as stdout would read.
func (k *stdoutKeeper) bytes() []byte {
	var b strings.Builder
	for _, l := range k.kept {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if k.gap {
		b.WriteString(elisionLine + "\n")
	}
	for _, l := range k.recent {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// reportLines recognises the lines of deploy's text that its report reads
// (ClassifyDeploy, DeployProgress, LockWords): the Deployment Summary and
// Outputs blocks, per-resource progress, per-stack starts, lock statements
// and the failure list.
type reportLines struct{ inOutputs bool }

var progressRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\d+/\d+\] `)
})

func (l *reportLines) needed(line string) bool {
	plain := line
	if strings.Contains(plain, "\x1b") {
		plain = StripANSI(plain)
	}
	plain = strings.TrimSpace(plain)
	if l.inOutputs {
		if plain == "" {
			l.inOutputs = false
		}
		return true // the blank line ends the block for the parser too
	}
	switch {
	case plain == "Deployment Summary:":
		return true
	case plain == "Outputs:":
		l.inOutputs = true
		return true
	case strings.HasPrefix(plain, "[") && progressRE().MatchString(plain):
		return true
	case strings.HasPrefix(plain, "Deploying "), strings.HasPrefix(plain, "Deleting "):
		return true
	case strings.Contains(plain, "lock") || strings.Contains(plain, "Lock"):
		return true
	}
	// The rest have a colon: summary fields, the failure list.
	if !strings.Contains(plain, ":") {
		return false
	}
	return summaryRE().MatchString(plain) || nodesRE().MatchString(plain) || nodeRE().MatchString(line) || failedRE().MatchString(plain)
}
