package redact

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// A value at a secret position that cdkd reports whole is hidden leaf by
// leaf (layout 4): the public leaves are shown and never learned, the
// secret leaf is hidden and learned, a leaf the template no longer writes
// is hidden and learned only when 8+ characters and in no public literal.
// With Leaves off (a deploy checking an older review) the value is hidden
// whole, as before.
func TestDiffHidesLeafByLeaf(t *testing.T) {
	asm, err := assembly.Load("testdata/leaves")
	assert.NilError(t, err)
	tests := []struct {
		name             string
		leaves           bool
		logicalID, path  string
		old, new         string
		wantOld, wantNew string
		wantLeaves       bool
		learned, not     []string
	}{
		{
			name: "public leaves beside a NoEcho one", leaves: true, logicalID: "Handler", path: "Environment",
			old:     `{"Variables":{"STAGE":"prod","REGION":"us-east-1","API_KEY":"orders-api-key-old"}}`,
			new:     `{"Variables":{"STAGE":"prod","REGION":"us-east-1","API_KEY":"orders-api-key-new"}}`,
			wantOld: `{"Variables":{"API_KEY":"***","REGION":"us-east-1","STAGE":"prod"}}`,
			wantNew: `{"Variables":{"API_KEY":"***","REGION":"us-east-1","STAGE":"prod"}}`, wantLeaves: true,
			learned: []string{"orders-api-key-old"}, not: []string{"prod", "us-east-1"},
		},
		{
			name: "a key the template no longer writes", leaves: true, logicalID: "Handler", path: "Environment",
			old:     `{"Variables":{"STAGE":"prod","OLD_TOKEN":"old-token-4f2c9d","OLD_FLAG":"on","OLD_NAME":"orders-prod-handler"}}`,
			new:     `{"Variables":{"STAGE":"prod","API_KEY":"orders-api-key-new"}}`,
			wantOld: `{"Variables":{"OLD_FLAG":"***","OLD_NAME":"***","OLD_TOKEN":"***","STAGE":"prod"}}`,
			wantNew: `{"Variables":{"API_KEY":"***","STAGE":"prod"}}`, wantLeaves: true,
			learned: []string{"old-token-4f2c9d"}, not: []string{"prod", "on", "orders-prod-handler"},
		},
		{
			name: "an ECS container's Environment list", leaves: true, logicalID: "Task", path: "ContainerDefinitions",
			old:     `[{"Name":"api","Image":"orders:1","Environment":[{"Name":"STAGE","Value":"prod"},{"Name":"API_KEY","Value":"orders-api-key-old"},{"Name":"REGION","Value":"us-east-1"}]}]`,
			new:     `[{"Name":"api","Image":"orders:1","Environment":[{"Name":"STAGE","Value":"prod"},{"Name":"API_KEY","Value":"orders-api-key-new"},{"Name":"REGION","Value":"us-east-1"}]}]`,
			wantOld: `[{"Environment":[{"Name":"STAGE","Value":"prod"},{"Name":"API_KEY","Value":"***"},{"Name":"REGION","Value":"us-east-1"}],"Image":"orders:1","Name":"api"}]`,
			wantNew: `[{"Environment":[{"Name":"STAGE","Value":"prod"},{"Name":"API_KEY","Value":"***"},{"Name":"REGION","Value":"us-east-1"}],"Image":"orders:1","Name":"api"}]`, wantLeaves: true,
			learned: []string{"orders-api-key-old"}, not: []string{"prod", "us-east-1", "orders:1"},
		},
		{
			name: "a reordered list: the old secret at a public index stays hidden; a public value at the secret's index is hidden, not learned", leaves: true, logicalID: "Task", path: "ContainerDefinitions",
			old:     `[{"Name":"api","Image":"orders:1","Environment":[{"Name":"API_KEY","Value":"orders-api-key-old"},{"Name":"STAGE","Value":"prod"},{"Name":"REGION","Value":"us-east-1"}]}]`,
			new:     `[{"Name":"api","Image":"orders:1","Environment":[{"Name":"STAGE","Value":"prod"},{"Name":"API_KEY","Value":"orders-api-key-new"},{"Name":"REGION","Value":"us-east-1"}]}]`,
			wantOld: `[{"Environment":[{"Name":"API_KEY","Value":"***"},{"Name":"STAGE","Value":"***"},{"Name":"REGION","Value":"us-east-1"}],"Image":"orders:1","Name":"api"}]`,
			wantNew: `[{"Environment":[{"Name":"STAGE","Value":"prod"},{"Name":"API_KEY","Value":"***"},{"Name":"REGION","Value":"us-east-1"}],"Image":"orders:1","Name":"api"}]`, wantLeaves: true,
			learned: []string{"orders-api-key-old"}, not: []string{"prod", "us-east-1"},
		},
		{
			name: "layout 3: hidden whole", leaves: false, logicalID: "Handler", path: "Environment",
			old:     `{"Variables":{"STAGE":"prod","API_KEY":"orders-api-key-old"}}`,
			new:     `{"Variables":{"STAGE":"prod","API_KEY":"orders-api-key-new"}}`,
			wantOld: `"***"`, wantNew: `"***"`,
			learned: []string{"orders-api-key-old", "prod"},
		},
		{
			name: "a scalar position is one leaf", leaves: true, logicalID: "Secret", path: "Value",
			old: `"orders-api-key-old"`, new: `"orders-api-key-new"`, wantOld: `"***"`, wantNew: `"***"`,
			learned: []string{"orders-api-key-old"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := secrets.NewSet()
			set.Add("orders-api-key-new", "default of NoEcho parameter Orders/ApiKey")
			set.Public(asm.PublicLiterals())
			d := model.Diff{Stacks: []model.StackDiff{{Stack: "Orders", Region: "us-east-1", Changes: []model.ResourceChange{{
				LogicalID: tc.logicalID, ChangeType: model.ChangeUpdate,
				PropertyChanges: []model.PropertyChange{{Path: tc.path, Old: model.JSONValue(tc.old), New: model.JSONValue(tc.new)}},
			}}}}}
			rep := Diff(&d, Input{Set: set, Positions: asm, Leaves: tc.leaves})
			pc := d.Stacks[0].Changes[0].PropertyChanges[0]
			assert.Equal(t, string(pc.Old.Raw), tc.wantOld)
			assert.Equal(t, string(pc.New.Raw), tc.wantNew)
			assert.Equal(t, pc.Leaves, tc.wantLeaves)
			assert.Equal(t, pc.Secret, model.SecretNoEcho, "still labelled: it holds a secret")
			assert.Equal(t, len(rep.Hidden), 2, "both sides' tokens cover the whole value")
			masks := set.MaskCommands()
			for _, v := range tc.learned {
				assert.Assert(t, is.Contains(masks, v))
			}
			for _, v := range tc.not {
				assert.Assert(t, !set.Contains(v), "%q is public, yet redacted", v)
				for _, m := range masks {
					assert.Assert(t, m != v, "%q is public, yet given to ::add-mask::", v)
				}
			}
		})
	}
}

// A drifted value at a secret position is hidden leaf by leaf too: the
// live secret and every leaf the state stores as "***" are hidden, the
// template's public leaves shown.
func TestDriftHidesLeafByLeaf(t *testing.T) {
	asm, err := assembly.Load("testdata/leaves")
	assert.NilError(t, err)
	set := secrets.NewSet()
	set.Public(asm.PublicLiterals())
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "Orders", Region: "us-east-1", Drifted: []model.DriftedResource{{
		Resource: model.Resource{LogicalID: "Handler", Type: "AWS::Lambda::Function"},
		Changes: []model.DriftChange{{Path: "Environment",
			State: model.JSONValue(`{"Variables":{"STAGE":"prod","REGION":"us-east-1","API_KEY":"***"}}`),
			AWS:   model.JSONValue(`{"Variables":{"STAGE":"prod","REGION":"eu-west-1","API_KEY":"live-rotated-key-9c1d"}}`)}},
	}}}}}
	Drift(&d, Input{Set: set, Positions: asm, Leaves: true})
	ch := d.Stacks[0].Drifted[0].Changes[0]
	assert.Equal(t, string(ch.State.Raw), `{"Variables":{"API_KEY":"***","REGION":"us-east-1","STAGE":"prod"}}`)
	assert.Equal(t, string(ch.AWS.Raw), `{"Variables":{"API_KEY":"***","REGION":"eu-west-1","STAGE":"prod"}}`)
	assert.Assert(t, ch.Leaves)
	assert.Equal(t, ch.Secret, model.SecretNoEcho)
	assert.Assert(t, is.Contains(set.MaskCommands(), "live-rotated-key-9c1d"), "the live secret is learned")
	assert.Assert(t, !set.Contains("prod") && !set.Contains("us-east-1"))
}
