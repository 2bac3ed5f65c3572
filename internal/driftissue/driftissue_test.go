package driftissue

import (
	"encoding/json"
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

// checked is a stack of a check: drifted (a queue's timeout), compared
// without drift, or with nothing compared (only a custom resource).
type checked struct {
	stack string
	kind  string // "drifted", "clean" or "nothing"
}

// check is the report of a check of stacks.
func check(stacks ...checked) reporters.DriftReport {
	var d model.Drift
	exit := 0
	for _, c := range stacks {
		s := model.StackDrift{Stack: c.stack, Region: "us-east-1"}
		switch c.kind {
		case "drifted":
			exit = 1
			s.Drifted = []model.DriftedResource{{Resource: model.Resource{LogicalID: "Queue" + c.stack, Type: "AWS::SQS::Queue"},
				Changes: []model.DriftChange{{Path: "VisibilityTimeout", State: model.Value{Raw: json.RawMessage("30")}, AWS: model.Value{Raw: json.RawMessage("60")}}}}}
		case "clean":
			s.Clean = []model.Resource{{LogicalID: "Topic" + c.stack, Type: "AWS::SNS::Topic"}}
		default:
			s.Skipped = []model.Resource{{LogicalID: "Custom" + c.stack, Type: "Custom::Thing"}}
		}
		d.Stacks = append(d.Stacks, s)
	}
	return reporters.DriftReport{Drift: d, Verdict: model.ClassifyRun(&d, exit, nil)}
}

// A stack's last known drift is replaced only by a check that compared
// that stack: a night that compared nothing, one that checked other
// stacks, or one that failed keeps it (and the issue open); a comparison
// of the stack without drift removes it, and only then does the issue
// close.
func TestRecordIsKeptPerStack(t *testing.T) {
	state, night1 := Decide(check(checked{"A", "drifted"}, checked{"B", "clean"}), "")
	assert.Equal(t, state, Open)
	assert.Assert(t, is.Contains(night1.Record, "QueueA"))
	assert.Assert(t, is.Contains(night1.String(), "**No drift:** `B`"), "the check's stacks without drift are said too")
	entries, opening := night1.Entries()
	assert.Assert(t, is.Len(entries, 1))
	assert.Assert(t, is.Contains(opening, "**No drift:** `B`"), "in the check's opening, not in A's entry")

	for name, rep := range map[string]reporters.DriftReport{
		"another stack only, clean":           check(checked{"B", "clean"}),
		"the drifted stack, nothing compared": check(checked{"A", "nothing"}, checked{"B", "clean"}),
		"a failed check":                      failed,
	} {
		state, next := Decide(rep, "<!-- header -->\n"+night1.String())
		assert.Equal(t, state, Keep, name)
		entries, _ := next.Entries()
		assert.Assert(t, is.Len(entries, 1), name)
		assert.Equal(t, entries[0].Stack, "A", name)
		assert.Assert(t, is.Contains(next.Record, "QueueA"), name)
		assert.Assert(t, is.Contains(next.String(), "**Last known drift**"), name)
	}

	// Another stack drifts: both are on record.
	_, night2 := Decide(check(checked{"B", "drifted"}), night1.String())
	entries, _ = night2.Entries()
	assert.Equal(t, len(entries), 2)
	assert.Assert(t, is.Contains(night2.Record, "QueueA"))
	assert.Assert(t, is.Contains(night2.Record, "QueueB"))

	// A compared without drift: only B's is left, and the issue stays
	// open, saying so.
	state, night3 := Decide(check(checked{"A", "clean"}), night2.String())
	assert.Equal(t, state, Keep)
	assert.Assert(t, is.Contains(night3.Report, keptIntro))
	assert.Assert(t, !strings.Contains(night3.String(), "This issue is closed"))
	entries, _ = night3.Entries()
	assert.Assert(t, is.Len(entries, 1))
	assert.Equal(t, entries[0].Stack, "B")

	// Both compared, no drift: nothing on record, the issue closes.
	state, night4 := Decide(check(checked{"A", "clean"}, checked{"B", "clean"}), night3.String())
	assert.Equal(t, state, Close)
	assert.Equal(t, night4.Record, "")
	assert.Assert(t, is.Contains(night4.Report, closedIntro), "reporters' intro is the one keptIntro replaces")
}

// The record of an issue written before entries (one report, no stack
// named) is carried by a check that compared nothing, and replaced by one
// that compared something.
func TestLegacyRecord(t *testing.T) {
	prev := Issue{Record: "- `Res` · `AWS::SQS::Queue`\n"}.String()
	_, kept := Decide(check(checked{"A", "nothing"}), prev)
	_, legacy := kept.Entries()
	assert.Assert(t, is.Contains(legacy, "`Res`"))
	state, replaced := Decide(check(checked{"A", "clean"}), prev)
	assert.Equal(t, state, Close)
	assert.Equal(t, replaced.Record, "")
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

// The title says what the check found, and never "No drift" alone over an
// issue that stays open for drift the check did not compare.
func TestTitle(t *testing.T) {
	_, night1 := Decide(check(checked{"A", "drifted"}, checked{"B", "clean"}), "")
	_, night2 := Decide(check(checked{"C", "drifted"}), night1.String())
	for _, tc := range []struct {
		name     string
		rep      reporters.DriftReport
		previous string
		want     string
	}{
		{"drift found", check(checked{"A", "drifted"}), "", "1 resource drifted"},
		{"everything compared, nothing on record", check(checked{"A", "clean"}), night1.String(), "No drift"},
		{"another stack compared, A's drift kept", check(checked{"B", "clean"}), night1.String(), "No drift in what was compared; last known drift kept for 1 stack"},
		{"two stacks' drift kept", check(checked{"B", "clean"}), night2.String(), "No drift in what was compared; last known drift kept for 2 stacks"},
		{"nothing compared, A's drift kept", check(checked{"A", "nothing"}), night1.String(), "No drift detected, but nothing was compared"},
		{"nothing compared, nothing on record", check(checked{"A", "nothing"}), "", "No drift detected, but nothing was compared"},
		{"a failed check keeps the drift and says it failed", failed, night1.String(), "cdkd drift failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, i := Decide(tc.rep, tc.previous)
			assert.Equal(t, Title(tc.rep, state, i), tc.want)
		})
	}
}
