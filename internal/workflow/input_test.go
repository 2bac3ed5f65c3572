package workflow

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestIsActions(t *testing.T) {
	for value, want := range map[string]bool{"true": true, "": false, "false": false, "1": false, "TRUE": false} {
		got := IsActions(func(k string) string {
			if k == "GITHUB_ACTIONS" {
				return value
			}
			return ""
		})
		assert.Equal(t, got, want, "GITHUB_ACTIONS=%q", value)
	}
}
