package cdkd

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// SplitJSON cuts stdout into the JSON document it starts with and the text
// cdkd printed after it. With --json, cdkd 0.284.40 prints a resolution's
// plan, its per-resource lines and its summary on stdout after the document
// (the seed says stderr; both are read). The text comes back as
// ANSI-stripped, non-empty lines; like every cdkd line it may hold a secret
// (the plan prints values in plaintext), so redact before showing. When
// stdout does not start with a JSON document, doc is all of it, for the
// decoder to report.
func SplitJSON(stdout []byte) (doc []byte, text []string) {
	trimmed := bytes.TrimLeft(stdout, " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '[' && trimmed[0] != '{') {
		return stdout, nil
	}
	if _, off, err := firstValue(stdout); err == nil {
		return stdout[:off], nonEmpty(plainLines(stdout[off:]))
	}
	return stdout, nil
}

// resourceRef finds "[Stack/]LogicalId (Type)" in one of cdkd's lines.
var resourceRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s→~✓✗⊘!⚠])(?:([^\s/()]+)/)?([A-Za-z0-9][^\s/()]*) \(((?:AWS|Custom|Alexa)::[^\s()]+)\)(?::\s*(.*))?`)
})

// lineRef is a resource a line names, and the text after "(Type): ".
type lineRef struct {
	stack, id, typ, rest string
}

func findRef(line string) (lineRef, bool) {
	m := resourceRef().FindStringSubmatch(line)
	if m == nil {
		return lineRef{}, false
	}
	return lineRef{stack: m[1], id: m[2], typ: m[3], rest: strings.TrimSpace(m[4])}, true
}

// LogCause is what cdkd's own per-resource line says about a resource it
// did not compare.
type LogCause struct {
	LogicalID, Type string
	// Cause is decided from the line's words; CauseUnreported when they
	// name none this version knows (the line is still cdkd's reason).
	Cause model.NotComparedCause
	// Reason is the line after "<LogicalId> (<Type>): ". Redact it.
	Reason string
	// TokenOverwrite: the line says a revert would overwrite a live value
	// with a token literal.
	TokenOverwrite bool
}

// NotComparedLines reads cdkd's per-resource lines about comparisons it did
// not make: "<LogicalId> (<Type>): refused to resolve a dynamic reference
// …", "<LogicalId> (<Type>): cdkd cannot resolve {{resolve:ssm-secure:…}}
// …", and read failures with the SDK's error. Lines naming no resource, or
// saying nothing about a comparison, are ignored. The first line per
// resource wins, except that a line with a cause beats one without.
func NotComparedLines(lines []string) []LogCause {
	var out []LogCause
	index := map[string]int{}
	for _, l := range lines {
		ref, ok := findRef(strings.TrimSpace(StripANSI(l)))
		if !ok || ref.rest == "" {
			continue
		}
		c, ok := logCause(ref.rest)
		if !ok {
			continue
		}
		lc := LogCause{LogicalID: ref.id, Type: ref.typ, Cause: c, Reason: withoutTokenCases(ref.rest), TokenOverwrite: tokenOverwrite(ref.rest)}
		key := ref.id + "\x00" + ref.typ
		if i, seen := index[key]; seen {
			if out[i].Cause == model.CauseUnreported && c != model.CauseUnreported {
				out[i] = lc
			}
			continue
		}
		index[key] = len(out)
		out = append(out, lc)
	}
	return out
}

// logCause decides a cause from the words of cdkd's line; ok is false for
// a line that is not about a comparison cdkd did not make.
func logCause(rest string) (model.NotComparedCause, bool) {
	lower := strings.ToLower(rest)
	switch {
	case strings.Contains(lower, "refused to resolve"), strings.HasPrefix(lower, "refused"):
		return model.CauseRefused, true
	case strings.Contains(lower, "cannot resolve {{resolve:"), strings.Contains(lower, "could not resolve {{resolve:"):
		return model.CauseUnresolvedToken, true
	case strings.Contains(lower, "read failed"), strings.Contains(lower, "failed to read"),
		strings.Contains(lower, "readcurrentstate"), strings.Contains(lower, "comparison failed"),
		strings.Contains(lower, "comparison threw"):
		return model.CauseReadFailed, true
	case strings.Contains(lower, "not compared"):
		return model.CauseUnreported, true
	}
	return "", false
}

// tokenCases is cdkd 0.284.40's sentence stating both revert cases of an
// ssm-secure token at once (sample 86): "A revert leaves a property whose
// WHOLE value is one of these tokens untouched; where a token is EMBEDDED
// … WOULD be overwritten." The action says the one case that applies
// (model.DecideTokenCase), so the quote leaves this sentence out.
var tokenCases = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\s*A revert leaves a property whose whole value [^.]*? would be overwritten\.`)
})

// withoutTokenCases is cdkd's line with its two-case sentence marked as
// left out.
func withoutTokenCases(line string) string {
	return tokenCases().ReplaceAllString(line, " (…)")
}

// tokenOverwrite reports a line saying a live value WOULD be overwritten
// with a token literal (sample 86's warning, and the seeds' revert plan).
func tokenOverwrite(text string) bool {
	lower := strings.ToLower(text)
	return strings.Contains(lower, "would be overwritten") && strings.Contains(lower, "token")
}

// planHead reads "Plan (--revert): ... for StackA (us-east-1):".
var planHead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Plan \(--(accept|revert)\):.* for (\S+) \(([^)]*)\):?\s*$`)
})

// stateUpdated reads "✓ State updated for StackA (us-east-1): accepted drift on 1 resource(s)."
var stateUpdated = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^✓ State updated for (\S+)`) })

// summaryCount reads "1 reverted", "2 update-not-supported" in a summary.
var summaryCount = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) ([a-zA-Z][a-zA-Z-]*)`) })

// PlanLine is one line of a resolution's text: a value line of the plan
// ("    Value: old -> new", which prints values in plaintext, NoEcho values
// included) carries the resource and path it belongs to, so the caller can
// hide it by position.
type PlanLine struct {
	Text string
	// Value is set for a "<path>: <old> -> <new>" line under a resource,
	// and for the first line of a multi-line value ("<path>: <old's first
	// line>", After empty).
	Value bool
	// Continuation is a line after a value line that cdkd printed as part
	// of the value: cdkd prints a multi-line string raw, so its later
	// lines are not indented and may look like anything. Stack, LogicalID
	// and Path name the value it continues.
	Continuation bool
	// Skipped is set for a "<path>: SKIPPED — <reason>" line under a
	// resource: --accept refused that property (Before holds the reason).
	Skipped             bool
	Stack, LogicalID    string
	Path, Before, After string
}

// planValue is a value line under a resource: four spaces, a path without
// blanks, ": ".
var planValue = regexp.MustCompile(`^    (\S+): `)

// PlanStructure reports whether a line is one of the lines cdkd's
// resolution text prints around values, at its own indentation: a
// resource (~, →), an outcome (✓, ✗, ⊘), a warning (!, ⚠), a plan head or
// a summary. Any other line after a value line continues the value.
func PlanStructure(line string) bool {
	line = strings.TrimRight(StripANSI(line), " \t\r")
	trim := strings.TrimSpace(line)
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if indent <= 4 && (strings.HasPrefix(trim, "! ") || strings.HasPrefix(trim, "⚠")) {
		return true // a warning: cdkd prints some under a resource's values
	}
	if indent > 2 {
		return false
	}
	for _, p := range []string{"~ ", "→ ", "✓ ", "✗ ", "⊘ "} {
		if strings.HasPrefix(trim, p) {
			return true
		}
	}
	return planHead().MatchString(trim) || stateUpdated().MatchString(trim) ||
		strings.HasPrefix(line, "Revert summary") || strings.HasPrefix(line, "Accept summary") ||
		strings.HasPrefix(line, "Comparison INCOMPLETE") || strings.HasPrefix(line, "No drift detected") ||
		strings.HasPrefix(line, "--dry-run:")
}

// PlanValueStart reports whether a line under a resource starts a value
// ("    <path>: ..."), and its path.
func PlanValueStart(line string) (path string, ok bool) {
	m := planValue.FindStringSubmatch(strings.TrimRight(StripANSI(line), " \t\r"))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// ResolutionOutput is what cdkd's text says a resolution did.
type ResolutionOutput struct {
	// Resources are the resources cdkd's lines name, with what became of
	// each, in the order cdkd printed them.
	Resources []model.ResolvedResource
	// Warnings are the plan's warnings (preserved AWS-authored values and
	// service tags, token literals that would overwrite a live value).
	Warnings []string
	// TokenOverwrite are the resources whose plan says a live value would
	// be overwritten with a token literal.
	TokenOverwrite []model.ResolvedResource
	// Summary are the summary lines ("Revert summary: …", "✓ State updated
	// …", "Comparison INCOMPLETE …", "No drift detected …").
	Summary []string
	// Counts are the summary line's counts by word ("reverted",
	// "update-not-supported", "failed"), when cdkd printed one.
	Counts map[string]int
	// Lines is all of the text, value lines marked.
	Lines []PlanLine
}

// ParseResolution reads the text of `cdkd drift --accept|--revert` (also
// under --dry-run): the plan, the per-resource lines (✓ reverted, ✗ failed,
// ⊘ update not supported, SKIPPED), "Comparison INCOMPLETE" and the
// summary. lines are stdout's text after the JSON and stderr, in any order.
func ParseResolution(lines []string, mode string) ResolutionOutput {
	var out ResolutionOutput
	type key struct{ stack, id string }
	seen := map[key]int{}
	planned := map[string][]model.ResolvedResource{} // --accept's "~ Id (Type)" per stack
	valueLines := map[key]int{}                      // value lines under each planned resource
	skipped := map[key][]string{}                    // "Path: reason" of its SKIPPED lines
	put := func(r model.ResolvedResource) {
		k := key{r.Stack, r.LogicalID}
		if i, ok := seen[k]; ok {
			if out.Resources[i].Outcome == model.ResolutionAccepted || out.Resources[i].Outcome == model.ResolutionUnreported {
				out.Resources[i] = r
			}
			return
		}
		seen[k] = len(out.Resources)
		out.Resources = append(out.Resources, r)
	}
	var planStack, resStack, resID string
	var value *PlanLine // the value the lines being read continue
	for _, raw := range lines {
		line := strings.TrimRight(StripANSI(raw), " \t")
		trim := strings.TrimSpace(line)
		if trim == "" {
			continue
		}
		pl := PlanLine{Text: line}
		if value != nil && !PlanStructure(line) {
			if _, next := PlanValueStart(line); !next {
				out.Lines = append(out.Lines, PlanLine{Text: line, Continuation: true, Stack: value.Stack, LogicalID: value.LogicalID, Path: value.Path})
				continue
			}
		}
		value = nil
		ref, hasRef := findRef(trim)
		stack := ref.stack
		if stack == "" {
			stack = planStack
		}
		switch {
		case planHead().MatchString(trim):
			planStack = planHead().FindStringSubmatch(trim)[2]
			resStack, resID = "", ""
		case stateUpdated().MatchString(trim):
			out.Summary = append(out.Summary, trim)
			s := stateUpdated().FindStringSubmatch(trim)[1]
			for _, r := range planned[s] {
				// A resource whose every property cdkd skipped was not
				// accepted: cdkd's "accepted drift on N resource(s)"
				// does not count it.
				k := key{r.Stack, r.LogicalID}
				r.Outcome = model.ResolutionAccepted
				if len(skipped[k]) > 0 && valueLines[k] == 0 {
					r.Outcome = model.ResolutionSkipped
				}
				if len(skipped[k]) > 0 {
					r.Reason = "skipped " + strings.Join(skipped[k], "; ")
				}
				put(r)
			}
			delete(planned, s)
		case strings.Contains(trim, "Revert summary"), strings.Contains(trim, "Accept summary"):
			out.Summary = append(out.Summary, trim)
			out.Counts = map[string]int{}
			_, counts, _ := strings.Cut(trim, ":")
			for _, m := range summaryCount().FindAllStringSubmatch(counts, -1) {
				n, _ := strconv.Atoi(m[1])
				out.Counts[m[2]] += n
			}
		case strings.Contains(trim, "Comparison INCOMPLETE"), strings.HasPrefix(trim, "No drift detected"):
			out.Summary = append(out.Summary, trim)
		case hasRef && strings.Contains(trim, "SKIPPED"):
			reason := ref.rest
			if reason == "" {
				reason = skipReason(trim)
			}
			put(model.ResolvedResource{Stack: stack, LogicalID: ref.id, Type: ref.typ, Outcome: model.ResolutionSkipped, Reason: reason})
		case hasRef && strings.HasPrefix(trim, "✓"):
			put(model.ResolvedResource{Stack: stack, LogicalID: ref.id, Type: ref.typ, Outcome: resolvedOutcome(mode)})
		case hasRef && strings.HasPrefix(trim, "✗"):
			put(model.ResolvedResource{Stack: stack, LogicalID: ref.id, Type: ref.typ, Outcome: model.ResolutionFailed, Reason: ref.rest})
		case hasRef && strings.HasPrefix(trim, "⊘"):
			outcome := model.ResolutionFailed
			if notSupported(ref.rest) {
				outcome = model.ResolutionUpdateNotSupported
			}
			put(model.ResolvedResource{Stack: stack, LogicalID: ref.id, Type: ref.typ, Outcome: outcome, Reason: ref.rest})
		case hasRef && (strings.HasPrefix(trim, "~") || strings.HasPrefix(trim, "→")):
			resStack, resID = stack, ref.id
			if strings.HasPrefix(trim, "~") && mode == ResolutionAccept {
				planned[stack] = append(planned[stack], model.ResolvedResource{Stack: stack, LogicalID: ref.id, Type: ref.typ})
			}
		case resID != "" && strings.HasPrefix(line, "    ") && skippedProperty().MatchString(trim):
			m := skippedProperty().FindStringSubmatch(trim)
			pl = PlanLine{Text: line, Skipped: true, Stack: resStack, LogicalID: resID, Path: m[1], Before: m[2]}
			k := key{resStack, resID}
			skipped[k] = append(skipped[k], m[1]+" ("+m[2]+")")
		case resID != "" && planValue.MatchString(line) && !strings.Contains(line, ": SKIPPED"):
			valueLines[key{resStack, resID}]++
			path, values, _ := strings.Cut(trim, ": ")
			before, after, _ := strings.Cut(values, " -> ")
			pl = PlanLine{Text: line, Value: true, Stack: resStack, LogicalID: resID, Path: path, Before: before, After: after}
			value = &pl
		}
		if isPlanWarning(trim) {
			out.Warnings = append(out.Warnings, trim)
		}
		if hasRef && tokenOverwrite(trim) {
			out.TokenOverwrite = append(out.TokenOverwrite, model.ResolvedResource{Stack: ref.stack, LogicalID: ref.id, Type: ref.typ,
				Outcome: model.ResolutionRefused, Reason: withoutTokenCases(ref.rest)})
		}
		out.Lines = append(out.Lines, pl)
	}
	return out
}

func resolvedOutcome(mode string) model.ResolutionOutcome {
	if mode == ResolutionAccept {
		return model.ResolutionAccepted
	}
	return model.ResolutionReverted
}

func notSupported(text string) bool {
	lower := strings.ToLower(text)
	return strings.Contains(lower, "updatenotsupported") || strings.Contains(lower, "update-not-supported") ||
		strings.Contains(lower, "not supported") || strings.Contains(lower, "could not revert")
}

// skippedProperty is --accept's refusal of one property under its
// resource: "QueueName: SKIPPED — it carries a secret dynamic reference …"
// (cdkd 0.284.40, sample 82).
var skippedProperty = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\S+): SKIPPED\s*[—:-]*\s*(.*)$`)
})

// skipReason is what a SKIPPED line says after the word.
func skipReason(line string) string {
	_, after, _ := strings.Cut(line, "SKIPPED")
	after = strings.TrimLeft(after, " :—-")
	if after == "" {
		return line
	}
	return after
}

// isPlanWarning reports the plan lines the seed puts before the prompt:
// AWS-authored values and service tags it leaves alone, and token literals
// that would overwrite a live value.
func isPlanWarning(line string) bool {
	lower := strings.ToLower(line)
	return strings.HasPrefix(line, "!") || strings.HasPrefix(line, "⚠") || tokenOverwrite(line) ||
		strings.Contains(lower, "preserv") || strings.Contains(lower, "leaves ") || strings.Contains(lower, "untouched")
}

// DriftDryRunArgs builds `cdkd drift ... --json --<mode> --dry-run`: the
// plan the seed prints before the prompt, without a lock or an AWS call.
func DriftDryRunArgs(c Common, stackRegion, mode string) ([]string, error) {
	args, err := DriftArgs(c, stackRegion, mode)
	if err != nil {
		return nil, err
	}
	if args[len(args)-1] == "-y" {
		args = args[:len(args)-1]
	}
	return append(args, "--dry-run"), nil
}

// ApplyLogCauses gives each not-compared resource what cdkd's log says
// about it, before any inference: the log is the authority. A cause cdkd
// did not put in its JSON is taken from the line (BasisLog); a cause it
// did report is kept. Either way the line is the resource's Reason.
// reason redacts a line before it is kept.
func ApplyLogCauses(d *model.Drift, lines []LogCause, redact func(string) string) {
	if len(lines) == 0 {
		return
	}
	for i := range d.Stacks {
		for j := range d.Stacks[i].NotCompared {
			nc := &d.Stacks[i].NotCompared[j]
			for _, lc := range lines {
				if lc.LogicalID != nc.LogicalID || (lc.Type != "" && nc.Type != "" && lc.Type != nc.Type) {
					continue
				}
				nc.Reason = redact(lc.Reason)
				if nc.Cause == model.CauseUnreported && lc.Cause != model.CauseUnreported {
					nc.Cause, nc.CauseInferred, nc.CauseBasis = lc.Cause, true, model.BasisLog
				}
				break
			}
		}
	}
}
