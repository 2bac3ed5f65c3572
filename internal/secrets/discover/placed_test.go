package discover

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// A drifted value whose secret-ness the assembly cannot decide is hidden
// and marked; the state record's mask is a second source of NoEcho.
func TestPlaceDrift(t *testing.T) {
	asm := loadAssembly(t)
	masked, err := awsx.DecodeState([]byte(`{"version":11,"resources":{"PlainParam":{"properties":{"Value":"***"}},` +
		`"Plain":{"properties":{"Description":"kept","Tags":"***","Env":{"Variables":{"TOKEN":"***","N":1}}}}}}`))
	assert.NilError(t, err)
	state := func(stack, region string) *awsx.State {
		if stack == "App" {
			return masked
		}
		return nil
	}
	change := func(id, path, state, aws string) model.DriftedResource {
		return model.DriftedResource{Resource: model.Resource{LogicalID: id, Type: "AWS::SSM::Parameter"},
			Changes: []model.DriftChange{{Path: path, State: str(state), AWS: str(aws)}}}
	}
	d := model.Drift{Stacks: []model.StackDrift{
		{Stack: "App", Region: "us-east-1", Drifted: []model.DriftedResource{
			change("Gone", "Value", "gone-old-1", "gone-live-2"),
			change("PlainParam", "Value", "plain-old-3", "plain-live-4"),
			change("Plain", "Description", "desc-a", "desc-b"),
			change("Plain", "Tags.0.Value", "tag-a", "tag-b"),
			change("Plain", "Env.Variables.N", "1", "2"),
		}},
		{Stack: "Missing", Region: "us-east-1", Drifted: []model.DriftedResource{change("X", "Value", "m-old", "m-live")}},
	}}
	tests := []struct {
		name  string
		pos   Positions
		kinds []model.SecretKind // per change, stacks in order
		want  []Unplaced
	}{
		{
			name:  "assembly",
			pos:   asm,
			kinds: []model.SecretKind{model.SecretUnknown, model.SecretNoEcho, model.SecretNone, model.SecretNoEcho, model.SecretNone, model.SecretUnknown},
			want: []Unplaced{{Stack: "App", LogicalID: "Gone", Why: WhyNotInTemplate},
				{Stack: "Missing", Why: WhyStackNotAssembly}},
		},
		{
			name:  "no assembly",
			kinds: []model.SecretKind{model.SecretUnknown, model.SecretNoEcho, model.SecretUnknown, model.SecretNoEcho, model.SecretUnknown, model.SecretUnknown},
			want:  []Unplaced{{Stack: "App", Why: WhyNoAssembly}, {Stack: "Missing", Why: WhyNoAssembly}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cloneDrift(d)
			got := PlaceDrift(&c, tc.pos, state)
			assert.DeepEqual(t, got, tc.want)
			var kinds []model.SecretKind
			for _, s := range c.Stacks {
				for _, r := range s.Drifted {
					kinds = append(kinds, r.Changes[0].Secret)
				}
			}
			assert.DeepEqual(t, kinds, tc.kinds)
			RedactDrift(&c, tc.pos, secrets.NewSet())
			for _, s := range c.Stacks {
				for _, r := range s.Drifted {
					ch := r.Changes[0]
					if ch.Secret != model.SecretNone {
						assert.Equal(t, ch.State.Text(), model.Masked, r.LogicalID)
						assert.Equal(t, ch.AWS.Text(), model.Masked, r.LogicalID)
					}
				}
			}
		})
	}
}

func cloneDrift(d model.Drift) model.Drift {
	out := model.Drift{}
	for _, s := range d.Stacks {
		c := s
		c.Drifted = nil
		for _, r := range s.Drifted {
			r.Changes = append([]model.DriftChange(nil), r.Changes...)
			c.Drifted = append(c.Drifted, r)
		}
		out.Stacks = append(out.Stacks, c)
	}
	return out
}

// A diff without an assembly hides every changed value; with one, a
// resource the template lacks (being deleted) is hidden, the rest placed.
func TestPlaceDiff(t *testing.T) {
	diff := func() model.Diff {
		return model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Changes: []model.ResourceChange{
			{LogicalID: "Plain", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Description", Old: str("a-old"), New: str("b-new")}}},
			{LogicalID: "Removed", ChangeType: model.ChangeDelete, PropertyChanges: []model.PropertyChange{{Path: "Value", Old: str("removed-old")}}},
		}, OutputChanges: []model.OutputChange{{Name: "Out", New: str("out-new")}}}}}
	}
	d := diff()
	assert.DeepEqual(t, PlaceDiff(&d, loadAssembly(t)), []Unplaced{{Stack: "App", LogicalID: "Removed", Why: WhyNotInTemplate}})
	assert.Equal(t, d.Stacks[0].Changes[0].PropertyChanges[0].Secret, model.SecretNone)
	assert.Equal(t, d.Stacks[0].Changes[1].PropertyChanges[0].Secret, model.SecretUnknown)
	assert.Equal(t, d.Stacks[0].OutputChanges[0].Secret, model.SecretNone)

	d = diff()
	assert.DeepEqual(t, PlaceDiff(&d, nil), []Unplaced{{Stack: "App", Why: WhyNoAssembly}})
	RedactDiff(&d, nil, secrets.NewSet())
	assert.Equal(t, d.Stacks[0].Changes[0].PropertyChanges[0].New.Text(), model.Masked)
	assert.Equal(t, d.Stacks[0].OutputChanges[0].New.Text(), model.Masked)
}

// A value hidden by its position is added to the set, so it is hidden
// elsewhere too; a value of an unknown position, a mask, a reference, or
// one already hidden by a known secret is not.
func TestRedactLearnsValuesHiddenByPosition(t *testing.T) {
	asm := loadAssembly(t)
	set := secrets.NewSet()
	set.Add("known-secret-1", "test")
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "App", Region: "us-east-1", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "PwParam"}, Changes: []model.DriftChange{{Path: "Value", State: str(model.Masked), AWS: str("live-noecho-5x")}}},
		{Resource: model.Resource{LogicalID: "Other"}, Changes: []model.DriftChange{{Path: "Value", State: str("stored-x"), AWS: str(model.Masked)}}},
		{Resource: model.Resource{LogicalID: "Gone"}, Changes: []model.DriftChange{{Path: "Value", State: str("unplaced-old"), AWS: str("unplaced-new"), Secret: model.SecretUnknown}}},
		{Resource: model.Resource{LogicalID: "PwParam"}, Changes: []model.DriftChange{{Path: "Value", State: str("x-known-secret-1-y"), AWS: str("{{resolve:ssm:/p}}")}}},
		{Resource: model.Resource{LogicalID: "TinyParam"}, Changes: []model.DriftChange{{Path: "Value", State: str("ab"), AWS: str("cd")}}},
	}}}}
	RedactDrift(&d, asm, set)
	for _, v := range []string{"live-noecho-5x", "stored-x"} {
		assert.Equal(t, set.Redact("log: "+v), "log: ***", v)
	}
	// known-secret-1, the two above, and the short "ab" and "cd": nothing of
	// the unknown position, the covered value or the reference.
	assert.Equal(t, set.Len(), 5, strings.Join(sources(set), "\n"))
	assert.Assert(t, is.Contains(strings.Join(ShortWarnings(set), "\n"), "value at the NoEcho position App/TinyParam.Value) is shorter than 4 characters"))
}

func sources(set *secrets.Set) []string {
	var out []string
	for _, r := range set.Registrations() {
		out = append(out, r.Sources...)
	}
	return out
}
