package changeset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/gate"
)

// Current runs `cdkd diff` on what is being deployed and computes its
// digest exactly as the diff command does: redacted, sorted, digested (the
// gate's gate.ChangeSets).
type Current struct {
	Stage *Stage
	// Version is the version of the cdkd that ran ("" before, or unknown).
	Version string
	// Assembly is the cloud assembly the gate's diff synthesized, when app
	// is a command: cdkd deploy reads it rather than synthesizing again, so
	// it deploys exactly the templates that were compared ("" when app is
	// already an assembly, or the diff left none).
	Assembly string
	// Resynth says why cdkd deploy synthesizes again although app is a
	// command, "" when it does not.
	Resynth string
}

var _ gate.ChangeSets = (*Current)(nil)

// ChangeSet is the change set being deployed, as the gate compares it.
func (c *Current) ChangeSet(ctx context.Context, layout int) (gate.Current, error) {
	st := c.Stage
	before := stampAssembly(st.synthesizedPath())
	d, version, err := st.Obtain(ctx)
	c.Version = version
	if err != nil {
		return gate.Current{}, err
	}
	c.pinAssembly(before)
	_, unverifiable := st.Redact(ctx, &d, layout)
	st.Security(ctx, &d) // as the diff does: the rows are in the digest
	d.Sort()
	return gate.Current{Diff: d, Digest: d.Digest(), Unverifiable: unverifiable, KeyID: st.Fingerprints.TokenKeyID(ctx), CdkdVersion: version}, nil
}

// pinAssembly decides what cdkd deploy reads. With app a command, cdkd
// synthesizes on each run, and a synth that is not deterministic (a
// timestamp, a lookup, a random name) would let the deploy apply templates
// other than the ones the gate just compared. So the assembly the gate's
// diff wrote to <working-directory>/cdk.out is deployed instead; one that
// the diff did not write (unchanged since before it ran) may be stale and
// is not used.
func (c *Current) pinAssembly(before assemblyStamp) {
	if c.Stage.Secrets.AssemblyDir() != "" {
		return // app is an assembly already: nothing is synthesized
	}
	dir := c.Stage.synthesizedPath()
	after := stampAssembly(dir)
	switch {
	case !after.exists || !assembly.IsAssembly(dir):
		c.Resynth = fmt.Sprintf("the gate's cdkd diff left no cloud assembly in %s", dir)
	case before.same(after):
		c.Resynth = fmt.Sprintf("the cloud assembly in %s was not written by the gate's cdkd diff (it may be stale)", dir)
	default:
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		c.Assembly = dir
	}
}

// synthesizedPath is where cdkd writes the assembly it synthesizes.
func (st *Stage) synthesizedPath() string {
	return filepath.Join(st.Config.WorkingDirectory, session.SynthesizedDir)
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
