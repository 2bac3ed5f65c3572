package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
)

// SynthesizedDir is where cdkd writes the cloud assembly it synthesizes,
// relative to the working directory.
const SynthesizedDir = "cdk.out"

// NoAssemblyNote tells a reader of the diff report that NoEcho values may
// show in it, and what to do about it.
const NoAssemblyNote = "NoEcho positions are unknown: no cloud assembly was found (the app input is not one, and the working directory has no cdk.out), " +
	"so every changed value is hidden (*** · 🔒 unknown position): whether it is secret cannot be decided. " +
	"To see them, synthesize the app in an earlier step and pass the assembly directory (e.g. cdk.out) as app."

// LateAssembly reads, when the app input named no cloud assembly, the one
// cdkd synthesized into <working-directory>/cdk.out (or one an earlier step
// left there for from-json), and discovers its secrets. cdkd's diff is
// captured, not logged, so the assembly's positions and values still hide
// its NoEcho values (which cdkd 0.284 prints in plaintext) before anything
// renders. Without any assembly the diff report gets a note saying so.
//
// cdkd's stderr was held back while it ran (see cdkdexec.Executor.RunHeld) and is
// printed once the diff is redacted; passing the assembly as app is still
// the complete fix: its secrets are known (redacted and masked) before cdkd runs.
//
// drift calls it before cdkd runs (drift does not synthesize, so a cdk.out
// present then was left by an earlier step) and reports a missing assembly
// its own way (the diff report's note is the diff's: see the diff command).
func (s *Session) LateAssembly(ctx context.Context) {
	if s.Assembly != nil || s.lateTried {
		return
	}
	s.lateTried = true
	dir := filepath.Join(s.Config.WorkingDirectory, SynthesizedDir)
	if !assembly.IsAssembly(dir) {
		return
	}
	asm, err := assembly.Load(dir)
	if err != nil {
		s.Log.Warning(fmt.Sprintf("read the cloud assembly in %s to find secret positions: %v", dir, err))
		return
	}
	s.Assembly = asm
	s.WarnDiscovery(s.discoverSecrets(ctx))
}
