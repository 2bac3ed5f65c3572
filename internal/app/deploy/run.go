package deploy

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/par"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// runStartTolerance is how much earlier than our own reading of the clock
// a run may be stamped and still be the one our deploy started (cdkd
// stamps runs with the same machine's clock; this covers rounding).
const runStartTolerance = 2 * time.Second

// apply runs `cdkd deploy` on the change set the gate let through, then
// reads back what it did.
func (d *run) apply(ctx context.Context, dec gate.Decision) {
	r := d.Opts
	common := r.Cdkd.Common()
	switch {
	case d.Changes.Assembly != "":
		common.App = d.Changes.Assembly
		note := fmt.Sprintf("cdkd deploy reads the cloud assembly the gate's diff synthesized (%s), so it deploys exactly the templates that were compared.", d.Changes.Assembly)
		d.Rep.Message = strings.TrimSpace(d.Rep.Message + " " + note)
		r.Log.Notice(note)
	case d.Changes.Resynth != "":
		w := "cdkd deploy synthesizes the app again: " + d.Changes.Resynth + "; if the synth is not deterministic, what is deployed may differ from what was compared. Synthesize in an earlier step and pass the assembly directory as app."
		d.Rep.Warnings = append(d.Rep.Warnings, w)
		r.Log.Warning(w)
	}
	if dec.Current != nil {
		if scope := changeset.DeployScope(r.Config, r.Secrets.Assembly, dec.Current.Diff); scope != "" {
			d.Rep.Message = strings.TrimSpace(d.Rep.Message + " " + scope)
			r.Log.Notice(scope)
		}
	}
	if dec.Current != nil {
		d.plan.sel = d.selection(ctx, dec.Current.Diff)
		switch {
		case d.plan.sel.Unnamed != "":
			// The inputs' selection, as the diff ran it: no name to pass.
		case len(d.plan.sel.Stacks) == 0:
			d.nothingToDeploy(dec.Current)
			return
		default:
			common.All, common.Stacks = false, d.plan.sel.Stacks // with --exclusively
		}
	}
	args, err := cdkd.DeployArgs(common)
	if err != nil {
		d.Failed(reason.DeployFailed, "cdkd deploy could not start", err.Error(), nil)
		return
	}
	if r.Config.CLI.DryRun {
		d.dryRunArgs = args
		return
	}
	d.startDeployment(ctx)
	runner := r.Cdkd.Runner()
	runner.KillGrace = cmp.Or(r.Cdkd.KillGrace, deployKillGrace)
	runner.StdoutTail = cdkd.DeployStdoutTail
	started := time.Now()
	res, runErr := d.runDeploy(ctx, runner, args) // bounded by timeout-minutes
	run := cdkd.ClassifyDeploy(res)
	switch {
	case res.TimedOut || res.Cancelled || run.Cancelled:
		// No results: a cancelled job has seconds left, and they go to
		// the report.
		d.Stopped(res, d.plan.targets(dec.Current))
		d.Rep.StderrTail = res.StderrTail
		d.Rep.Stacks = inFlight(res, dec.Current)
		return
	case res.Signal != "":
		// Killed (OOM, a crash): the lock was left as it was.
		d.Rep.Outcome, d.Rep.Reason, d.Rep.Title = reporters.OutcomeFailed, reason.DeployFailed.String(), "cdkd deploy was killed"
		d.Rep.Message = run.Reason + ". " + cdkd.LockState(res, d.plan.targets(dec.Current))
		d.Rep.StderrTail = res.StderrTail
		d.Rep.Stacks = inFlight(res, dec.Current)
		d.Reason = reason.DeployFailed
		return
	case runErr != nil:
		d.Failed(reason.DeployFailed, "cdkd deploy could not start", runErr.Error(), nil)
		return
	case run.Lock != nil:
		l := *run.Lock
		d.Rep.Outcome, d.Rep.Reason, d.Rep.Title = reporters.OutcomeLocked, reason.StateLocked.String(), "State locked"
		d.Rep.Message = lockMessage(l)
		d.Rep.Lock = &reporters.DeployLock{Stack: l.Stack, Region: l.Region, Owner: l.Owner, Operation: l.Operation,
			ExpiresIn: l.ExpiresIn, Unlock: cdkd.ForceUnlockCommand(l.Stack, l.Region)}
		// No stderr tail: cdkd's own hint there names a flag that does not
		// exist; the report gives the command that works.
		d.Reason = reason.StateLocked
		return
	case run.Partial:
		d.Rep.Outcome, d.Rep.Reason, d.Rep.Title = reporters.OutcomePartial, reason.Partial.String(), "Partially deployed"
		d.Rep.Message = "cdkd left some resources unaddressed (exit 2): " + run.Reason
		d.Rep.StderrTail = res.StderrTail
		d.Reason = reason.Partial
	case run.OK:
		d.Rep.Outcome = reporters.OutcomeDeployed
	default:
		d.Rep.Outcome, d.Rep.Reason, d.Rep.Title = reporters.OutcomeFailed, reason.DeployFailed.String(), "cdkd deploy failed"
		d.Rep.Message = run.Reason // the title says "cdkd deploy failed"
		d.Rep.StderrTail = res.StderrTail
		d.Reason = reason.DeployFailed
	}
	d.Rep.Stacks = d.results(ctx, dec.Current, run, started)
	d.recordFingerprints(ctx, dec.Current)
}

// runDeploy streams both of deploy's streams (its progress is on stdout)
// redacted, line by line, inside stop-commands. Stdout first passes a
// filter that hides the value of each secret stack output deploy prints.
func (d *run) runDeploy(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	stdout := secrets.NewLooseLineWriter(d.Opts.Out, d.Opts.Secrets.Set)
	secret := func(stack, output string) bool {
		return redact.SecretOutputNamed(d.Opts.Secrets.Assembly, stack, output)
	}
	declared := func(stack, output string) bool { return redact.OutputDeclared(d.Opts.Secrets.Assembly, stack, output) }
	filter := &outputFilter{dst: stdout, log: redact.OutputLog{Secret: secret, Declared: declared, Set: d.Opts.Secrets.Set}}
	runner.Stdout = filter
	res, err := d.Opts.Cdkd.Run(ctx, runner, args)
	filter.Close()
	stdout.Close()
	d.Opts.Secrets.RegisterMasks() // the values the filter found, now outside stop-commands
	return res, err
}

// outputFilter passes cdkd deploy's live stdout through redact.OutputLog,
// which hides the value of each secret stack output. Write expects what
// cdkd.Runner gives it, one line per Write, but holds back a partial line
// until its end or Close.
type outputFilter struct {
	dst     io.Writer
	log     redact.OutputLog
	pending []byte
}

func (f *outputFilter) Write(p []byte) (int, error) {
	f.pending = append(f.pending, p...)
	for {
		i := bytes.IndexByte(f.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(f.pending[:i+1])
		f.pending = f.pending[i+1:]
		if err := f.line(line); err != nil {
			return len(p), err
		}
	}
}

// Close passes on a partial last line. It does not close dst.
func (f *outputFilter) Close() error {
	if len(f.pending) == 0 {
		return nil
	}
	line := string(f.pending)
	f.pending = nil
	return f.line(line)
}

func (f *outputFilter) line(line string) error {
	for _, out := range f.log.Line(line) {
		if _, err := io.WriteString(f.dst, out); err != nil {
			return err
		}
	}
	return nil
}

func lockMessage(l cdkd.LockInfo) string {
	d := l.Describe()
	return strings.ToUpper(d[:1]) + d[1:] + ". Nothing was deployed. If no job holds the lock any more, release it with `" + cdkd.ForceUnlockCommand(l.Stack, l.Region) + "`."
}

// target is one stack whose results are read back.
type target struct {
	name, region string
	changed      bool
	summary      *cdkd.StackSummary
}

// targets are the top-level stacks of the change set, and any other stack
// the deploy printed a summary for.
func targets(cur *gate.Current, summaries []cdkd.StackSummary) []target {
	var out []target
	seen := map[string]bool{}
	if cur != nil {
		for _, s := range cur.Diff.Stacks {
			// A name the redactor hid cannot be asked about.
			if strings.Contains(s.Stack, secrets.Replacement) || seen[s.Stack] {
				continue
			}
			seen[s.Stack] = true
			out = append(out, target{name: s.Stack, region: s.Region, changed: changeset.Changes(s)})
		}
	}
	for i := range summaries {
		s := &summaries[i]
		if !seen[s.Stack] {
			seen[s.Stack] = true
			out = append(out, target{name: s.Stack, changed: true})
		}
	}
	for i := range out {
		for k := range summaries {
			if summaries[k].Stack == out[i].name {
				out[i].summary = &summaries[k]
			}
		}
	}
	slices.SortStableFunc(out, func(a, b target) int { return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.region, b.region)) })
	return out
}

// results reads back, per stack, what the run did (its events) and the
// outputs now in state, several stacks at once (readBackParallelism). Only
// a stack that changed, or has secret positions whose fingerprints are
// recorded, has its events read; an unchanged stack's outputs come from
// the deploy's own log when it printed them, else from state. A failure
// to read is a warning: the deploy itself is already over.
func (d *run) results(ctx context.Context, cur *gate.Current, run cdkd.DeployRun, started time.Time) []reporters.DeployedStack {
	ts := targets(cur, run.Summaries)
	if d.plan.sel != nil && d.plan.sel.Unnamed == "" {
		for i := range ts {
			// Read back exactly the stacks cdkd deploy was given: an
			// importer deployed with its exporter changes, its empty diff
			// notwithstanding.
			ts[i].changed = d.plan.deploys(ts[i].name)
		}
	}
	out := make([]reporters.DeployedStack, len(ts))
	read := make([]bool, len(ts))
	par.Bounded(ctx, len(ts), readBackParallelism(), func(i int) {
		t := ts[i]
		ds := reporters.DeployedStack{Stack: t.name, Region: t.region}
		if s := t.summary; s != nil {
			ds.Created, ds.Updated, ds.Deleted, ds.Unchanged, ds.Duration = s.Created, s.Updated, s.Deleted, s.Unchanged, s.Duration
		}
		switch {
		case !d.plan.deploys(t.name):
			// Not deployed: no run to read, and its outputs are what they
			// were, read only when environment-url-output may name one.
			ds.Note = unchangedNote
			if urlMayBeIn(d.Opts.Config.EnvironmentURLOutput, t.name) {
				ds.Outputs = d.stackOutputs(ctx, t)
			}
		case t.changed || d.hasSecretPositions(ctx, t.name, t.region):
			if !d.events(ctx, t, started, &ds) {
				// Never "no resource changed" for a fact not known.
				ds.ChangesUnknown = true
				ds.Note = strings.TrimSpace(ds.Note + " What this run changed in " + t.name + " could not be read; " + findOut(t.name, t.region))
			}
			ds.Outputs = d.stackOutputs(ctx, t)
		default:
			ds.Note = "No changes in the reviewed change set."
			ds.Outputs = d.unchangedOutputs(ctx, t)
		}
		out[i], read[i] = ds, true
	})
	kept := out[:0]
	for i := range out {
		if read[i] { // a cancelled read leaves the rest out, as before
			kept = append(kept, out[i])
		}
	}
	return kept
}

// events reads the run this deploy started: the newest deploy run of the
// stack that started after the deploy did. It reports whether what the run
// did is known (false: the events could not be read).
func (d *run) events(ctx context.Context, t target, started time.Time, ds *reporters.DeployedStack) bool {
	r := d.Opts
	unknown := func(why string) {
		d.noEventsMu.Lock()
		defer d.noEventsMu.Unlock()
		if d.noEvents == nil {
			d.noEvents = map[string]string{}
		}
		d.noEvents[t.name+"\x00"+t.region] = why
	}
	rb, region := r.Cdkd.ReadBack(ctx), r.Cdkd.KnownRegion(t.name, t.region)
	list, err := rb.Runs(ctx, t.name, region)
	if err != nil {
		r.Log.Warning(fmt.Sprintf("read the deploy events of %s: %v", t.name, err))
		unknown(fmt.Sprintf("its deploy events could not be read (%v)", err))
		return false
	}
	since := started.Add(-runStartTolerance)
	summary, ok := list.Since("deploy", since)
	if !ok {
		ds.Note = "cdkd recorded no run of this deploy for this stack."
		unknown(fmt.Sprintf("cdkd events lists no deploy run of %s that started after this deploy began (%s)%s",
			t.name, since.UTC().Format(time.RFC3339), newestRun(list)))
		return true
	}
	events, err := rb.RunEvents(ctx, t.name, region, summary.RunID)
	if err != nil {
		r.Log.Warning(fmt.Sprintf("read the events of run %s of %s: %v", summary.RunID, t.name, err))
		unknown(fmt.Sprintf("the events of its run %s could not be read (%v)", summary.RunID, err))
		return false
	}
	o := cdkd.SummarizeRun(events)
	ds.Result = o.Result
	ds.Created, ds.Updated, ds.Deleted, ds.Failed = 0, 0, 0, 0
	for _, res := range o.Resources {
		switch res.Result {
		case cdkd.ResultCreated:
			ds.Created++
		case cdkd.ResultUpdated:
			ds.Updated++
		case cdkd.ResultDeleted:
			ds.Deleted++
		case cdkd.ResultFailed:
			ds.Failed++
		}
		dr := reporters.DeployedResource{LogicalID: res.LogicalID, Type: res.ResourceType, Result: res.Result, Error: res.Error}
		if res.HasDuration {
			dr.Duration = reporters.Duration(res.Duration)
		}
		ds.Resources = append(ds.Resources, dr)
	}
	if o.HasDuration {
		ds.Duration = reporters.Duration(o.Duration)
	}
	if o.RolledBack {
		ds.Note = "The run rolled back."
	}
	return true
}

// newestRun names, for a reader wondering why no run matched, the newest
// deploy run a stack's events list.
func newestRun(list cdkd.RunList) string {
	newest, at := "", time.Time{}
	for _, r := range list.Runs {
		t, err := time.Parse(time.RFC3339Nano, r.StartedAt)
		if r.Command == "deploy" && err == nil && t.After(at) {
			newest, at = r.RunID, t
		}
	}
	if newest == "" {
		return "; it lists no deploy run at all"
	}
	return fmt.Sprintf("; the newest, %s, started at %s", newest, at.UTC().Format(time.RFC3339))
}

// stackOutputs reads the stack's outputs from state, as they are: the
// redaction stage (redact.Deploy) hides an output the assembly marks secret
// (a NoEcho or secret reference position) and redacts the rest by value. A
// secret output's value is registered now, so that nothing cdkd prints
// before the stage runs shows it. A stack whose outputs were read has a
// list, if empty.
func (d *run) stackOutputs(ctx context.Context, t target) []reporters.StackOutput {
	r := d.Opts
	values := map[string]string{}
	st, err := r.Cdkd.ReadBack(ctx).State(ctx, t.name, r.Cdkd.KnownRegion(t.name, t.region))
	switch {
	case err == nil:
		for k, v := range st.Outputs {
			values[k] = v.Text()
		}
	case t.summary != nil:
		r.Log.Warning(fmt.Sprintf("read the state of %s: %v; its outputs are taken from the deploy's log", t.name, err))
		values = t.summary.Outputs
	default:
		r.Log.Warning(fmt.Sprintf("read the state of %s: %v", t.name, err))
		return nil
	}
	return d.outputList(t, values)
}

// unchangedOutputs are the outputs of a stack the deploy left unchanged:
// the ones cdkd printed in its summary, without a cdkd call, or from state
// when it printed none.
func (d *run) unchangedOutputs(ctx context.Context, t target) []reporters.StackOutput {
	if t.summary == nil || len(t.summary.Outputs) == 0 {
		return d.stackOutputs(ctx, t)
	}
	return d.outputList(t, t.summary.Outputs)
}

// outputList lists a stack's outputs by name, registering the value of
// each secret one.
func (d *run) outputList(t target, values map[string]string) []reporters.StackOutput {
	r := d.Opts
	out := make([]reporters.StackOutput, 0, len(values))
	for _, name := range slices.Sorted(maps.Keys(values)) {
		v := values[name]
		secret := redact.SecretOutput(r.Secrets.Positions(), t.name, t.region, name)
		if secret {
			d.registerSecret(v, "secret output "+t.name+"."+name)
		}
		out = append(out, reporters.StackOutput{Name: name, Value: v, Secret: secret})
	}
	return out
}

// registerSecret makes a value found late (a secret output's) hidden from
// now on: by the redactor, and by the runner in its own log (the set
// decides which of its lines the runner may be given).
func (d *run) registerSecret(v, source string) {
	if d.Opts.Secrets.Set.Add(v, source) {
		d.maskMu.Lock() // results reads stacks in parallel
		defer d.maskMu.Unlock()
		d.Opts.Secrets.RegisterMasks()
	}
}

// inFlight is what a deploy stopped or killed midway did, per stack, as
// far as its log tells: the resources it printed as done. What was in
// flight is not in the log, so every stack it began changing is marked
// ChangesUnknown, with the commands that tell.
func inFlight(res cdkd.Result, cur *gate.Current) []reporters.DeployedStack {
	regions := map[string]string{}
	if cur != nil {
		for _, s := range cur.Diff.Stacks {
			regions[s.Stack] = s.Region
		}
	}
	var out []reporters.DeployedStack
	for _, p := range cdkd.DeployProgress(res.Stdout) {
		if !p.Started {
			continue
		}
		region := regions[p.Stack]
		out = append(out, reporters.DeployedStack{
			Stack: p.Stack, Region: region,
			Created: p.Created, Updated: p.Updated, Deleted: p.Deleted, Failed: p.Failed,
			ChangesUnknown: true,
			Note: "cdkd did not finish deploying " + p.Stack + ": the counts are the resources its log shows done, and what was in flight is not known; " +
				findOut(p.Stack, region),
		})
	}
	return out
}

// findOut is the one wording of how to learn what a run did to a stack.
func findOut(stack, region string) string {
	flag := ""
	if region != "" {
		flag = " --stack-region " + region
	}
	return "`cdkd events " + stack + flag + "` shows what the run did and `cdkd state show " + stack + flag + "` what the stack holds now."
}
