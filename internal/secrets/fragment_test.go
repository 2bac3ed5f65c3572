package secrets

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// The action hides the sections of a value around "&" exactly where the
// runner's SecretMasker (simulated independently in runnermask) masks them.
func TestAmpersandSectionsMatchTheRunner(t *testing.T) {
	for _, tc := range []struct {
		value    string
		sections []string
	}{
		{"secretpart1&secretpart2&secretpart3", []string{"secretpart1&secretpart2&", "secretpart3"}},
		{"secretpart1&+secretpart2&secretpart3", []string{"secretpart1&+", "ecretpart2&secretpart3"}},
		{"ab&cdefgh", []string{"cdefgh"}},                // "ab&" is under 6
		{"abcdefg&hi", []string{"abcdefg&"}},             // "hi" is under 6
		{"pässwörd&🔑🔑🔑🔑", []string{"pässwörd&", "🔑🔑🔑🔑"}}, // 🔑 is two UTF-16 units
		{"abcdef&+🔑bcdefgh", []string{"abcdef&+"}},       // the runner would cut 🔑 in half
		{"no-ampersand-here", nil},
	} {
		t.Run(tc.value, func(t *testing.T) {
			assert.Check(t, is.DeepEqual(ampersandSections(tc.value), tc.sections))
			s := NewSet()
			s.Add(tc.value, "test")
			sim := &runnermask.Simulator{}
			sim.AddMask(tc.value)
			for _, sec := range tc.sections {
				line := "Error: at " + sec + " in the command"
				assert.Check(t, is.Equal(s.Redact(line), "Error: at *** in the command"))
				assert.Check(t, is.Equal(s.Redact(line), sim.Mask(line)), "the runner masks the same")
			}
			// A section shorter than the runner's minimum stays.
			if tc.value == "ab&cdefgh" {
				assert.Check(t, is.Equal(s.Redact("ab& is shown"), "ab& is shown"))
			}
		})
	}
}

// A section is registered through Add, with a source saying what it is.
func TestAmpersandSectionsAreRegistered(t *testing.T) {
	s := NewSet()
	s.Add("first-part&second-part", "mask-values line 1")
	assert.Check(t, is.Equal(s.Len(), 3))
	assert.Check(t, is.Contains(s.MaskCommands(), "second-part"))
	var sources []string
	for _, r := range s.Registrations() {
		sources = append(sources, r.Sources...)
	}
	assert.Check(t, is.Contains(sources, "mask-values line 1 (a section around &, as the runner masks it)"))
}
