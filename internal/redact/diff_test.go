package redact

import (
	"encoding/json"
	"html"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

func str(s string) model.Value { return model.StringValue(s) }

// loadAssembly loads the test assembly, its plain ssm references decided
// as discovery would: a /secure/ name is a SecureString.
func loadAssembly(t *testing.T) *assembly.Assembly {
	t.Helper()
	asm, err := assembly.Load("testdata/asm")
	assert.NilError(t, err)
	asm.MarkSecureSSM(func(ref dynref.Ref) bool { return strings.Contains(ref.Raw, "/secure/") })
	return asm
}

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
			name:      "NoEcho position: both sides hidden whatever they are",
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
			name:      "added secret property: old absent, new hidden",
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
			name:      "redaction that breaks the JSON hides the whole value",
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
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Changes: []model.ResourceChange{
				{LogicalID: tc.logicalID, ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{tc.pc}},
			}}}}
			Diff(&d, Input{Set: redactSet(), Positions: asm})
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
	Diff(&d, Input{Set: set, Positions: asm})
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
	Diff(&d, Input{Set: redactSet(), Positions: asm})
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

// Redacting a result again (a shard's report aggregated, a saved report
// rendered) changes nothing.
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
	Diff(&d, Input{Set: set, Positions: asm})
	once, err := json.Marshal(d)
	assert.NilError(t, err)
	Diff(&d, Input{Set: set, Positions: asm})
	twice, err := json.Marshal(d)
	assert.NilError(t, err)
	assert.Equal(t, string(twice), string(once))
	Diff(&d, Input{Set: set, Placed: true})
	thrice, err := json.Marshal(d)
	assert.NilError(t, err)
	assert.Equal(t, string(thrice), string(once))

	dr := driftFixture()
	Drift(&dr, Input{Set: set, Positions: asm})
	once, err = json.Marshal(dr)
	assert.NilError(t, err)
	Drift(&dr, Input{Set: set, Placed: true})
	twice, err = json.Marshal(dr)
	assert.NilError(t, err)
	assert.Equal(t, string(twice), string(once))
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
	rep := Diff(&d, Input{Set: secrets.NewSet(), Positions: loadAssembly(t)})
	assert.DeepEqual(t, rep.Unplaced, []Unplaced{{Stack: "App", LogicalID: "Removed", Why: WhyNotInTemplate}})
	assert.Equal(t, d.Stacks[0].Changes[0].PropertyChanges[0].Secret, model.SecretNone)
	assert.Equal(t, d.Stacks[0].Changes[0].PropertyChanges[0].New.Text(), "b-new")
	assert.Equal(t, d.Stacks[0].Changes[1].PropertyChanges[0].Secret, model.SecretUnknown)
	assert.Equal(t, d.Stacks[0].Changes[1].PropertyChanges[0].Old.Text(), model.Hidden)
	assert.Equal(t, d.Stacks[0].OutputChanges[0].Secret, model.SecretNone)

	d = diff()
	rep = Diff(&d, Input{Set: secrets.NewSet()})
	assert.DeepEqual(t, rep.Unplaced, []Unplaced{{Stack: "App", Why: WhyNoAssembly}})
	assert.Equal(t, d.Stacks[0].Changes[0].PropertyChanges[0].New.Text(), model.Hidden)
	assert.Equal(t, d.Stacks[0].OutputChanges[0].New.Text(), model.Hidden)

	// A stack the assembly does not hold is hidden whole, named once.
	d = diff()
	d.Stacks[0].Stack = "Elsewhere"
	rep = Diff(&d, Input{Set: secrets.NewSet(), Positions: loadAssembly(t)})
	assert.DeepEqual(t, rep.Unplaced, []Unplaced{{Stack: "Elsewhere", Why: WhyStackNotAssembly}})
	assert.Equal(t, d.Stacks[0].Changes[0].PropertyChanges[0].Old.Text(), model.Hidden)
	assert.Equal(t, d.Stacks[0].OutputChanges[0].New.Text(), model.Hidden)
}

// A result placed already (a shard's report, a saved one) keeps its
// positions' decisions and is redacted by value only, the secret values'
// names and sources it carries included.
func TestRedactPlacedByValueOnly(t *testing.T) {
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Changes: []model.ResourceChange{
		{LogicalID: "PwParam", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Value", Old: str("x-tenant-queue-secret"), New: str("visible")}}},
	}, SecretValues: []model.SecretValue{{LogicalID: "PwParam", Path: "Value", Source: "{{resolve:ssm:/tenant-queue-secret}}", Status: model.FingerprintUnknown, Reason: "no record for tenant-queue-secret"}}}}}
	Diff(&d, Input{Set: redactSet(), Placed: true})
	pc := d.Stacks[0].Changes[0].PropertyChanges[0]
	assert.Equal(t, pc.Old.Text(), "x-***")
	assert.Equal(t, pc.New.Text(), "visible")
	assert.Assert(t, !strings.Contains(string(pc.Old.Raw), "tenant"))
	sv := d.Stacks[0].SecretValues[0]
	assert.Equal(t, sv.Source, "{{resolve:ssm:/***}}")
	assert.Equal(t, sv.Reason, "no record for ***")
	assert.Equal(t, sv.LogicalID, "PwParam")
}

func TestRedactDiffReportsWhatItHid(t *testing.T) {
	set := redactSet()
	secret := model.PropertyChange{Path: "Password", Old: str("pw-one"), New: str("pw-two"), Secret: model.SecretNoEcho}
	inValue := model.PropertyChange{Path: "Name", Old: str("q"), New: str("tenant-queue-secret-2")}
	literal := model.PropertyChange{Path: "Note", Old: str("***"), New: str("plain")}
	tokened := model.PropertyChange{Path: "Token", New: str("x"), Secret: model.SecretReference, NewToken: model.FingerprintToken("kept")}
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "Parent", Region: "us-east-1", Children: []model.StackDiff{{Stack: "Child", Region: "us-east-1",
		Changes:       []model.ResourceChange{{LogicalID: "Db", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{secret, inValue, literal, tokened}}},
		OutputChanges: []model.OutputChange{{Name: "Out", ChangeType: model.OutputAdd, New: str("out-value"), Secret: model.SecretNoEcho}}}}}}}
	var got, carried []Hidden
	for _, h := range Diff(&d, Input{Set: set, Placed: true}).Hidden {
		if *h.Token != "" {
			carried = append(carried, h)
			continue
		}
		got = append(got, h)
	}
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
	assert.Equal(t, ch.PropertyChanges[0].OldToken, model.FingerprintToken("t"))
	assert.Equal(t, ch.PropertyChanges[1].OldToken, model.HiddenToken(""), "the old name hid nothing")
	assert.Equal(t, ch.PropertyChanges[1].NewToken, model.FingerprintToken("t"))
	assert.Equal(t, ch.PropertyChanges[2].OldToken, model.HiddenToken(""), "a literal *** is no redaction of ours")
	assert.Equal(t, ch.PropertyChanges[3].NewToken, model.FingerprintToken("kept"))
	assert.Equal(t, d.Stacks[0].Children[0].OutputChanges[0].NewToken, model.FingerprintToken("t"))
	assert.Assert(t, got[3].Place.Output)
}
