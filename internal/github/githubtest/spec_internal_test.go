package githubtest

import (
	"slices"
	"testing"

	"gotest.tools/v3/assert"
)

// The vendored subset and the handlers must name the same operations: a
// regenerated subset that adds or drops one is caught here.
func TestHandlersCoverTheVendoredSubset(t *testing.T) {
	spec, err := loadSpec()
	assert.NilError(t, err)
	inSpec := spec.operationIDs()
	slices.Sort(inSpec)
	var served []string
	for id := range handlers {
		served = append(served, id)
	}
	slices.Sort(served)
	assert.DeepEqual(t, inSpec, served)
}
