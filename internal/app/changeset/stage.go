// Package changeset is the change set a diff reviews and a deploy is
// gated on, obtained and made safe the same way on both sides of the
// digest: cdkd's diff (or a saved one), redacted by position and by value,
// its created resources bound, its hidden-value tokens fingerprinted and its
// security rows filled. The diff, deploy, verify and aggregate commands
// use it alike.
package changeset

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/cdkdexec"
	"github.com/cdkd-action/cdkd-action/internal/app/fromjson"
	"github.com/cdkd-action/cdkd-action/internal/app/securitystage"
	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// StoreTimeout bounds writing or reading a change set kept in the state
// bucket (package reviewstore) because it did not fit in its comment.
const StoreTimeout = time.Minute

// Stage obtains and redacts change sets, with what it uses named.
type Stage struct {
	Config       *config.Config
	Secrets      *session.Session
	Cdkd         *cdkdexec.Executor
	Fingerprints *fingerprints.Run
	// Log is the step's log; its text passes the redactor.
	Log *workflow.Runner
	// FromJSON is the from-json input, read on first use.
	FromJSON func() *fromjson.File
}

// Security fills each stack's Security rows from a redacted diff (see
// package securitystage). The diff and the deploy gate call it alike, so
// the rows are the same on both sides of the digest.
func (st *Stage) Security(ctx context.Context, d *model.Diff) {
	securitystage.Stage{Assembly: st.Secrets.Assembly, Secrets: st.Secrets.Set, State: st.Cdkd.StackState}.Changes(ctx, d)
}

// Redact redacts a diff in place, fail closed, in five steps: it binds the
// properties of created resources, redacts by position and by value (see
// redact.Diff), makes what that learned hidden everywhere before anything
// else is printed, notes what it hid because it could not be placed (and
// the names a secret is part of), and fingerprints what it hid into the
// hidden-value tokens the digest covers. It
// returns the notes for the report; unverifiable, when set, says why the
// hidden values were not fingerprinted (it is among the notes).
//
// layout is the review layout the diff is redacted for (0: the latest): a
// deploy checking a review redacts as that review's diff did.
func (st *Stage) Redact(ctx context.Context, d *model.Diff, layout int) (notes []string, unverifiable string) {
	notes = st.bindCreates(d, reporters.LeafSecrecy(layout))
	if !reporters.LeafSecrecy(layout) {
		// That layout redacted inside public literals too (see
		// secrets.Set.Public): so does the rest of this run.
		st.Secrets.Set.ForgetPublic()
	}
	red := redact.Diff(d, redact.Input{Set: st.Secrets.Set, Positions: st.Secrets.Positions(), Leaves: reporters.LeafSecrecy(layout)})
	st.learned()
	_, unplaced := redact.UnplacedNotes(red.Unplaced, st.Secrets.Set, st.Secrets.Assembly != nil, "", "changed values")
	notes = append(notes, unplaced...)
	notes = append(notes, redact.NamedAfterNotes(red.NamedAfter, st.Secrets.Set)...)
	if reporters.LeafSecrecy(layout) {
		notes = append(notes, redact.OracleNotes(st.Secrets.Set, st.Secrets.SecretAssembly())...)
	}
	if unverifiable = st.fingerprintTokens(ctx, red.Hidden); unverifiable != "" {
		note := UnverifiableNote(unverifiable)
		st.Log.Warning(note)
		notes = append(notes, note)
	}
	return notes, unverifiable
}

// bindCreates binds created resources' properties from the assembly, so
// that they are redacted with the rest, and notes the creates it could not
// bind.
//
// leaves binds a property whose secret sits below it leaf by leaf (see
// assembly.Assembly.BindCreatesLeafByLeaf), for a layout that shows it so.
func (st *Stage) bindCreates(d *model.Diff, leaves bool) []string {
	bind := st.Secrets.Assembly.BindCreates
	if leaves {
		bind = st.Secrets.Assembly.BindCreatesLeafByLeaf
	}
	if bind(d) == 0 {
		return nil
	}
	// No count: an aggregate merges its shards' notes by their words.
	_, why := d.UnboundCreates()
	note := "Created resources are shown without their properties: " + why + ". A gated deploy refuses to create what its review did not bind (diff-unverifiable)."
	st.Log.Warning(note)
	return []string{note}
}

// learned registers the values the redaction hid by position, says what
// discovery learned late, and prints cdkd's output held back until now.
func (st *Stage) learned() {
	st.Secrets.RegisterMasks()
	st.Secrets.WarnDiscovery(discover.ShortWarnings(st.Secrets.Set))
	st.Cdkd.FlushHeld()
}

// fingerprintTokens fingerprints the hidden values into their hidden-value tokens;
// it says why they could not be, "" when every token carries one.
func (st *Stage) fingerprintTokens(ctx context.Context, hidden []redact.Hidden) string {
	var toks redact.Tokens
	toks.AddAll(hidden)
	return st.Fingerprints.FillTokens(ctx, &toks)
}

// Obtain reads from-json or runs cdkd diff; the error is cdkd's own
// reason.
func (st *Stage) Obtain(ctx context.Context) (model.Diff, string, error) {
	defer st.Secrets.LateAssembly(ctx) // before the caller redacts the diff: see session.Session.LateAssembly
	if st.Config.FromJSON != "" {
		d, err := st.FromJSON().Diff()
		if err == nil {
			err = fromjson.SelectDiff(st.Config.FromJSON, st.Config.Stacks, &d)
		}
		return d, "", err
	}
	runner := st.Cdkd.Runner()
	// A hung --version is a hung binary: the diff would hang too.
	if err := st.Cdkd.Unusable(); err != nil {
		return model.Diff{}, "", err
	}
	args, err := cdkd.DiffArgs(st.Cdkd.Common())
	if err != nil {
		return model.Diff{}, "", err
	}
	run := st.Cdkd.Run
	if st.Secrets.Assembly == nil {
		// cdkd synthesizes: what the assembly holds is known only after
		// it ran, so its log waits for the caller's Redact.
		run = st.Cdkd.RunHeld
	}
	res, err := run(ctx, runner, args)
	// The version, asked alongside the diff.
	version, verr := st.Cdkd.Version(ctx, runner)
	if verr != nil {
		if cdkdexec.Unusable(verr) {
			return model.Diff{}, "", verr
		}
		version = ""
	}
	if err != nil {
		return model.Diff{}, version, err
	}
	d, err := cdkd.ClassifyDiff(res)
	if err == nil && st.Secrets.Assembly == nil {
		err = st.stacksSynthesized(ctx, d)
	}
	return d, version, err
}

// stacksSynthesized refuses, once cdkd synthesized an app command, a
// stacks pattern that matched no stack: cdkd diffed the others and
// dropped it without a word. The assembly cdkd wrote to cdk.out is the
// list (display paths included); without one, the stacks cdkd's report
// names are, and a pattern with a / (a display path) cannot be checked.
func (st *Stage) stacksSynthesized(ctx context.Context, d model.Diff) error {
	if len(st.Config.Stacks) == 0 || st.Config.Shard != nil {
		return nil
	}
	st.Secrets.LateAssembly(ctx)
	if asm := st.Secrets.Assembly; asm != nil {
		return config.UnmatchedStacks(asm.Unmatched(st.Config.Stacks), "the cloud assembly cdkd synthesized", asm.TopNames())
	}
	names := make([]string, 0, len(d.Stacks))
	for _, s := range d.Stacks {
		names = append(names, s.Stack)
	}
	var byName, paths []string
	for _, p := range st.Config.Stacks {
		if strings.Contains(p, "/") {
			paths = append(paths, p)
		} else {
			byName = append(byName, p)
		}
	}
	if len(paths) > 0 {
		st.Log.Warning(fmt.Sprintf("stacks %s: a pattern with a / matches display paths, which cdkd's diff report does not name and no cloud assembly in %s shows, so whether it matched a stack is not checked (synthesize first and set app: cdk.out to have it checked)",
			strings.Join(paths, ", "), session.SynthesizedDir))
	}
	return config.UnmatchedStacks(assembly.UnmatchedNames(byName, names), "cdkd's diff", names)
}

// UnverifiableNote is what a diff's report says when the values behind its
// hidden values were not fingerprinted; why ends with what to do about it.
func UnverifiableNote(why string) string {
	return fmt.Sprintf("The hidden values cannot be verified, so a deploy of this change set is refused (%s): %s", reason.DiffUnverifiable, why)
}
