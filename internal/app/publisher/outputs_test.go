package publisher

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	"gotest.tools/v3/assert"

	cdkdaction "github.com/cdkd-action/cdkd-action"
)

// Every output the code sets is declared in action.yml and the other way
// round: a typo in a name would silently set an output no workflow can read.
func TestOutputsMatchActionYAML(t *testing.T) {
	var f struct {
		Outputs map[string]any `yaml:"outputs"`
	}
	assert.NilError(t, yaml.Unmarshal(cdkdaction.ActionYAML, &f))
	declared := slices.Sorted(func(yield func(string) bool) {
		for k := range f.Outputs {
			if !yield(k) {
				return
			}
		}
	})
	assert.DeepEqual(t, slices.Sorted(slices.Values(OutputNames)), declared)

	// And the code of internal/app, every command's package included,
	// names them by constant only.
	literal := regexp.MustCompile(`(?i)setOutput\("`)
	err := filepath.WalkDir("..", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return err
		}
		b, err := os.ReadFile(name)
		assert.NilError(t, err)
		assert.Assert(t, !literal.Match(b), "%s sets an output by a string literal; use the Output constants", name)
		return nil
	})
	assert.NilError(t, err)
}
