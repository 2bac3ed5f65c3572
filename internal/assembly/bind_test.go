package assembly

import (
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func creates(ids ...string) model.Diff {
	s := model.StackDiff{Stack: "StackA", Region: "us-east-1"}
	for _, id := range ids {
		s.Changes = append(s.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeCreate, ResourceType: "AWS::SSM::Parameter"})
	}
	return model.Diff{Stacks: []model.StackDiff{s}}
}

// A creation carries what it is created with, from the template the diff
// compared: the digest then binds it, so another synth at deploy time is
// another change set.
func TestBindCreates(t *testing.T) {
	asm, err := Load("testdata/assembly-v1")
	assert.NilError(t, err)

	d := creates("NoEchoParam2FCCC8BD", "Missing")
	d.Stacks[0].Changes = append(d.Stacks[0].Changes, model.ResourceChange{LogicalID: "TopicBFC7AF6E", ChangeType: model.ChangeUpdate})
	before := d.Digest()
	assert.Equal(t, asm.BindCreates(&d), 1)

	bound := d.Stacks[0].Changes[0]
	assert.Equal(t, bound.Unbound, "")
	var got []string
	for _, p := range bound.PropertyChanges {
		assert.Assert(t, !p.Old.Present(), "a created property has no old value")
		got = append(got, p.Path+"="+string(p.New.Raw))
	}
	assert.DeepEqual(t, got[:2], []string{`Name="/fixture/noecho"`, `Type="String"`})
	// Value reads the NoEcho parameter: the template's words there stand as
	// a hash, so the parameter's name is not learned as a secret.
	assert.Assert(t, strings.HasPrefix(got[2], `Value="template:`), got[2])
	assert.Assert(t, !strings.Contains(got[2], "DbPassword"))
	assert.Assert(t, is.Contains(d.Stacks[0].Changes[1].Unbound, "resource Missing is not in the template of stack StackA"))
	assert.Assert(t, d.Stacks[0].Changes[2].PropertyChanges == nil, "an update is cdkd's own")
	assert.Assert(t, d.Digest() != before)

	// Another value in the template is another digest.
	other := creates("NoEchoParam2FCCC8BD")
	asm.BindCreates(&other)
	again := creates("NoEchoParam2FCCC8BD")
	asm.BindCreates(&again)
	assert.Equal(t, other.Digest(), again.Digest())
	other.Stacks[0].Changes[0].PropertyChanges[0].New = model.StringValue("/fixture/other")
	assert.Assert(t, other.Digest() != again.Digest())

	t.Run("no assembly", func(t *testing.T) {
		d := creates("NoEchoParam2FCCC8BD")
		var none *Assembly
		assert.Equal(t, none.BindCreates(&d), 1)
		ids, why := d.UnboundCreates()
		assert.DeepEqual(t, ids, []string{"StackA/NoEchoParam2FCCC8BD"})
		assert.Equal(t, why, NoAssembly)
	})
	t.Run("a stack the assembly does not hold", func(t *testing.T) {
		d := creates("X")
		d.Stacks[0].Stack = "Elsewhere"
		asm.BindCreates(&d)
		assert.Assert(t, is.Contains(d.Stacks[0].Changes[0].Unbound, "stack Elsewhere is not in the cloud assembly"))
	})
}

// A creation is bound from the template Load read, each resource as the
// whole template decodes it: a repeated name's last entry, Properties that
// are no object refused; once Load's bytes are released, the file is read
// again, and a file gone or broken leaves the creation unbound.
func TestBindCreatesFromTemplateBytes(t *testing.T) {
	tmpl := `{"Resources":{` +
		`"Q":{"Type":"AWS::SQS::Queue","Properties":{"VisibilityTimeout":1}},` +
		`"Q":{"Type":"AWS::SQS::Queue","Properties":{"VisibilityTimeout":2,"DelaySeconds":3}},` +
		`"Bare":{"Type":"AWS::SNS::Topic"},` +
		`"Odd":{"Type":"AWS::SNS::Topic","Properties":[1]},` +
		`"Other":{"Type":"AWS::SNS::Topic","Properties":{"DisplayName":"x"}}}}`
	dir := fs.NewDir(t, "asm", fs.WithFile("manifest.json", stackManifest("")), fs.WithFile("S.template.json", tmpl))
	asm, err := Load(dir.Path())
	assert.NilError(t, err)

	bind := func() model.Diff {
		t.Helper()
		d := model.Diff{Stacks: []model.StackDiff{{Stack: "S", Changes: []model.ResourceChange{
			{LogicalID: "Q", ChangeType: model.ChangeCreate},
			{LogicalID: "Bare", ChangeType: model.ChangeCreate},
			{LogicalID: "Odd", ChangeType: model.ChangeCreate},
			{LogicalID: "Gone", ChangeType: model.ChangeCreate},
		}}}}
		asm.BindCreates(&d)
		return d
	}
	paths := func(ch model.ResourceChange) string {
		var out []string
		for _, p := range ch.PropertyChanges {
			out = append(out, p.Path+"="+string(p.New.Raw))
		}
		return strings.Join(out, " ")
	}
	d := bind()
	cs := d.Stacks[0].Changes
	assert.Equal(t, paths(cs[0]), "DelaySeconds=3 VisibilityTimeout=2", "the last of a repeated name, as Load traced it")
	assert.Equal(t, cs[1].Unbound, "")
	assert.Assert(t, cs[1].PropertyChanges != nil && len(cs[1].PropertyChanges) == 0, "created with no properties: bound, empty")
	assert.Equal(t, cs[2].Unbound, "the Properties of resource Odd in stack S are not an object")
	assert.Equal(t, cs[3].Unbound, "resource Gone is not in the template of stack S")

	// Load's bytes are released by the first call: the file is read again.
	d = bind()
	assert.Equal(t, paths(d.Stacks[0].Changes[0]), "DelaySeconds=3 VisibilityTimeout=2")
	for _, broken := range []string{"", `{"Resources":{"Q":`, `{"Resources":[]}`} {
		assert.NilError(t, os.WriteFile(dir.Join("S.template.json"), []byte(broken), 0o644))
		d = bind()
		for _, ch := range d.Stacks[0].Changes {
			assert.Equal(t, ch.Unbound, "the template of stack S cannot be read", "%q", broken)
		}
	}
	assert.NilError(t, os.Remove(dir.Join("S.template.json")))
	d = bind()
	assert.Equal(t, d.Stacks[0].Changes[0].Unbound, "the template of stack S cannot be read")
}
