package reporters

import (
	"strconv"
	"testing"

	"gotest.tools/v3/assert"
)

func TestWriteList(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, limit int
		budget   Budget
		prefix   string
		want     string
		within   bool
	}{
		{name: "uncapped", n: 3, limit: -1, want: "- 0\n- 1\n- 2\n", within: true},
		{name: "capped", n: 5, limit: 2, want: "- 0\n- 1\n- … and 3 more\n", within: true},
		{name: "cap equals length", n: 2, limit: 2, want: "- 0\n- 1\n", within: true},
		{name: "cap zero leaves it out", n: 4, limit: 0, want: "", within: true},
		{name: "quoted", n: 3, limit: 1, prefix: "> ", want: "- 0\n> - … and 2 more\n", within: true},
		{name: "over budget mid-list", n: 100, limit: -1, budget: Budget{MaxBytes: 10}, want: "- 0\n- 1\n- 2", within: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWriter(tc.budget)
			got := writeList(w, tc.n, tc.limit, tc.prefix, func(i int) { w.Write("- ", strconv.Itoa(i), "\n") })
			assert.Equal(t, w.String(), tc.want)
			assert.Equal(t, got, tc.within, "within the budget")
		})
	}
}
