package assembly

import (
	"testing"

	"gotest.tools/v3/assert"

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
		"URL": {"Fn::Sub": "https://x/${Key}"}, "LEVEL": {"Ref": "Stage"}}}, "Timeout": 30, "Layers": ["arn:aws:lambda:us-east-1:1:layer:l:1"]}`)
	tests := []struct {
		path string
		want Leaf
		kind model.SecretKind
	}{
		{"Environment.Variables.STAGE", LeafPublic, model.SecretNone},
		{"Environment.Variables.REGION", LeafPublic, model.SecretNone},
		{"Environment.Variables.LEVEL", LeafPublic, model.SecretNone},
		{"Environment.Variables.API_KEY", LeafSecret, model.SecretNoEcho},
		{"Environment.Variables.URL", LeafSecret, model.SecretNoEcho},
		{"Environment.Variables.OLD_TOKEN", LeafUndecided, model.SecretNone},
		{"Timeout", LeafPublic, model.SecretNone},
		{"Layers.0", LeafPublic, model.SecretNone},
		{"Environment", LeafSecret, model.SecretNoEcho}, // holds a secret leaf: whole, as before
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, kind := s.LeafAt("R", tc.path)
			assert.Equal(t, got, tc.want)
			assert.Equal(t, kind, tc.kind)
		})
	}
	got, _ := s.LeafAt("Gone", "Environment.Variables.STAGE")
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
