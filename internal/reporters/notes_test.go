package reporters

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// hugeNotes are notes as the app builds them from a large input: one
// naming every resource whose values are hidden (long names), one long
// sentence without a list, and many more notes than a report shows.
func hugeNotes(resources, notes int) []string {
	names := make([]string, resources)
	for i := range names {
		names[i] = fmt.Sprintf("%s/CreatedResourceWithAVeryLongLogicalIdentifier%05dABCDEF12", strings.Repeat("NestedStack", 8), i)
	}
	out := []string{
		"Values hidden at " + strings.Join(names, ", ") + ": the resource is not in the template, so whether they are secret is unknown — pass the assembly that deployed them as app to see them.",
		"A note without a list: " + strings.Repeat("every word of it matters ", 4000),
	}
	for i := len(out); i < notes; i++ {
		out = append(out, fmt.Sprintf("Note %d: %s", i, strings.Repeat("x", 3000)))
	}
	return out
}

var moreNamesRe = regexp.MustCompile(`and (\d+) more \(the full list is in the report JSON\)`)

// TestHugeNotesStayWithinEveryBudget: notes grow with the input (520
// created resources missing from the template made a 66,777-character
// comment). Every report kind, on every channel, shows them shortened
// ahead of its ladder: within the limit, the rest of the report intact
// (not cut short by the notes), and saying how much it left out.
func TestHugeNotesStayWithinEveryBudget(t *testing.T) {
	const resources, notes = 3000, 400
	kinds := map[string]func(Budget) string{
		"diff": func(b Budget) string {
			r := report(sampleDiff(t))
			r.Notes = hugeNotes(resources, notes)
			return DiffMarkdown(r, b)
		},
		"drift": func(b Budget) string {
			r := driftReport(noEchoDrift(t), 1)
			r.Notes = hugeNotes(resources, notes)
			return DriftMarkdown(r, b)
		},
		"drift issue": func(b Budget) string {
			r := driftReport(noEchoDrift(t), 1)
			r.Notes = hugeNotes(resources, notes)
			return DriftIssueMarkdown(r, b)
		},
		"deploy": func(b Budget) string {
			r := deployBase(OutcomeDeployed)
			r.Stacks = deployedStacks()
			r.Warnings = hugeNotes(resources, notes)
			return DeployMarkdown(r, b)
		},
	}
	// Each channel's budget, and GitHub's limit for it.
	channels := map[string]struct{ budget, limit Budget }{
		"comment":     {CommentBudget, Budget{MaxChars: 65536}},
		"check run":   {CheckRunBudget, Budget{MaxBytes: 65535}},
		"job summary": {SummaryBudget, Budget{MaxBytes: 1<<20 - 1}},
		"unlimited":   {Unlimited, Unlimited},
	}
	for kind, render := range kinds {
		for channel, c := range channels {
			t.Run(kind+"/"+channel, func(t *testing.T) {
				got := render(c.budget)
				limit := c.limit
				assert.Check(t, limit.Fits(got), "%d bytes, %d chars", len(got), utf8.RuneCountInString(got))
				assert.Check(t, !strings.Contains(got, "Report shortened"), "the notes crowded out the report:\n%.3000s", got)
				if kind == "deploy" {
					assert.Check(t, strings.Contains(got, fmt.Sprintf("… and %d more", notes-20)), "the warnings left out are not counted")
					return
				}
				assert.Check(t, strings.Contains(got, fmt.Sprintf("… and %d more notes; the full list is in the report JSON.", notes-notesMax)), "the notes left out are not counted")
				m := moreNamesRe.FindStringSubmatch(got)
				if !assert.Check(t, m != nil, "the resources left out are not counted") {
					return
				}
				more, _ := strconv.Atoi(m[1])
				shown := strings.Count(got, "CreatedResourceWithAVeryLongLogicalIdentifier")
				assert.Check(t, shown > 0 && shown+more == resources, "%d names shown and %d more, of %d", shown, more, resources)
				assert.Check(t, strings.Contains(got, "more characters); the whole note is in the report JSON."), "the long note does not say it was cut")
			})
		}
	}
}

// TestShortNotes: shortening is idempotent (the deploy gate renders a
// comment again from the notes its header carries, already shortened),
// and short notes pass unchanged.
func TestShortNotes(t *testing.T) {
	for name, notes := range map[string][]string{
		"short": {"Values hidden: no cloud assembly.", "Deploys StackA only."},
		"huge":  hugeNotes(520, 30),
		"none":  nil,
	} {
		t.Run(name, func(t *testing.T) {
			once := ShortNotes(notes)
			assert.DeepEqual(t, ShortNotes(once), once)
			size := 0
			for _, n := range once {
				size += utf8.RuneCountInString(n)
			}
			assert.Check(t, size <= (notesMax+1)*noteMax, "%d characters of notes", size)
			if name == "short" {
				assert.DeepEqual(t, once, notes)
			}
		})
	}
}

// TestDriftResolutionHugeListsWithinBudgets: the other lists at a drift
// report's head, the cause note and what is still drifted after a revert
// (each resource naming its paths), shorten too and say what they leave out.
func TestDriftResolutionHugeListsWithinBudgets(t *testing.T) {
	after := decodeDrift(t, "drift_oob1.json")
	template := after.Stacks[0].Drifted[0]
	after.Stacks[0].Drifted = nil
	for i := range 300 {
		d := template
		d.LogicalID = fmt.Sprintf("StillDriftedResourceWithALongLogicalId%04d", i)
		d.Changes = nil
		for j := range 400 {
			d.Changes = append(d.Changes, model.DriftChange{Path: fmt.Sprintf("Properties.Some.Deeply.Nested.Path%04d", j), State: model.StringValue("a"), AWS: model.StringValue("b")})
		}
		after.Stacks[0].Drifted = append(after.Stacks[0].Drifted, d)
	}
	verdict := model.ClassifyRun(&after, 1, cdkd.ReadsCurrentState)
	r := driftReport(decodeDrift(t, "drift_oob1.json"), 1)
	r.CauseNote = "The state record could not be read: " + strings.Repeat("because of this and that, ", 5000)
	r.Resolution = &ResolutionReport{Mode: "revert", After: &verdict, AfterDrift: after}
	for _, b := range []Budget{CommentBudget, CheckRunBudget, SummaryBudget, Unlimited} {
		got := DriftMarkdown(r, b)
		assert.Check(t, b.Fits(got), "%+v: %d bytes", b, len(got))
		assert.Check(t, strings.Contains(got, "more characters); the whole note is in the report JSON."), "%+v: the cause note is not shortened", b)
		assert.Check(t, strings.Contains(got, "Path0004, and 395 more)"), "%+v: the paths left out are not counted", b)
		assert.Check(t, !strings.Contains(got, "Path0005"), "%+v: more paths than the cap", b)
	}
}

// A note's `code spans` are code from layout 3 on: GitHub shows "&#96;"
// as a literal backtick, so layouts 1 and 2 (which keep their bytes for
// the reviews written in them) showed `{{resolve:…}}` with its backticks.
func TestNotesRenderTheirCodeSpans(t *testing.T) {
	note := "The value of `{{resolve:ssm:/db/pw}}` is part of the name of `Queue` (QueueName in StackA): see *this* and `unpaired"
	for _, tc := range []struct {
		layout int
		want   string
	}{
		{Layout2, "> ℹ️ The value of &#96;{{resolve:ssm:/db/pw}}&#96; is part of the name of &#96;Queue&#96; (QueueName in StackA): see &#42;this&#42; and &#96;unpaired\n"},
		{Layout3, "> ℹ️ The value of <code>{{resolve:ssm:/db/pw}}</code> is part of the name of <code>Queue</code> (QueueName in StackA): see &#42;this&#42; and &#96;unpaired\n"},
	} {
		got := DiffMarkdown(DiffReport{Notes: []string{note}, Layout: tc.layout}, Unlimited)
		assert.Assert(t, strings.Contains(got, tc.want), "layout %d:\n%s", tc.layout, got)
	}
	for in, want := range map[string]string{
		"`a` b":       "<code>a</code> b",
		"x `a`":       "x <code>a</code>",
		"x``y":        "x&#96;&#96;y",
		"`<b>` @x ` ": "<code>&lt;b&gt;</code> <code>@x</code> &#96;",
		"no code":     "no code",
		"`a` `b`":     "<code>a</code> <code>b</code>",
	} {
		assert.Equal(t, NoteText(in), want, "%q", in)
	}
}
