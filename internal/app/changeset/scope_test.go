package changeset

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// With stacks named, the report says the deploy touches exactly the
// diffed stacks, and names each dependency it leaves out, once; with all,
// on a shard, or with nothing diffed, it says nothing.
func TestDeployScope(t *testing.T) {
	asm := &assembly.Assembly{Stacks: []assembly.Stack{
		{Name: "Api", DependsOn: []string{"Network", "Db"}},
		{Name: "Web", DependsOn: []string{"Network", "Api"}},
	}}
	diff := model.Diff{Stacks: []model.StackDiff{{Stack: "Api"}, {Stack: "Web"}}}
	named := config.Config{Stacks: []string{"Api", "W*"}}
	shard := named
	shard.Shard = &config.Shard{ID: "1-of-2"}
	const exactly = "A deploy touches exactly the stacks in this diff (Api, Web): stacks is set, so cdkd deploy runs with --exclusively and never deploys the stacks they depend on with them"
	for _, tc := range []struct {
		name string
		cfg  config.Config
		asm  *assembly.Assembly
		d    model.Diff
		want string
	}{
		{"dependencies left out, sorted", named, asm, diff, exactly + "; not deployed: Db (a dependency of Api), Network (a dependency of Api), Network (a dependency of Web) (deploy it first, or add it to stacks)."},
		{"no assembly: no dependencies known", named, nil, diff, exactly + "."},
		{"all", config.Config{All: true, Stacks: []string{"Api"}}, asm, diff, ""},
		{"a shard", shard, asm, diff, ""},
		{"nothing diffed", named, asm, model.Diff{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, DeployScope(tc.cfg, tc.asm, tc.d), tc.want)
		})
	}
}
