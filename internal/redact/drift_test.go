package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

func driftFixture() model.Drift {
	return model.Drift{Stacks: []model.StackDrift{{
		Stack: "App", Region: "us-east-1",
		Drifted: []model.DriftedResource{
			{Resource: model.Resource{LogicalID: "PwParam", Type: "AWS::SSM::Parameter"}, Changes: []model.DriftChange{
				{Path: "Value", State: str("***"), AWS: str("live-plaintext")},
			}},
			{Resource: model.Resource{LogicalID: "Fn", Type: "AWS::Lambda::Function"}, Changes: []model.DriftChange{
				{Path: "Environment.Variables.CONN", State: str("postgres://a:b@c"), AWS: model.JSONValue("null")},
			}},
			{Resource: model.Resource{LogicalID: "NamedQueue", Type: "AWS::SQS::Queue"}, Changes: []model.DriftChange{
				{Path: "VisibilityTimeout", State: model.JSONValue("30"), AWS: model.JSONValue("60")},
				{Path: "RedrivePolicy.deadLetterTargetArn", State: str("arn:aws:sqs:us-east-1:1:tenant-queue-secret")},
			}},
			{Resource: model.Resource{LogicalID: "SecureParam", Type: "AWS::SSM::Parameter"}, Changes: []model.DriftChange{
				{Path: "Value", State: str("{{resolve:ssm-secure:/secure/p}}"), AWS: str("ab1")},
			}},
		},
		Clean:       []model.Resource{{LogicalID: "tenant-queue-secret", Type: "AWS::SQS::Queue"}},
		NotCompared: []model.NotCompared{{Resource: model.Resource{LogicalID: "X", Type: "Custom::tenant-queue-secret"}, Reason: "read tenant-queue-secret: denied"}},
	}}}
}

func TestRedactDrift(t *testing.T) {
	asm := loadAssembly(t)
	d := driftFixture()
	rep := Drift(&d, Input{Set: redactSet(), Positions: asm})
	assert.Assert(t, is.Len(rep.Unplaced, 0))
	s := d.Stacks[0]
	pw := s.Drifted[0].Changes[0]
	assert.Equal(t, pw.Secret, model.SecretNoEcho)
	assert.Equal(t, pw.State.Text(), "***")
	assert.Equal(t, pw.AWS.Text(), "***", "the live value is as secret as the stored one")
	conn := s.Drifted[1].Changes[0]
	assert.Equal(t, conn.State.Text(), "***")
	assert.Assert(t, conn.AWS.IsNull(), "null stays visible")
	queue := s.Drifted[2].Changes
	assert.Equal(t, queue[0].Secret, model.SecretNone)
	assert.Equal(t, queue[0].AWS.Text(), "60")
	assert.Equal(t, queue[1].State.Text(), "arn:aws:sqs:us-east-1:1:***")
	assert.Assert(t, !queue[1].AWS.Present(), "absent stays absent")
	secure := s.Drifted[3].Changes[0]
	assert.Equal(t, secure.Secret, model.SecretReference)
	assert.Equal(t, secure.AWS.Text(), "***", "a short live value is hidden by position")
	assert.Equal(t, s.Clean[0].LogicalID, "***")
	assert.Equal(t, s.NotCompared[0].Type, "Custom::***")
	assert.Equal(t, s.NotCompared[0].Reason, "read ***: denied")
}

// A side cdkd stored as "***" (a NoEcho value, state schema 11) makes
// the position secret even when no assembly knows it: the other side is the
// live secret. Both sides are hidden in the model, so the report JSON hides
// it as the Markdown does.
func TestRedactDriftStoredHidden(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "App", Region: "us-east-1", Drifted: []model.DriftedResource{{
		Resource: model.Resource{LogicalID: "Plain", Type: "AWS::SNS::Topic"},
		Changes: []model.DriftChange{
			{Path: "Value", State: str(model.Hidden), AWS: str("live-token-value")},
			{Path: "Other", State: str("live-other-value"), AWS: str(model.Hidden)},
			{Path: "Gone", State: str(model.Hidden)},
			{Path: "Plain", State: str("v1"), AWS: str("v2")},
		},
	}}}}}
	for _, in := range []Input{{Set: secrets.NewSet(), Placed: true}, {Set: secrets.NewSet(), Positions: loadAssembly(t)}} {
		c := d
		c.Stacks = []model.StackDrift{d.Stacks[0]}
		c.Stacks[0].Drifted = []model.DriftedResource{d.Stacks[0].Drifted[0]}
		c.Stacks[0].Drifted[0].Changes = slices.Clone(d.Stacks[0].Drifted[0].Changes)
		Drift(&c, in)
		got := c.Stacks[0].Drifted[0].Changes
		for _, ch := range got[:3] {
			assert.Equal(t, ch.Secret, model.SecretNoEcho, ch.Path)
			assert.Equal(t, ch.State.Text(), model.Hidden, ch.Path)
		}
		assert.Equal(t, got[0].AWS.Text(), model.Hidden)
		assert.Equal(t, got[1].AWS.Text(), model.Hidden)
		assert.Assert(t, !got[2].AWS.Present(), "absent stays absent")
		assert.Equal(t, got[3].Secret, model.SecretNone)
		assert.Equal(t, got[3].AWS.Text(), "v2")
		b, err := json.Marshal(c)
		assert.NilError(t, err)
		assert.Assert(t, !strings.Contains(string(b), "live-"), string(b))
	}
}

// A drifted value whose secret-ness the assembly cannot decide is hidden
// and marked; the state record's "***" is a second source of NoEcho.
func TestPlaceDrift(t *testing.T) {
	asm := loadAssembly(t)
	stored, err := awsx.DecodeState([]byte(`{"version":11,"resources":{"PlainParam":{"properties":{"Value":"***"}},` +
		`"Plain":{"properties":{"Description":"kept","Tags":"***","Env":{"Variables":{"TOKEN":"***","N":1}}}}}}`))
	assert.NilError(t, err)
	state := func(stack, region string) *awsx.State {
		if stack == "App" {
			return stored
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
			got := Drift(&c, Input{Set: secrets.NewSet(), Positions: tc.pos, State: state})
			assert.DeepEqual(t, got.Unplaced, tc.want)
			var kinds []model.SecretKind
			for _, s := range c.Stacks {
				for _, r := range s.Drifted {
					kinds = append(kinds, r.Changes[0].Secret)
				}
			}
			assert.DeepEqual(t, kinds, tc.kinds)
			for _, s := range c.Stacks {
				for _, r := range s.Drifted {
					ch := r.Changes[0]
					if ch.Secret != model.SecretNone {
						assert.Equal(t, ch.State.Text(), model.Hidden, r.LogicalID)
						assert.Equal(t, ch.AWS.Text(), model.Hidden, r.LogicalID)
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

// A value hidden by its position is added to the set, so it is hidden
// elsewhere too; a value of an unknown position, a "***", a reference, or
// one already hidden by a known secret is not.
func TestRedactLearnsValuesHiddenByPosition(t *testing.T) {
	asm := loadAssembly(t)
	set := secrets.NewSet()
	set.Add("known-secret-1", "test")
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "App", Region: "us-east-1", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "PwParam"}, Changes: []model.DriftChange{{Path: "Value", State: str(model.Hidden), AWS: str("live-noecho-5x")}}},
		{Resource: model.Resource{LogicalID: "Other"}, Changes: []model.DriftChange{{Path: "Value", State: str("stored-x"), AWS: str(model.Hidden)}}},
		{Resource: model.Resource{LogicalID: "Gone"}, Changes: []model.DriftChange{{Path: "Value", State: str("unplaced-old"), AWS: str("unplaced-new"), Secret: model.SecretUnknown}}},
		{Resource: model.Resource{LogicalID: "PwParam"}, Changes: []model.DriftChange{{Path: "Value", State: str("x-known-secret-1-y"), AWS: str("{{resolve:ssm:/p}}")}}},
		{Resource: model.Resource{LogicalID: "TinyParam"}, Changes: []model.DriftChange{{Path: "Value", State: str("ab"), AWS: str("cd")}}},
	}}}}
	Drift(&d, Input{Set: set, Positions: asm})
	for _, v := range []string{"live-noecho-5x", "stored-x"} {
		assert.Equal(t, set.Redact("log: "+v), "log: ***", v)
	}
	// known-secret-1, the two above, and the short "ab" and "cd": nothing of
	// the unknown position, the covered value or the reference.
	assert.Equal(t, set.Len(), 5, strings.Join(sources(set), "\n"))
	assert.Assert(t, is.Contains(sources(set), "value at the NoEcho position App/TinyParam.Value"))
}

func sources(set *secrets.Set) []string {
	var out []string
	for _, r := range set.Registrations() {
		out = append(out, r.Sources...)
	}
	return out
}

// Why a hidden position drifts is decided from the assembly before the
// names are redacted; a stack it does not hold is undecided, an unhidden
// change has no case, and a result placed already keeps its cases. cdkd's
// groups this version does not know are redacted by name.
func TestDriftHiddenCasesAndGroups(t *testing.T) {
	change := func(id, path string, state, aws model.Value) model.DriftedResource {
		return model.DriftedResource{Resource: model.Resource{LogicalID: id}, Changes: []model.DriftChange{{Path: path, State: state, AWS: aws}}}
	}
	d := model.Drift{Stacks: []model.StackDrift{
		{Stack: "App", Region: "us-east-1", Drifted: []model.DriftedResource{
			change("PwParam", "Value", str("stored-pw"), str("live-pw")),
			change("SecureParam", "Value", str("{{resolve:ssm-secure:/secure/p}}"), str("live-secure")),
			change("Plain", "DisplayName", str("a"), str("b")),
		}, Groups: []model.DriftGroup{{Name: "masked tenant-queue-secret", Entries: []model.GroupEntry{
			{Resource: model.Resource{LogicalID: "tenant-queue-secret", Type: "AWS::SQS::Queue"}, Paths: []string{"Tags.tenant-queue-secret"}},
		}}}},
		{Stack: "Elsewhere", Region: "us-east-1", Drifted: []model.DriftedResource{change("X", "Value", str(model.Hidden), str("live-x"))}},
	}}
	Drift(&d, Input{Set: redactSet(), Positions: loadAssembly(t)})
	var cases []model.HiddenCase
	for _, s := range d.Stacks {
		for _, r := range s.Drifted {
			cases = append(cases, r.Changes[0].HiddenCase)
		}
	}
	assert.DeepEqual(t, cases, []model.HiddenCase{model.HiddenNoEchoParameter, model.HiddenSecretReference, model.HiddenNone, model.HiddenUndecided})
	g := d.Stacks[0].Groups[0]
	assert.Equal(t, g.Name, "masked ***")
	assert.DeepEqual(t, g.Entries[0], model.GroupEntry{Resource: model.Resource{LogicalID: "***", Type: "AWS::SQS::Queue"}, Paths: []string{"Tags.***"}})

	d.Stacks[0].Drifted[0].Changes[0].HiddenCase = model.HiddenByDesign // as a shard's report says
	Drift(&d, Input{Set: redactSet(), Placed: true})
	assert.Equal(t, d.Stacks[0].Drifted[0].Changes[0].HiddenCase, model.HiddenByDesign)
}

// cdkd hides the live side of a rotated reference (sample 78: stateValue
// the reference, awsValue "***"): the position is a secret reference, not
// NoEcho, whether or not an assembly places it.
func TestRedactDriftHiddenReferenceIsNotNoEcho(t *testing.T) {
	ref := "{{resolve:secretsmanager:my-secret:SecretString:password}}"
	for _, in := range []Input{{Set: secrets.NewSet(), Placed: true}, {Set: secrets.NewSet()}} {
		d := model.Drift{Stacks: []model.StackDrift{{Stack: "StackA", Region: "us-east-1", Drifted: []model.DriftedResource{{
			Resource: model.Resource{LogicalID: "SecretNamedQueue", Type: "AWS::SQS::Queue"},
			Changes:  []model.DriftChange{{Path: "QueueName", State: str(ref), AWS: str(model.Hidden)}},
		}}}}}
		Drift(&d, in)
		assert.Equal(t, d.Stacks[0].Drifted[0].Changes[0].Secret, model.SecretReference, "placed %v", in.Placed)
	}
}
