package assembly

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// leafStack traces one resource R with the given Properties beside a
// NoEcho parameter Key and a public one Stage.
func leafStack(t *testing.T, props string) Stack {
	t.Helper()
	tpl, err := parseTemplate(`{"Parameters": {"Key": {"Type": "String", "NoEcho": true, "Default": "k-secret-value"}, "Stage": {"Type": "String", "Default": "prod"}},
		"Resources": {"R": {"Type": "AWS::Lambda::Function", "Properties": ` + props + `}},
		"Outputs": {"Name": {"Value": "fixture-queue-v1"}}}`)
	assert.NilError(t, err)
	s := Stack{Name: "S", Region: "us-east-1"}
	tr := newTracer(tpl, s, nil)
	tr.trace()
	tr.fill(&s)
	s.Resources = tpl.resourceIDs()
	return s
}

// Each leaf of a property cdkd reports whole is decided on its own: a
// literal or a secret-free intrinsic is public, a leaf reading a NoEcho
// parameter is secret, and a leaf the template does not write (an old
// value's key) is undecided.
func TestLeafAt(t *testing.T) {
	s := leafStack(t, `{"Environment": {"Variables": {"STAGE": "prod", "REGION": {"Ref": "AWS::Region"}, "API_KEY": {"Ref": "Key"},
		"URL": {"Fn::Sub": "https://x/${Key}"}, "LEVEL": {"Ref": "Stage"}, "PLAIN": "{{resolve:ssm:/orders/plain}}"}}, "Timeout": 30, "Layers": ["arn:aws:lambda:us-east-1:1:layer:l:1"],
		"ContainerDefinitions": [{"Environment": [{"Name": "STAGE", "Value": "prod"}, {"Name": "API_KEY", "Value": {"Ref": "Key"}}]}]}`)
	tests := []struct {
		path, value string
		want        Leaf
		kind        model.SecretKind
	}{
		{"Environment.Variables.STAGE", "prod", LeafPublic, model.SecretNone},
		{"Environment.Variables.STAGE", "staging", LeafPublic, model.SecretNone}, // an old value at a public position
		{"Environment.Variables.REGION", "us-east-1", LeafPublic, model.SecretNone},
		{"Environment.Variables.LEVEL", "prod", LeafPublic, model.SecretNone},
		{"Environment.Variables.API_KEY", "k-secret-value", LeafSecret, model.SecretNoEcho},
		{"Environment.Variables.API_KEY", "prod", LeafSecret, model.SecretNoEcho},
		{"Environment.Variables.URL", "https://x/k", LeafSecret, model.SecretNoEcho},
		{"Environment.Variables.OLD_TOKEN", "old-token", LeafUndecided, model.SecretNone},
		{"Environment.Variables.PLAIN", "plain", LeafPublic, model.SecretNone}, // a String parameter, unless marked secure
		{"Timeout", "30", LeafPublic, model.SecretNone},
		{"Layers.0", "arn:aws:lambda:us-east-1:1:layer:l:1", LeafPublic, model.SecretNone},
		{"Environment", "", LeafSecret, model.SecretNoEcho}, // holds a secret leaf: whole, as before
		// A list: a secret at one index reaches every index, unless the
		// template writes that very value at that very index.
		{"ContainerDefinitions.0.Environment.0.Name", "STAGE", LeafPublic, model.SecretNone},
		{"ContainerDefinitions.0.Environment.0.Value", "prod", LeafPublic, model.SecretNone},
		{"ContainerDefinitions.0.Environment.0.Value", "old-secret-moved", LeafSecret, model.SecretNoEcho},
		{"ContainerDefinitions.0.Environment.1.Value", "k-secret-value", LeafSecret, model.SecretNoEcho},
		{"ContainerDefinitions.0.Environment.1.Value", "prod", LeafSecret, model.SecretNoEcho}, // the secret's own index
		{"ContainerDefinitions.0.Environment.2.Value", "prod", LeafPublic, model.SecretNone},   // moved
		{"ContainerDefinitions.0.Environment.2.Value", "other", LeafSecret, model.SecretNoEcho},
	}
	for _, tc := range tests {
		t.Run(tc.path+"="+tc.value, func(t *testing.T) {
			got, kind := s.LeafAt("R", tc.path, tc.value)
			assert.Equal(t, got, tc.want)
			assert.Equal(t, kind, tc.kind)
		})
	}
	got, _ := s.LeafAt("Gone", "Environment.Variables.STAGE", "prod")
	assert.Equal(t, got, LeafUndecided, "a resource the template lacks decides nothing")
}

// The public literals are the strings the template writes, outputs
// included, and never a NoEcho default or a dynamic reference.
func TestPublicLiterals(t *testing.T) {
	s := leafStack(t, `{"QueueName": "fixture-queue-v1", "Token": "{{resolve:secretsmanager:tok}}", "Key": {"Ref": "Key"}, "Timeout": 30}`)
	a := &Assembly{Stacks: []Stack{s}}
	assert.DeepEqual(t, a.PublicLiterals(), []string{"30", "fixture-queue-v1"})
	assert.DeepEqual(t, a.LiteralPlaces("fixture-queue-v1"), []LiteralPlace{
		{Stack: "S", Output: "Name"},
		{Stack: "S", LogicalID: "R", Path: "QueueName"},
	})
}

// A created resource's property whose secret sits below it is bound leaf by
// leaf for a layout that shows it so: only the node at the secret position
// is a stand-in; BindCreates (older layouts) binds the property as one
// stand-in, as before.
func TestBindCreatesLeafByLeaf(t *testing.T) {
	dir := fs.NewDir(t, "asm",
		fs.WithFile("manifest.json", `{"version":"55.0.0","artifacts":{"S":{"type":"aws:cloudformation:stack","environment":"aws://1/us-east-1","properties":{"templateFile":"S.json"}}}}`),
		fs.WithFile("S.json", `{"Parameters": {"Key": {"Type": "String", "NoEcho": true, "Default": "k-secret-value"}},
 "Resources": {"Fn": {"Type": "AWS::Lambda::Function", "Properties": {
  "Environment": {"Variables": {"STAGE": "prod", "API_KEY": {"Ref": "Key"}}},
  "Picked": {"Fn::If": ["C", {"A": {"Ref": "Key"}}, {"A": "x"}]},
  "Whole": {"Ref": "Key"}}}}}`))
	asm, err := Load(dir.Path())
	assert.NilError(t, err)
	bound := func(bind func(*model.Diff) int) map[string]string {
		d := model.Diff{Stacks: []model.StackDiff{{Stack: "S", Region: "us-east-1", Changes: []model.ResourceChange{{LogicalID: "Fn", ChangeType: model.ChangeCreate}}}}}
		assert.Equal(t, bind(&d), 0)
		out := map[string]string{}
		for _, p := range d.Stacks[0].Changes[0].PropertyChanges {
			out[p.Path] = string(p.New.Raw)
		}
		return out
	}
	leaves := bound(asm.BindCreatesLeafByLeaf)
	assert.Assert(t, strings.HasPrefix(leaves["Environment"], `{"Variables":{"API_KEY":"template:`), leaves["Environment"])
	assert.Assert(t, strings.HasSuffix(leaves["Environment"], `","STAGE":"prod"}}`), leaves["Environment"])
	assert.Assert(t, strings.HasPrefix(leaves["Picked"], `"template:`), "a secret under Fn::If: one stand-in")
	assert.Assert(t, strings.HasPrefix(leaves["Whole"], `"template:`))
	whole := bound(asm.BindCreates)
	assert.Assert(t, strings.HasPrefix(whole["Environment"], `"template:`), whole["Environment"])
}
