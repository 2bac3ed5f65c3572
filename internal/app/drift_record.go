package app

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// The tracking issue keeps its list of drifted resources between these
// markers, so a check that fails can carry it over.
const (
	recordStart = "<!-- cdkd-action:last-drift -->"
	recordEnd   = "<!-- /cdkd-action:last-drift -->"
)

// issueBody is the tracking issue's body (without header and footer). A
// drift report is kept as the record. A failed check does not erase the
// record of the issue it finds: it says the latest run failed and why, and
// keeps the last known drift below until a check that completes replaces it.
func issueBody(rep reporters.DriftReport, found *github.Issue) string {
	body := reporters.DriftIssueMarkdown(rep, issueBudget)
	switch rep.FinalStatus() {
	case model.DriftDrifted:
		return recordStart + "\n" + body + "\n" + recordEnd + "\n"
	case model.DriftError:
		if found == nil {
			return body
		}
		record, ok := issueRecord(found.Body)
		if !ok {
			return body
		}
		room := issueBudget.MaxChars - len(body) - len(recordIntro) - len(recordStart) - len(recordEnd) - 200
		if len(record) > room {
			record = cutAtLine(record, max(room, 0)) + "\n\n… (the last known drift was shortened to fit)\n"
		}
		return body + "\n" + recordIntro + "\n" + recordStart + "\n" + record + "\n" + recordEnd + "\n"
	}
	return body
}

// recordIntro heads the drift a failed check carried over.
const recordIntro = "---\n\n**Last known drift**, from the last check that completed. It stays here until a check completes and replaces it:\n"

// issueRecord is the record a previous body kept between the markers.
func issueRecord(body string) (string, bool) {
	_, rest, ok := strings.Cut(body, recordStart+"\n")
	if !ok {
		return "", false
	}
	record, _, ok := strings.Cut(rest, "\n"+recordEnd)
	if !ok || strings.TrimSpace(record) == "" {
		return "", false
	}
	return record, true
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

// comparedNothing reports a clean check that compared nothing at all: it
// is no reason to close the issue, whose drift it did not look at.
func comparedNothing(rep reporters.DriftReport) bool {
	v := rep.Verdict
	if res := rep.Resolution; res != nil && res.After != nil {
		v = *res.After
	}
	return v.Status == model.DriftClean && reporters.NothingCompared(v)
}
