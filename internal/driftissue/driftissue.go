// Package driftissue is the drift tracking issue as a type: its hidden
// header, the state a check leaves it in, and its body, the latest check's
// report with the record of drift kept between hidden markers so that a
// check that fails can carry the last known drift over. It is the only code
// that writes or parses those markers. It does no I/O: internal/app hands
// the result to the GitHub client's sticky issue.
package driftissue

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Kind marks the tracking issue in its hidden header: a later run finds its
// own issue by kind and label (and author).
const Kind = "drift"

// Budget is the body's: an issue body takes 65,536 characters, like a
// comment; the header and the footer line are added after rendering.
var Budget = reporters.Budget{MaxChars: 65536 - 2048, Channel: "the tracking issue"}

// The body keeps its record of drift between these markers: one entry per
// drifted stack, each starting with a stackMarker line.
const (
	recordStart = "<!-- cdkd-action:last-drift -->"
	recordEnd   = "<!-- /cdkd-action:last-drift -->"
	// stackMarker starts a stack's entry: stackMarker + JSON {stack,
	// region} + " -->".
	stackMarker = "<!-- cdkd-action:drifted-stack "
)

// closedIntro is how the report of a check without drift opens the issue
// (reporters' issue intro); keptIntro replaces it when drift of a stack
// the check did not compare keeps the issue open.
const (
	closedIntro = "✅ **The latest check found no drift.** This issue is closed; it reopens if drift comes back."
	keptIntro   = "✅ **The latest check found no drift** in what it compared. The drift below is of stacks it did not compare, so this issue stays open until a check compares them."
)

// recordIntro heads the record when the latest check's report is above it.
const recordIntro = "---\n\n**Last known drift**, per stack, from the last check that compared it. A stack's drift stays here until a check compares that stack again:\n"

// Header is the issue's hidden header for a check of label. The status is
// in it, so a change of status alone is a change of content.
func Header(label string, rep reporters.DriftReport) marker.Header {
	return marker.Header{V: marker.Version, Kind: Kind, Label: label, Cdkd: rep.CdkdVersion,
		Extra: map[string]string{"status": string(rep.FinalStatus())}}
}

// State is what a check makes of the one tracking issue of its label.
type State int

const (
	// Keep edits an open issue and never opens one: a check that could not
	// complete, or compared nothing, says nothing about the drift.
	Keep State = iota
	// Open opens (or reopens) the issue: drift was found.
	Open
	// Close closes it: a check compared resources and found no drift.
	Close
)

// StateFor is the issue's state after this check. A clean check that
// compared nothing does not close it: it did not look at the drift.
func StateFor(rep reporters.DriftReport) State {
	switch rep.FinalStatus() {
	case model.DriftDrifted:
		return Open
	case model.DriftClean:
		v := rep.Verdict
		if res := rep.Resolution; res != nil && res.After != nil {
			v = *res.After
		}
		if !reporters.NothingCompared(v) {
			return Close
		}
	}
	return Keep
}

// Issue is the issue's body (without header and footer) in its parts.
// String joins them; Parse(i.String()) gives i again.
type Issue struct {
	// Report is the latest check's report; "" when the record says it
	// all (an issue written before records were kept per stack).
	Report string
	// Record is the drift kept between the markers: the entries of the
	// stacks whose last comparison found drift (see Entries), or, in an
	// issue written before, one report; "" when there is none.
	Record string
}

// Entry is one stack's last known drift in the record.
type Entry struct {
	Stack  string `json:"stack"`
	Region string `json:"region"`
	// Text is the stack's drift as the check that found it reported it.
	Text string `json:"-"`
}

func (e Entry) same(stack, region string) bool { return e.Stack == stack && e.Region == region }

// Entries reads the record's entries, in order; legacy is the record of
// an issue written before entries (one report, no stack named), "" when
// there is none.
func (i Issue) Entries() (entries []Entry, legacy string) {
	parts := strings.Split(i.Record, "\n"+stackMarker)
	first := parts[0]
	if rest, ok := strings.CutPrefix(first, stackMarker); ok {
		parts[0] = rest
	} else {
		legacy, parts = strings.TrimSpace(first), parts[1:]
		if legacy != "" {
			legacy = first
		}
	}
	for _, p := range parts {
		line, text, _ := strings.Cut(p, "\n")
		var e Entry
		if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(line), "-->")), &e); err != nil || e.Stack == "" {
			continue // not an entry of ours: dropped rather than misread
		}
		e.Text = text
		entries = append(entries, e)
	}
	return entries, legacy
}

// record joins entries (and a legacy record kept) into a Record.
func record(legacy string, entries []Entry) string {
	var b strings.Builder
	if legacy != "" {
		b.WriteString(strings.TrimRight(legacy, "\n"))
		b.WriteString("\n")
	}
	for _, e := range entries {
		head, _ := json.Marshal(Entry{Stack: e.Stack, Region: e.Region})
		b.WriteString(stackMarker + string(head) + " -->\n")
		b.WriteString(strings.TrimRight(e.Text, "\n"))
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// Decide is what this check makes of the tracking issue whose body was
// previous ("" when there is none): its state and its body. A stack's
// last known drift is replaced only by a check that compared that stack:
// drift found there replaces it, a comparison without drift removes it,
// and a stack this check did not compare (it failed, compared nothing
// there, or was not checked at all) keeps its entry. The issue closes
// only when a check compared something, found no drift, and no stack's
// drift is left on record.
func Decide(rep reporters.DriftReport, previous string) (State, Issue) {
	found, _ := Parse(previous)
	entries, legacy := found.Entries()
	v := finalVerdict(rep)
	compared := false
	if rep.FinalStatus() != model.DriftError {
		for _, sv := range v.Stacks {
			switch {
			case sv.Status == model.DriftDrifted:
				compared = true
				entries = setEntry(entries, Entry{Stack: sv.Stack, Region: sv.Region})
			case sv.Status == model.DriftClean && !sv.Coverage.NothingCompared():
				compared = true
				entries = slices.DeleteFunc(entries, func(e Entry) bool { return e.same(sv.Stack, sv.Region) })
			}
		}
	}
	if compared {
		legacy = "" // an issue written before named no stack: a comparison replaces it
	}
	report := reporters.DriftIssueMarkdown(rep, Budget)
	if rep.FinalStatus() == model.DriftDrifted {
		// The report is the record: its opening (what the check found
		// overall), then an entry per drifted stack, each as the report
		// shows it, and the drift of stacks it did not compare below.
		opening, sections, _ := strings.Cut(report, "\n<details")
		if k := strings.LastIndex(sections, "</details>\n"); k >= 0 {
			// What follows the last section (the stacks without drift)
			// belongs to this check's opening, not to a stack's entry.
			if calm := strings.TrimSpace(sections[k+len("</details>\n"):]); calm != "" {
				opening = strings.TrimRight(opening, "\n") + "\n\n" + calm + "\n"
			}
		}
		room := Budget.MaxChars - len(opening) - len(recordStart) - len(recordEnd) - 200
		entries = render(rep, entries, room)
		i := Issue{Record: record(opening, entries)}
		if len(i.Record) > Budget.MaxChars-200 {
			i.Record = cutAtLine(i.Record, Budget.MaxChars-200) + "\n\n… (the last known drift was shortened to fit)"
		}
		return Open, i
	}
	room := Budget.MaxChars - len(report) - len(recordIntro) - len(recordStart) - len(recordEnd) - 200
	entries = render(rep, entries, room)
	i := Issue{Report: report, Record: record(legacy, entries)}
	if len(i.Record) > max(room, 0) {
		i.Record = cutAtLine(i.Record, max(room, 0)) + "\n\n… (the last known drift was shortened to fit)"
	}
	state := StateFor(rep)
	if state == Close && i.Record != "" {
		// Drift of a stack this check did not compare is still on record:
		// the issue stays open, and its report must not say it closed.
		state = Keep
		i.Report = strings.Replace(i.Report, closedIntro, keptIntro, 1)
	}
	return state, i
}

// Title is the issue's title after this check, without the check's name:
// the check's outcome (reporters.DriftTitle), except when a check that
// found no drift leaves the issue open for the last known drift of stacks
// it did not compare. "No drift" over an open issue of drift would claim
// what the check never looked at.
func Title(rep reporters.DriftReport, state State, i Issue) string {
	t := reporters.DriftTitle(rep)
	if state != Keep || rep.Verdict.Status != model.DriftClean || i.Record == "" || reporters.NothingCompared(rep.Verdict) {
		// A check that compared nothing says so in its own title.
		return t
	}
	kept := "last known drift kept"
	if entries, _ := i.Entries(); len(entries) == 1 {
		kept += " for 1 stack"
	} else if len(entries) > 1 {
		kept += fmt.Sprintf(" for %d stacks", len(entries))
	}
	return "No drift in what was compared; " + kept
}

// Body is Decide's body.
func Body(rep reporters.DriftReport, previous string) Issue {
	_, i := Decide(rep, previous)
	return i
}

// setEntry puts e in entries, replacing the entry of its stack.
func setEntry(entries []Entry, e Entry) []Entry {
	for k := range entries {
		if entries[k].same(e.Stack, e.Region) {
			entries[k] = e
			return entries
		}
	}
	return append(entries, e)
}

// render writes the text of the entries this check found drift in (those
// with none yet), each from a report of that stack alone, within an even
// share of room.
func render(rep reporters.DriftReport, entries []Entry, room int) []Entry {
	share := room / max(len(entries), 1)
	v := finalVerdict(rep)
	for k := range entries {
		e := &entries[k]
		if e.Text != "" {
			continue
		}
		for _, s := range rep.Drift.Stacks {
			if !e.same(s.Stack, s.Region) {
				continue
			}
			one := rep
			one.Drift = model.Drift{Stacks: []model.StackDrift{s}}
			one.Verdict = model.RunVerdict{Status: model.DriftDrifted, ExitCode: v.ExitCode}
			for _, sv := range v.Stacks {
				if sv.Stack == s.Stack && sv.Region == s.Region {
					one.Verdict.Stacks, one.Verdict.Drifted = []model.StackVerdict{sv}, sv.Drifted
				}
			}
			one.Resolution, one.Notes, one.CauseNote, one.Missing, one.Error, one.StderrTail = nil, nil, "", "", "", nil
			text := reporters.DriftIssueMarkdown(one, reporters.Budget{MaxChars: max(share, 1), Channel: Budget.Channel})
			// The stack's section and the footer naming the check; the
			// title and the headline are the issue's.
			if _, section, ok := strings.Cut(text, "\n<details"); ok {
				e.Text = "<details" + section
			} else {
				_, e.Text, _ = strings.Cut(text, "\n")
				e.Text = strings.TrimLeft(e.Text, "\n")
			}
		}
		if e.Text == "" {
			e.Text = "Drift was found in " + reporters.Code(e.Stack) + " (" + e.Region + ")."
		}
	}
	return entries
}

// finalVerdict is the verdict the issue follows: after --accept or
// --revert, what they left.
func finalVerdict(rep reporters.DriftReport) model.RunVerdict {
	if res := rep.Resolution; res != nil && res.After != nil {
		return *res.After
	}
	return rep.Verdict
}

// String is the body as the issue shows it.
func (i Issue) String() string {
	switch {
	case i.Record == "":
		return i.Report
	case i.Report == "":
		return recordStart + "\n" + i.Record + "\n" + recordEnd + "\n"
	}
	return i.Report + "\n" + recordIntro + "\n" + recordStart + "\n" + i.Record + "\n" + recordEnd + "\n"
}

// Parse reads the record a body kept between the markers; false when it
// kept none (an issue written before records, or by a check that found no
// drift). Report is the text before the record, so for a whole issue body
// it starts with the hidden header; what follows the record (the footer)
// is not part of the Issue.
func Parse(body string) (Issue, bool) {
	before, rest, ok := strings.Cut(body, recordStart+"\n")
	if !ok {
		return Issue{Report: body}, false
	}
	record, _, ok := strings.Cut(rest, "\n"+recordEnd)
	if !ok || strings.TrimSpace(record) == "" {
		return Issue{Report: body}, false
	}
	return Issue{Report: strings.TrimSuffix(before, "\n"+recordIntro+"\n"), Record: record}, true
}

// cutAtLine shortens s to at most n bytes, at a line break.
func cutAtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		s = s[:i]
	}
	return s
}
