package main

import (
	"encoding/base64"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// A failing cdkd whose stderr ends with a long secret's base64, wrapped at
// 76 columns and longer than the tail a report keeps: no line of it
// reaches any channel (cut first, the block's last lines were no longer
// recognised, and decoded to most of the secret).
func TestLeakCutEncodedBlock(t *testing.T) {
	secret := strings.Repeat("L0ng-secret-", 104)[:1237]
	enc := base64.StdEncoding.EncodeToString([]byte(secret))
	var lines []cdkdtest.Line
	lines = append(lines, cdkdtest.Line{Text: "Error: the parameter value was rejected:"})
	for rest := enc; rest != ""; {
		n := min(76, len(rest))
		lines = append(lines, cdkdtest.Line{Text: rest[:n]})
		rest = rest[n:]
	}
	w := newWorkspace(t)
	w.secret(secret)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: lines, Exit: 1})
	res := w.run(map[string]string{"all": "true", "mask-values": secret})
	assert.Equal(t, res.code, 3, res.stdout)
	for _, c := range res.channels {
		for _, l := range lines[1:] {
			if len(l.Text) >= 16 {
				assert.Assert(t, !strings.Contains(c.text, l.Text), "a line of the secret's base64 reached the %s", c.name)
			}
		}
	}
	assert.Assert(t, is.Contains(w.gh.Comments(owner, repo, prNum)[0].Body, "cdkd's stderr (last 20 lines)"))
}
