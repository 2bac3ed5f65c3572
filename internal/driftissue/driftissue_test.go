package driftissue

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

var (
	compared = []model.StackVerdict{{Coverage: model.Coverage{Attempted: 1, Full: 1}}}
	nothing  = []model.StackVerdict{{Coverage: model.Coverage{Unsupported: 1}}}
	failed   = reporters.DriftReport{Verdict: model.ErrorVerdict(1, "boom"), Error: "cdkd drift failed: boom"}
)

func verdict(s model.DriftStatus, stacks []model.StackVerdict) reporters.DriftReport {
	return reporters.DriftReport{Verdict: model.RunVerdict{Status: s, Stacks: stacks}}
}

// A failed check carries the issue's record over, within GitHub's limit.
func TestBodyKeepsTheRecordWithinBudget(t *testing.T) {
	record := strings.Repeat("- `Res` · `AWS::SQS::Queue`\n", 5000) // larger than an issue takes
	prev := "<!-- header -->\n" + Issue{Record: record}.String() + "\n<sub>Last updated</sub>"
	body := Body(failed, prev).String()
	assert.Assert(t, len(body) <= Budget.MaxChars, "%d chars", len(body))
	assert.Assert(t, is.Contains(body, "The latest check could not run"))
	assert.Assert(t, is.Contains(body, "**Last known drift**"))
	assert.Assert(t, is.Contains(body, "the last known drift was shortened to fit"))
	kept, ok := Parse(body)
	assert.Assert(t, ok, "the carried record can be carried again")
	assert.Assert(t, is.Contains(kept.Record, "`AWS::SQS::Queue`"))
	assert.Assert(t, !strings.Contains(kept.Report, "Last known drift"), "the intro is the record's, not the report's")

	// No record (an issue written before, or by a check that was not
	// drift): the failure alone.
	body = Body(failed, "old body").String()
	assert.Assert(t, !strings.Contains(body, "Last known drift"))
}

// A drift report is the record; a clean report replaces it, so a later
// failure has nothing to carry.
func TestBodyRecordsOnlyDrift(t *testing.T) {
	drifted := Body(verdict(model.DriftDrifted, compared), "")
	assert.Equal(t, drifted.Report, "")
	assert.Assert(t, drifted.Record != "")
	carried := Body(failed, drifted.String())
	assert.Equal(t, carried.Record, drifted.Record)

	clean := Body(verdict(model.DriftClean, compared), drifted.String())
	assert.Equal(t, clean.Record, "")
	assert.Equal(t, Body(failed, clean.String()).Record, "")
}

func TestParseRoundTrip(t *testing.T) {
	for _, i := range []Issue{
		{Report: "### cdkd drift\n\nclean\n"},
		{Record: "- `Res` · `AWS::SQS::Queue`\n"},
		{Report: "### cdkd drift\n\nfailed\n", Record: "- `Res`\n"},
	} {
		got, ok := Parse(i.String())
		assert.Equal(t, ok, i.Record != "")
		assert.DeepEqual(t, got, i)
	}
}

func TestParseRefusesAnUnfinishedRecord(t *testing.T) {
	for name, body := range map[string]string{
		"no end marker": recordStart + "\n- `Res`\n",
		"empty record":  recordStart + "\n \n" + recordEnd + "\n",
		"no markers":    "### cdkd drift\n",
	} {
		_, ok := Parse(body)
		assert.Assert(t, !ok, name)
	}
}

// The issue opens on drift, closes on a clean check that compared something,
// and is otherwise kept as it is: it never claims what a check did not see.
func TestStateFor(t *testing.T) {
	tests := []struct {
		name string
		rep  reporters.DriftReport
		want State
	}{
		{"drift opens", verdict(model.DriftDrifted, compared), Open},
		{"clean closes", verdict(model.DriftClean, compared), Close},
		{"clean but nothing compared keeps it", verdict(model.DriftClean, nothing), Keep},
		{"incomplete keeps it", verdict(model.DriftIncomplete, compared), Keep},
		{"an error keeps it", failed, Keep},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, StateFor(tc.rep), tc.want)
			h := Header("prod", tc.rep)
			assert.Equal(t, h.Kind, Kind)
			assert.Equal(t, h.Extra["status"], string(tc.rep.FinalStatus()))
		})
	}
}
