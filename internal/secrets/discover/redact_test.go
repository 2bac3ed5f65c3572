package discover

import (
	"encoding/json"
	"html"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

func str(s string) model.Value { return model.StringValue(s) }

func redactSet() *secrets.Set {
	set := secrets.NewSet()
	set.Add("tenant-queue-secret", "test")
	set.Add("ab1", "short")
	set.Add(`": "val`, "spans JSON syntax")
	set.Add(`say "hi" \ 'q'`, "quotes")
	return set
}

func TestRedactDiffPositions(t *testing.T) {
	tests := []struct {
		name       string
		logicalID  string
		pc         model.PropertyChange
		wantOld    model.Value
		wantNew    model.Value
		wantSecret model.SecretKind
	}{
		{
			name:      "NoEcho position: both sides masked whatever they are",
			logicalID: "PwParam",
			pc:        model.PropertyChange{Path: "Value", Old: str("hunter2"), New: str("ab")},
			wantOld:   str("***"), wantNew: str("***"), wantSecret: model.SecretNoEcho,
		},
		{
			name:      "a number at a NoEcho position",
			logicalID: "TinyParam",
			pc:        model.PropertyChange{Path: "Value", Old: model.JSONValue("42"), New: model.JSONValue(`{"a":1}`)},
			wantOld:   str("***"), wantNew: str("***"), wantSecret: model.SecretNoEcho,
		},
		{
			name:      "absent stays absent, null stays null",
			logicalID: "PwParam",
			pc:        model.PropertyChange{Path: "Value", New: model.JSONValue("null")},
			wantOld:   model.Value{}, wantNew: model.JSONValue("null"), wantSecret: model.SecretNoEcho,
		},
		{
			name:      "added secret property: old absent, new masked",
			logicalID: "PwParam",
			pc:        model.PropertyChange{Path: "Value", New: str("x")},
			wantOld:   model.Value{}, wantNew: str("***"), wantSecret: model.SecretNoEcho,
		},
		{
			name:      "a parent object of a position",
			logicalID: "Fn",
			pc:        model.PropertyChange{Path: "Environment", Old: model.JSONValue(`{"Variables":{"CONN":"postgres://app:pw@db"}}`), New: model.JSONValue(`{}`)},
			wantOld:   str("***"), wantNew: str("***"), wantSecret: model.SecretNoEcho,
		},
		{
			name:      "a reference position",
			logicalID: "SecureParam",
			pc:        model.PropertyChange{Path: "Value", Old: str("{{resolve:ssm-secure:/secure/p}}"), New: str("something")},
			wantOld:   str("***"), wantNew: str("***"), wantSecret: model.SecretReference,
		},
		{
			name:      "plain ssm String: not a secret position",
			logicalID: "PlainParam",
			pc:        model.PropertyChange{Path: "Value", Old: str("{{resolve:ssm:/plain/p}}"), New: str("{{resolve:ssm:/plain/q}}")},
			wantOld:   str("{{resolve:ssm:/plain/p}}"), wantNew: str("{{resolve:ssm:/plain/q}}"),
		},
		{
			name:      "a secret by value in a non-secret property (an ARN naming the queue)",
			logicalID: "Plain",
			pc:        model.PropertyChange{Path: "Policy.Resource", Old: str("arn:aws:sqs:us-east-1:1:tenant-queue-secret"), New: model.JSONValue(`["https://sqs/1/tenant-queue-secret"]`)},
			wantOld:   str("arn:aws:sqs:us-east-1:1:***"), wantNew: model.JSONValue(`["https://sqs/1/***"]`),
		},
		{
			name:      "a short secret is not matched by value",
			logicalID: "Plain",
			pc:        model.PropertyChange{Path: "DisplayName", Old: str("ab1-topic"), New: str("ab1")},
			wantOld:   str("ab1-topic"), wantNew: str("ab1"),
		},
		{
			name:      "redaction that breaks the JSON masks the whole value",
			logicalID: "Plain",
			pc:        model.PropertyChange{Path: "Tags", New: model.JSONValue(`{"key": "value"}`)},
			wantNew:   str("***"),
		},
		{
			name:      "a secret XML-escaped inside a JSON string",
			logicalID: "Plain",
			pc:        model.PropertyChange{Path: "Xml", New: str(`<c q="` + html.EscapeString(`say "hi" \ 'q'`) + `"/>`)},
			wantNew:   model.JSONValue(`"<c q=\"***\"/>"`),
		},
		{
			name:      "secrets in keys",
			logicalID: "Plain",
			pc:        model.PropertyChange{Path: "Map", Old: model.JSONValue(`{"tenant-queue-secret":1,"b":2}`), New: model.JSONValue(`{"tenant-queue-secret":1,"***":2}`)},
			wantOld:   model.JSONValue(`{"***":1,"b":2}`), wantNew: str("***"),
		},
		{
			name:      "a kind cdkd already reported is kept",
			logicalID: "Plain",
			pc:        model.PropertyChange{Path: "DisplayName", Old: str("x"), New: str("y"), Secret: model.SecretReference},
			wantOld:   str("***"), wantNew: str("***"), wantSecret: model.SecretReference,
		},
	}
	asm := loadAssembly(t)
	Discover(t.Context(), secrets.NewSet(), baseInput(asm), Deps{Resolver: newResolver()})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Changes: []model.ResourceChange{
				{LogicalID: tc.logicalID, ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{tc.pc}},
			}}}}
			RedactDiff(&d, asm, redactSet())
			got := d.Stacks[0].Changes[0].PropertyChanges[0]
			assert.Equal(t, string(got.Old.Raw), string(tc.wantOld.Raw))
			assert.Equal(t, got.Old.Present(), tc.wantOld.Present())
			assert.Equal(t, string(got.New.Raw), string(tc.wantNew.Raw))
			assert.Equal(t, got.Secret, tc.wantSecret)
		})
	}
}

func TestRedactDiffOutputsAndNames(t *testing.T) {
	asm := loadAssembly(t)
	set := redactSet()
	d := model.Diff{Stacks: []model.StackDiff{{
		Stack: "App", Region: "us-east-1",
		OutputChanges: []model.OutputChange{
			{Name: "PwOut", ChangeType: model.OutputModify, Old: str("old"), New: str("new")},
			{Name: "StageOut", ChangeType: model.OutputModify, Old: str("https://sqs/1/tenant-queue-secret"), New: str("prod")},
			{Name: "Gone", ChangeType: model.OutputRemove, OldValueRedacted: true},
		},
		Changes: []model.ResourceChange{{LogicalID: "Queue", ChangeType: model.ChangeCreate, CCAPI: []string{"tenant-queue-secret"}}},
	}}}
	RedactDiff(&d, asm, set)
	outs := d.Stacks[0].OutputChanges
	assert.Equal(t, outs[0].Secret, model.SecretNoEcho)
	assert.Equal(t, outs[0].Old.Text(), "***")
	assert.Equal(t, outs[0].New.Text(), "***")
	assert.Equal(t, outs[1].Secret, model.SecretNone)
	assert.Equal(t, outs[1].Old.Text(), "https://sqs/1/***")
	assert.Equal(t, outs[1].New.Text(), "prod")
	assert.Assert(t, !outs[2].Old.Present() && !outs[2].New.Present())
	assert.DeepEqual(t, d.Stacks[0].Changes[0].CCAPI, []string{"***"})
}

func TestRedactDiffNoEchoReaders(t *testing.T) {
	asm := loadAssembly(t)
	d := model.Diff{Stacks: []model.StackDiff{
		{
			Stack: "App", Region: "us-east-1",
			Changes: []model.ResourceChange{
				{LogicalID: "PwParam", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Description", New: str("x")}}},
				{LogicalID: "Plain", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "DisplayName", Old: str("a"), New: str("b")}}},
			},
			// What the seeds' cdkd reports itself is kept.
			NoEchoReaders: []string{"FromCdkd"},
			Children:      []model.StackDiff{{Stack: "ChildStack", Region: "us-east-1"}},
		},
		{Stack: "Other", Region: "us-east-1"},
		{Stack: "NotInAssembly", Region: "us-east-1"},
	}}
	RedactDiff(&d, asm, redactSet())
	// PwParam changed: it is a change, not a note.
	assert.DeepEqual(t, d.Stacks[0].NoEchoReaders, []string{"ChildStack", "Fn", "FromCdkd", "NamedQueue", "TinyParam"})
	// A nested stack is found by parent~child.
	assert.DeepEqual(t, d.Stacks[0].Children[0].NoEchoReaders, []string{"ChildParam"})
	assert.DeepEqual(t, d.Stacks[1].NoEchoReaders, []string{"OtherParam"})
	assert.Assert(t, is.Nil(d.Stacks[2].NoEchoReaders))
	// A note is never a change.
	other := model.Diff{Stacks: d.Stacks[1:]}
	assert.Assert(t, !other.HasChanges())
	assert.Equal(t, other.Digest(), model.Diff{Stacks: []model.StackDiff{{Stack: "Other", Region: "us-east-1"}, {Stack: "NotInAssembly", Region: "us-east-1"}}}.Digest())
}

func TestRedactIsIdempotent(t *testing.T) {
	asm := loadAssembly(t)
	set := redactSet()
	d := model.Diff{Stacks: []model.StackDiff{{
		Stack: "App", Region: "us-east-1",
		Changes: []model.ResourceChange{
			{LogicalID: "PwParam", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Value", Old: str("a"), New: str("b")}}},
			{LogicalID: "Plain", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "DisplayName", Old: str("q-tenant-queue-secret"), New: model.JSONValue(`{"key": "value"}`)}}},
		},
		OutputChanges: []model.OutputChange{{Name: "PwOut", ChangeType: model.OutputAdd, New: str("v")}},
	}}}
	RedactDiff(&d, asm, set)
	once, err := json.Marshal(d)
	assert.NilError(t, err)
	RedactDiff(&d, asm, set)
	twice, err := json.Marshal(d)
	assert.NilError(t, err)
	assert.Equal(t, string(twice), string(once))

	dr := driftFixture()
	RedactDrift(&dr, asm, set)
	once, err = json.Marshal(dr)
	assert.NilError(t, err)
	RedactDrift(&dr, asm, set)
	twice, err = json.Marshal(dr)
	assert.NilError(t, err)
	assert.Equal(t, string(twice), string(once))
}

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
		NotCompared: []model.NotCompared{{Resource: model.Resource{LogicalID: "X", Type: "Custom::tenant-queue-secret"}}},
	}}}
}

func TestRedactDrift(t *testing.T) {
	asm := loadAssembly(t)
	Discover(t.Context(), secrets.NewSet(), baseInput(asm), Deps{Resolver: newResolver()})
	d := driftFixture()
	RedactDrift(&d, asm, redactSet())
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
}

// Without positions (no assembly) only values are redacted.
func TestRedactWithoutPositions(t *testing.T) {
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Changes: []model.ResourceChange{
		{LogicalID: "PwParam", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Value", Old: str("x-tenant-queue-secret"), New: str("visible")}}},
	}}}}
	RedactDiff(&d, nil, redactSet())
	pc := d.Stacks[0].Changes[0].PropertyChanges[0]
	assert.Equal(t, pc.Old.Text(), "x-***")
	assert.Equal(t, pc.New.Text(), "visible")
	assert.Assert(t, !strings.Contains(string(pc.Old.Raw), "tenant"))
}

// A side cdkd stored as the mask (a NoEcho value, state schema 11) makes
// the position secret even when no assembly knows it: the other side is the
// live secret. Both sides are masked in the model, so the report JSON hides
// it as the Markdown does.
func TestRedactDriftStoredMask(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "App", Region: "us-east-1", Drifted: []model.DriftedResource{{
		Resource: model.Resource{LogicalID: "TokenParam", Type: "AWS::SSM::Parameter"},
		Changes: []model.DriftChange{
			{Path: "Value", State: str(model.Masked), AWS: str("live-token-value")},
			{Path: "Other", State: str("live-other-value"), AWS: str(model.Masked)},
			{Path: "Gone", State: str(model.Masked)},
			{Path: "Plain", State: str("v1"), AWS: str("v2")},
		},
	}}}}}
	for _, pos := range []Positions{nil, loadAssembly(t)} {
		c := d
		c.Stacks = []model.StackDrift{d.Stacks[0]}
		c.Stacks[0].Drifted = []model.DriftedResource{d.Stacks[0].Drifted[0]}
		c.Stacks[0].Drifted[0].Changes = slices.Clone(d.Stacks[0].Drifted[0].Changes)
		RedactDrift(&c, pos, secrets.NewSet())
		got := c.Stacks[0].Drifted[0].Changes
		for _, ch := range got[:3] {
			assert.Equal(t, ch.Secret, model.SecretNoEcho, ch.Path)
			assert.Equal(t, ch.State.Text(), model.Masked, ch.Path)
		}
		assert.Equal(t, got[0].AWS.Text(), model.Masked)
		assert.Equal(t, got[1].AWS.Text(), model.Masked)
		assert.Assert(t, !got[2].AWS.Present(), "absent stays absent")
		assert.Equal(t, got[3].Secret, model.SecretNone)
		assert.Equal(t, got[3].AWS.Text(), "v2")
		b, err := json.Marshal(c)
		assert.NilError(t, err)
		assert.Assert(t, !strings.Contains(string(b), "live-"), string(b))
	}
}

func TestRedactDiffHidingReportsWhatItHid(t *testing.T) {
	set := redactSet()
	secret := model.PropertyChange{Path: "Password", Old: str("pw-one"), New: str("pw-two"), Secret: model.SecretNoEcho}
	inValue := model.PropertyChange{Path: "Name", Old: str("q"), New: str("tenant-queue-secret-2")}
	literal := model.PropertyChange{Path: "Note", Old: str("***"), New: str("plain")}
	tokened := model.PropertyChange{Path: "Token", New: str("x"), Secret: model.SecretReference, NewMask: model.FingerprintToken("kept")}
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "Parent", Region: "us-east-1", Children: []model.StackDiff{{Stack: "Child", Region: "us-east-1",
		Changes:       []model.ResourceChange{{LogicalID: "Db", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{secret, inValue, literal, tokened}}},
		OutputChanges: []model.OutputChange{{Name: "Out", ChangeType: model.OutputAdd, New: str("out-value"), Secret: model.SecretNoEcho}}}}}}}
	var got, carried []Hidden
	RedactDiffHiding(&d, nil, set, func(h Hidden) {
		if *h.Token != "" {
			carried = append(carried, h)
			return
		}
		got = append(got, h)
	})
	assert.Equal(t, len(carried), 1, "a token set already is reported as it is")
	assert.Equal(t, carried[0].Place.Path, "Token")
	assert.Assert(t, !carried[0].Original.Present())
	var seen []string
	for _, h := range got {
		seen = append(seen, h.Place.Stack+" "+h.Place.Name+" "+h.Place.Path+" "+string(h.Original.Raw))
	}
	assert.DeepEqual(t, seen, []string{
		`Parent~Child Db Password "pw-one"`,
		`Parent~Child Db Password "pw-two"`,
		`Parent~Child Db Name "tenant-queue-secret-2"`, // a secret inside a value
		`Parent~Child Out  "out-value"`,
	})
	// Each token the caller fills lands in the diff; a literal "***" is not
	// reported, and a token set already is kept.
	for _, h := range got {
		*h.Token = model.FingerprintToken("t")
	}
	ch := d.Stacks[0].Children[0].Changes[0]
	assert.Equal(t, ch.PropertyChanges[0].OldMask, model.FingerprintToken("t"))
	assert.Equal(t, ch.PropertyChanges[1].OldMask, model.MaskToken(""), "the old name hid nothing")
	assert.Equal(t, ch.PropertyChanges[1].NewMask, model.FingerprintToken("t"))
	assert.Equal(t, ch.PropertyChanges[2].OldMask, model.MaskToken(""), "a literal *** is no mask of ours")
	assert.Equal(t, ch.PropertyChanges[3].NewMask, model.FingerprintToken("kept"))
	assert.Equal(t, d.Stacks[0].Children[0].OutputChanges[0].NewMask, model.FingerprintToken("t"))
	assert.Assert(t, got[3].Place.Output)
}
