package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/gate"
)

// currentChangeSet runs `cdkd diff` on what is being deployed and computes
// its digest exactly as the diff command does: redacted, sorted, digested.
type currentChangeSet struct {
	r       *Env
	version string
	// assembly is the cloud assembly the gate's diff synthesized, when app
	// is a command: cdkd deploy reads it rather than synthesizing again, so
	// it deploys exactly the templates that were compared ("" when app is
	// already an assembly, or the diff left none).
	assembly string
	// resynth says why cdkd deploy synthesizes again although app is a
	// command, "" when it does not.
	resynth string
}

var _ gate.ChangeSets = (*currentChangeSet)(nil)

func (c *currentChangeSet) ChangeSet(ctx context.Context) (gate.Current, error) {
	before := stampAssembly(c.r.synthesizedPath())
	d, version, err := c.r.obtainDiff(ctx)
	c.version = version
	if err != nil {
		return gate.Current{}, err
	}
	c.pinAssembly(before)
	_, unverifiable := c.r.redactDiff(ctx, &d)
	c.r.securityChanges(ctx, &d) // as the diff does: the rows are in the digest
	d.Sort()
	return gate.Current{Diff: d, Digest: d.Digest(), Unverifiable: unverifiable, KeyID: c.r.maskKeyID(ctx), CdkdVersion: version}, nil
}

// pinAssembly decides what cdkd deploy reads. With app a command, cdkd
// synthesizes on each run, and a synth that is not deterministic (a
// timestamp, a lookup, a random name) would let the deploy apply templates
// other than the ones the gate just compared. So the assembly the gate's
// diff wrote to <working-directory>/cdk.out is deployed instead; one that
// the diff did not write (unchanged since before it ran) may be stale and
// is not used.
func (c *currentChangeSet) pinAssembly(before assemblyStamp) {
	r := c.r
	if r.assemblyDir() != "" {
		return // app is an assembly already: nothing is synthesized
	}
	dir := r.synthesizedPath()
	after := stampAssembly(dir)
	switch {
	case !after.exists || !assembly.IsAssembly(dir):
		c.resynth = fmt.Sprintf("the gate's cdkd diff left no cloud assembly in %s", dir)
	case before.same(after):
		c.resynth = fmt.Sprintf("the cloud assembly in %s was not written by the gate's cdkd diff (it may be stale)", dir)
	default:
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		c.assembly = dir
	}
}

// synthesizedPath is where cdkd writes the assembly it synthesizes.
func (r *Env) synthesizedPath() string {
	return filepath.Join(r.cfg.WorkingDirectory, synthesizedDir)
}

// assemblyStamp is the state of an assembly's manifest, to tell whether a
// command rewrote it.
type assemblyStamp struct {
	exists bool
	mod    time.Time
	size   int64
}

func (a assemblyStamp) same(b assemblyStamp) bool {
	return a.exists == b.exists && a.size == b.size && a.mod.Equal(b.mod)
}

func stampAssembly(dir string) assemblyStamp {
	fi, err := os.Stat(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return assemblyStamp{}
	}
	return assemblyStamp{exists: true, mod: fi.ModTime(), size: fi.Size()}
}
