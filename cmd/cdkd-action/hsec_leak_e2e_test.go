package main

// Leak tests of the hardening issue's secret items: text transformed on
// its way to a sink (folding, truncating, escaping), credentials the runner
// hands the container, and secrets wrapped across lines.

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// A secret holding a tab, two spaces or a Unicode space in cdkd's error
// line: folding the line first would turn it into a different string that
// the redactor no longer finds.
func TestErrorLineFoldedAfterRedaction(t *testing.T) {
	for _, secret := range []string{
		"tab\tsecret-value-91",
		"two  spaces-secret-92",
		"nbsp\u00a0thin\u2009secret-93",
		"ideographic\u3000secret-94",
	} {
		t.Run(strings.Fields(secret)[0], func(t *testing.T) {
			w := newWorkspace(t)
			w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: []cdkdtest.Line{
				{Text: "Error: parameter rejected: " + secret + " is not valid"},
			}, Exit: 1})
			res := w.run(map[string]string{"all": "true", "mask-values": secret})
			assert.Equal(t, res.code, 3, res.stdout)
			folded := strings.Join(strings.Fields(secret), " ")
			for _, c := range w.leakChannels(t, res) {
				for _, piece := range []string{secret, folded} {
					assert.Assert(t, !strings.Contains(c.text, piece), "LEAK in %s: %q", c.name, c.text)
				}
			}
			assert.Assert(t, strings.Contains(res.summary, "parameter rejected: *** is not valid"), res.summary)
		})
	}
}
