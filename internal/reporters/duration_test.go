package reporters

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{0, "0 ms"},
		{29 * time.Millisecond, "29 ms"},
		{999 * time.Millisecond, "999 ms"},
		{time.Second, "1.0 s"},
		{1500 * time.Millisecond, "1.5 s"},
		{83*time.Second + 260*time.Millisecond, "83.3 s"},
	} {
		assert.Equal(t, Duration(tc.in), tc.want, tc.in.String())
	}
}
