package diff

import (
	"cmp"
	"context"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/par"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// secretValues fills each diffed stack's SecretValues: every position a
// NoEcho value or a resolved secret reference fills, and whether its value
// changed since the last deploy that applied it (changed / unchanged /
// unknown), with what the deploy will do about a change. cdkd itself
// cannot tell (it stores *** for a NoEcho value). Run it after the diff is
// redacted: every name it adds is redacted too.
func (r *run) secretValues(ctx context.Context, d *model.Diff) {
	fp := r.Fingerprints.Records(ctx)
	if fp == nil {
		return
	}
	type stackJob struct {
		diff   *model.StackDiff
		st     assembly.Stack
		region string
		slots  []*fingerprints.Slot
		rec    *fingerprint.Record
		reason string
	}
	var jobs []*stackJob
	var walk func(stacks []model.StackDiff, parent string)
	walk = func(stacks []model.StackDiff, parent string) {
		for i := range stacks {
			s := &stacks[i]
			if st, ok := r.diffedStack(s.Stack, s.Region, parent); ok {
				jobs = append(jobs, &stackJob{diff: s, st: st, region: r.Secrets.Region(st.Name, cmp.Or(s.Region, st.Region))})
			}
			name := s.Stack
			if parent != "" {
				name = parent + "~" + s.Stack
			}
			walk(s.Children, name)
		}
	}
	walk(d.Stacks, "")
	// Every stack's record is read side by side, then every value a record
	// has a fingerprint for is hashed at once, on every core: the
	// comparisons below find them memoised.
	par.Bounded(ctx, len(jobs), maxRecordReads, func(i int) {
		j := jobs[i]
		if j.slots = r.Fingerprints.Slots(j.st, j.region); len(j.slots) > 0 {
			j.rec, j.reason = fp.Load(ctx, j.st.Name, j.region)
		}
	})
	var items []fingerprint.Item
	for _, j := range jobs {
		if j.reason == "" {
			items = append(items, fp.Hashable(j.slots, j.rec)...)
		}
	}
	r.Fingerprints.SayHashing(fp.Hasher, items)
	_, _ = fp.Hasher.All(ctx, items) // errors surface again where the result is needed
	for _, j := range jobs {
		if len(j.slots) == 0 {
			continue
		}
		if j.reason == "" {
			r.noteKeyMismatch(fp, j.st.Name, j.rec)
		}
		j.diff.SecretValues = r.stackSecretValues(ctx, fp, j.st, j.slots, j.rec, j.reason, j.diff.Changes)
		j.diff.NoEchoReaders = model.UntoldNoEchoReaders(j.diff.NoEchoReaders, j.diff.SecretValues)
	}
}

// maxRecordReads bounds the fingerprint records a diff reads at once.
const maxRecordReads = 8

// diffedStack finds a diffed stack in the assembly; a nested stack may be
// named by its state name ("Parent~Child") or its logical id alone.
func (r *run) diffedStack(name, region, parent string) (assembly.Stack, bool) {
	if r.Secrets.Assembly == nil {
		return assembly.Stack{}, false
	}
	if st, ok := r.Secrets.Assembly.StackIn(name, region); ok || parent == "" {
		return st, ok
	}
	return r.Secrets.Assembly.StackIn(parent+"~"+name, region)
}

// stackSecretValues evaluates one stack's secret positions (slots) against
// its record; reason, when set, says why the record is unknown.
func (r *run) stackSecretValues(ctx context.Context, fp *fingerprints.Records, st assembly.Stack, slots []*fingerprints.Slot, rec *fingerprint.Record, reason string, changes []model.ResourceChange) []model.SecretValue {
	fp.Compare(ctx, slots, rec, reason)
	byID := map[string]*model.ResourceChange{}
	for i := range changes {
		byID[changes[i].LogicalID] = &changes[i]
	}
	red := r.Secrets.Set.Redact
	out := make([]model.SecretValue, 0, len(slots))
	for _, s := range slots {
		v := model.SecretValue{
			LogicalID: red(s.Pos.LogicalID), Output: red(s.Pos.Output), Path: red(s.Pos.Path),
			ResourceType: red(s.ResourceType), Status: s.Status, Reason: red(s.Reason),
		}
		for i, src := range s.Sources {
			if i > 0 {
				v.Source += " + "
			}
			v.Source += red(src)
		}
		if s.Status == model.FingerprintChanged {
			d := fp.Effect(s, byID[s.Pos.LogicalID])
			v.Effect, v.Remedy, v.Stateful = d.Effect, d.Remedy, d.Stateful
			if v.Warns() {
				r.Log.Warning(reporters.SecretLeftBehind(red(st.Name), v))
			}
		}
		out = append(out, v)
	}
	return out
}

// noteKeyMismatch tells the reader, once per stack, that the record was
// written with another fingerprint key, so its fingerprints are unknown.
func (r *run) noteKeyMismatch(fp *fingerprints.Records, stack string, rec *fingerprint.Record) {
	if rec == nil || rec.KeyID == fp.Hasher.KeyID() {
		return
	}
	note := fmt.Sprintf("The fingerprints of %s were recorded %s, so they are unknown until a deploy that creates or updates their resources records them again (a deploy that changes nothing records nothing).",
		r.Secrets.Set.Redact(stack), fingerprint.KeyChange(rec.KeyID, fp.Hasher.KeyID()))
	r.notes = append(r.notes, note)
	r.Log.Warning(note)
}
