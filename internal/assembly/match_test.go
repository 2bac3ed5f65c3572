package assembly

import (
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"gotest.tools/v3/assert"
)

func TestSecretAt(t *testing.T) {
	s := Stack{Positions: []Position{
		{Kind: KindResource, LogicalID: "Param", Path: "Value", Whole: true, Source: model.SecretNoEcho, Parameter: "P", Secure: true},
		{Kind: KindResource, LogicalID: "Fn", Path: "Tags.2.Value", Source: model.SecretReference, Secure: true},
		{Kind: KindResource, LogicalID: "Fn", Path: "Environment.Variables.KEY", Source: model.SecretReference, Secure: true},
		{Kind: KindResource, LogicalID: "Fn", Path: "Environment.Variables.KEY", Source: model.SecretNoEcho, Secure: true},
		{Kind: KindResource, LogicalID: "Whole", Path: "", Source: model.SecretReference, Secure: true},
		{Kind: KindResource, LogicalID: "Plain", Path: "Value", Source: model.SecretReference, Service: dynref.SSM},
		{Kind: KindOutput, Output: "Value", Source: model.SecretNoEcho, Secure: true},
	}}
	tests := []struct {
		logicalID, path string
		want            model.SecretKind
	}{
		{"Param", "Value", model.SecretNoEcho},                   // exact
		{"Param", "Value.Nested.0", model.SecretNoEcho},          // inside
		{"Param", "", model.SecretNoEcho},                        // the whole resource contains it
		{"Param", "Values", model.SecretNone},                    // a longer key is another key
		{"Param", "value", model.SecretNone},                     // keys are case sensitive
		{"Param", "Name", model.SecretNone},                      // a sibling
		{"Other", "Value", model.SecretNone},                     // another resource
		{"Fn", "Tags", model.SecretReference},                    // contains
		{"Fn", "Tags.2", model.SecretReference},                  // contains
		{"Fn", "Tags.2.Value", model.SecretReference},            // exact
		{"Fn", "Tags.0.Value", model.SecretReference},            // any index: lists get reordered
		{"Fn", "Tags.2.Key", model.SecretNone},                   // sibling in the same entry
		{"Fn", "Tags.x.Value", model.SecretNone},                 // a key is not an index
		{"Fn", "Tags.-1.Value", model.SecretNone},                // nor is a negative number
		{"Fn", "Tags[2].Value", model.SecretReference},           // bracket index
		{"Fn", "Tags[2]Value", model.SecretReference},            // bracket index, no dot after
		{"Fn", "Tags[2][3]", model.SecretNone},                   // an index where the position has a key
		{"Fn", "Tags[env].Value", model.SecretReference},         // keyed entry: the whole list
		{"Fn", "Environment", model.SecretNoEcho},                // NoEcho wins over a reference
		{"Fn", "Environment.Variables[KEY]", model.SecretNoEcho}, // keyed form: the whole map
		{"Fn", "Environment.Variables.KEY", model.SecretNoEcho},  //
		{"Fn", "Environment.Variables.KEYS", model.SecretNone},   //
		{"Fn", "Environment.Variables.OTHER", model.SecretNone},  //
		{"Whole", "Anything.at.all", model.SecretReference},      // the properties as a whole are secret
		{"Plain", "Value", model.SecretNone},                     // plain ssm not confirmed
		{"Value", "", model.SecretNone},                          // an output is not a resource
		{"Param", "Value[", model.SecretNoEcho},                  // malformed: still under Value
		{"Param", ".Value.", model.SecretNoEcho},                 // stray dots
		{"Param", "[Value]", model.SecretNoEcho},                 // keyed root: the whole resource
		{"Param", "[0]", model.SecretNone},                       // an index is not the key Value
	}
	for _, tc := range tests {
		t.Run(tc.logicalID+"/"+tc.path, func(t *testing.T) {
			assert.Equal(t, s.SecretAt(tc.logicalID, tc.path), tc.want)
		})
	}
}

func TestSplitPath(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Value", []string{"Value"}},
		{"Tags.0.Value", []string{"Tags", "0", "Value"}},
		{"Tags[0].Value", []string{"Tags", "0", "Value"}},
		{"LoadBalancerAttributes[deletion_protection.enabled]", []string{"LoadBalancerAttributes"}},
		{"A[1][2]", []string{"A", "1", "2"}},
		{"A[1", []string{"A", "1"}},
		{"[Value]", nil},
	}
	for _, tc := range tests {
		assert.DeepEqual(t, splitPath(tc.in), tc.want)
	}
}

func TestSecretOutput(t *testing.T) {
	s := Stack{Outputs: []Output{
		{Name: "Key", Exported: true, Export: "App-Key"}, {Name: "Ref"}, {Name: "Named", Exported: true},
		{Name: "Plain", Exported: true, Export: "App-Plain"},
	}, Positions: []Position{
		{Kind: KindOutput, Output: "Key", Export: "App-Key", Source: model.SecretNoEcho, Secure: true},
		{Kind: KindOutput, Output: "Ref", Source: model.SecretReference, Secure: true},
		{Kind: KindOutput, Output: "Ref", Source: model.SecretNoEcho, Secure: true},
		{Kind: KindOutput, Output: "Named", Path: "Export.Name", Source: model.SecretNoEcho, Secure: true},
		{Kind: KindOutput, Output: "Plain", Export: "App-Plain", Source: model.SecretReference, Service: dynref.SSM},
		{Kind: KindResource, LogicalID: "Res", Path: "", Source: model.SecretNoEcho, Secure: true},
	}}
	tests := []struct {
		name string
		want model.SecretKind
	}{
		{"Key", model.SecretNoEcho},
		{"App-Key", model.SecretNoEcho},
		{"Ref", model.SecretNoEcho},
		{"Named", model.SecretNone}, // its value is not secret; its export name is
		{"Plain", model.SecretNone},
		{"App-Plain", model.SecretNone},
		{"Res", model.SecretNone},
		{"", model.SecretNone},
		{"Unknown-Export", model.SecretNone},
	}
	for _, tc := range tests {
		assert.Equal(t, s.SecretOutput(tc.name), tc.want, tc.name)
	}
}

// An exported secret output whose export name could not be spelled makes
// every name that is not a known output secret: it may be that export's row.
func TestSecretOutputUnspelledExport(t *testing.T) {
	s := Stack{
		Outputs: []Output{{Name: "Key", Exported: true}, {Name: "Open", Exported: true, Export: "App-Open"}},
		Positions: []Position{
			{Kind: KindOutput, Output: "Key", Source: model.SecretReference, Secure: true},
		},
	}
	assert.Equal(t, s.SecretOutput("Key"), model.SecretReference)
	assert.Equal(t, s.SecretOutput("Open"), model.SecretNone)
	assert.Equal(t, s.SecretOutput("App-Open"), model.SecretNone)
	assert.Equal(t, s.SecretOutput("Whatever-cdkd-named-it"), model.SecretReference)
}

func TestNoEchoReaders(t *testing.T) {
	s := Stack{Positions: []Position{
		{Kind: KindResource, LogicalID: "B", Path: "X", Source: model.SecretNoEcho},
		{Kind: KindResource, LogicalID: "A", Path: "X", Source: model.SecretNoEcho},
		{Kind: KindResource, LogicalID: "B", Path: "Y", Source: model.SecretNoEcho},
		{Kind: KindResource, LogicalID: "C", Path: "X", Source: model.SecretReference},
		{Kind: KindOutput, Output: "D", Source: model.SecretNoEcho},
	}}
	assert.DeepEqual(t, s.NoEchoReaders(), []string{"A", "B"})
}
