package aggregate

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The exit code one run over every shard's stacks would have ended with:
// an unknown code (a shard re-rendered from a bare cdkd JSON) is never read
// as "nothing to report".
func TestOneRunExit(t *testing.T) {
	unknown := model.ExitCodeUnknown
	for _, tc := range []struct{ a, b, want int }{
		{0, 0, 0}, {0, 1, 1}, {2, 1, 1}, {0, 2, 2},
		{0, unknown, unknown}, {unknown, 0, unknown},
		{unknown, 2, 2}, {1, unknown, 1},
	} {
		assert.Equal(t, oneRunExit(tc.a, tc.b), tc.want, "%d and %d", tc.a, tc.b)
	}
}
