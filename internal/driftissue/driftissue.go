// Package driftissue is the drift tracking issue as a type: its hidden
// header, the state a check leaves it in, and its body, the latest check's
// report with the record of drift kept between hidden markers so that a
// check that fails can carry the last known drift over. It is the only code
// that writes or parses those markers. It does no I/O: internal/app hands
// the result to the GitHub client's sticky issue.
package driftissue

import (
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

// The body keeps its list of drifted resources between these markers.
const (
	recordStart = "<!-- cdkd-action:last-drift -->"
	recordEnd   = "<!-- /cdkd-action:last-drift -->"
)

// recordIntro heads the drift a failed check carried over.
const recordIntro = "---\n\n**Last known drift**, from the last check that completed. It stays here until a check completes and replaces it:\n"

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
	// Report is the latest check's report when it is not itself the
	// record (a clean, incomplete or failed check); "" when it is.
	Report string
	// Record is the drift kept between the markers: the report of a check
	// that found drift, or the last known drift a failed check carried
	// over; "" when there is none.
	Record string
}

// Body is the issue's body for this check, given the body of the issue
// found (previous, "" when there is none). A drift report is kept as the
// record. A failed check does not erase the record it finds: it says the
// latest run failed and why, and keeps the last known drift below, shortened
// to fit, until a check that completes replaces it.
func Body(rep reporters.DriftReport, previous string) Issue {
	report := reporters.DriftIssueMarkdown(rep, Budget)
	switch rep.FinalStatus() {
	case model.DriftDrifted:
		return Issue{Record: report}
	case model.DriftError:
		found, ok := Parse(previous)
		if !ok {
			break
		}
		record := found.Record
		room := Budget.MaxChars - len(report) - len(recordIntro) - len(recordStart) - len(recordEnd) - 200
		if len(record) > room {
			record = cutAtLine(record, max(room, 0)) + "\n\n… (the last known drift was shortened to fit)\n"
		}
		return Issue{Report: report, Record: record}
	}
	return Issue{Report: report}
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
