package redact

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// What redaction could not place is said once per cause, naming the stacks
// and resources redacted, with what to pass to see the values; a run with
// no assembly at all says only the caller's note.
func TestUnplacedNotes(t *testing.T) {
	set := secrets.NewSet()
	set.Add("tenant-queue-secret", "test")
	unplaced := []Unplaced{
		{Stack: "Gone", Why: WhyStackNotAssembly},
		{Stack: "Also-tenant-queue-secret", Why: WhyStackNotAssembly},
		{Stack: "Nested", Why: "its nested template is missing"},
		{Stack: "App", LogicalID: "Renamed", Why: WhyNotInTemplate},
	}
	hidden, notes := UnplacedNotes(unplaced, set, true, "no assembly", "changed values")
	assert.DeepEqual(t, hidden, []string{"Gone", "Also-***", "Nested"})
	assert.DeepEqual(t, notes, []string{
		"Values hidden in Gone, Also-***: the cloud assembly does not hold these stacks, so NoEcho positions there are unknown — pass the assembly these stacks were synthesized from as app to see them. Their changed values show as ***; the paths still show.",
		"Values hidden in Nested: its nested template is missing, so NoEcho positions there are unknown — pass the assembly that deployed it, with its nested templates, as app to see them. Its changed values show as ***; the paths still show.",
		"Values hidden at App/Renamed: " + WhyNotInTemplate + ", so whether they are secret is unknown — pass the assembly that deployed them as app to see them. Their changed values show as *** (🔒 unknown position); the paths still show.",
	})

	hidden, notes = UnplacedNotes([]Unplaced{{Stack: "App", Why: WhyNoAssembly}}, set, false, "no assembly", "drifted values")
	assert.DeepEqual(t, hidden, []string{"App"})
	assert.DeepEqual(t, notes, []string{"no assembly"})
	_, notes = UnplacedNotes([]Unplaced{{Stack: "App", Why: WhyNoAssembly}}, set, false, "", "drifted values")
	assert.Assert(t, notes == nil, "another note says it already")
}
