package layout1

import (
	"fmt"
	"time"
)

// Duration is how long a stack or resource took, as the deploy report
// shows it: milliseconds under a second, else seconds to one decimal.
func Duration(v time.Duration) string {
	if v < time.Second {
		return fmt.Sprintf("%d ms", v.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", v.Seconds())
}
