package fingerprint

import (
	"testing"

	"gotest.tools/v3/assert"
)

// A deploy that leaves positions unrecorded says so per reason: those with
// no fingerprint stay unknown; those keeping one from before are news only
// when the deploy's events are unknown (the kept one may be stale).
func TestUnrecordedWarnings(t *testing.T) {
	db := Position{Stack: "S", Region: "us-east-1", Kind: KindResource, LogicalID: "Db", Path: "MasterUserPassword"}
	dir := Position{Stack: "S", Region: "us-east-1", Kind: KindResource, LogicalID: "Dir", Path: "Password"}
	out := Position{Stack: "S", Region: "us-east-1", Kind: KindOutput, Output: "Pw"}
	rec := NewRecord("S", "us-east-1")
	rec.Positions[dir.Key()] = Entry{Position: dir, Fingerprint: Fingerprint{Hash: "h"}}

	var u Unrecorded
	assert.Assert(t, u.Warnings("S", true) == nil, "nothing unrecorded, nothing said")
	u.Add("no events", db, rec)
	u.Add("no events", dir, rec)
	u.Add("its value is not known", out, nil)
	assert.DeepEqual(t, u.Warnings("S", false), []string{
		"S: no fingerprint recorded for 1 secret position(s), which stay unknown (Db.MasterUserPassword): no events. The next diff cannot tell whether their values changed until a deploy records them.",
		"S: no fingerprint recorded for 1 secret position(s), which stay unknown (Pw): its value is not known. The next diff cannot tell whether their values changed until a deploy records them.",
	})
	stale := u.Warnings("S", true)
	assert.Equal(t, len(stale), 3)
	assert.Equal(t, stale[1], "S: no fingerprint recorded for 1 secret position(s), which keep the one recorded before though this deploy may have changed their values (Dir.Password): no events.")
}
