package config

import (
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// README names every input (its reference is docs/inputs.md): a new input
// in action.yml that README does not mention fails here.
func TestREADMENamesEveryInput(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	assert.NilError(t, err)
	specs, err := Specs()
	assert.NilError(t, err)
	for _, s := range specs {
		assert.Assert(t, strings.Contains(string(readme), "`"+s.Name+"`"), "README.md does not mention input %s", s.Name)
	}
}
