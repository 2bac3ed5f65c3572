package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// fingerprintTimeout bounds reading or writing the fingerprint records of
// one run: the deploy is over by then, and a hung bucket must not hold the
// job.
const fingerprintTimeout = 2 * time.Minute

// hasSecretPositions reports whether a stack has positions a secret fills:
// its deploy events are needed to record their fingerprints even when
// cdkd's diff showed no change (cdkd cannot see a NoEcho value change).
func (r *Env) hasSecretPositions(ctx context.Context, stack, region string) bool {
	if r.fingerprints(ctx) == nil || r.asm == nil {
		return false
	}
	st, ok := r.asm.StackIn(stack, r.region(stack, region))
	return ok && len(st.Positions) > 0
}

// recordFingerprints writes, after a deploy, the fingerprint of each secret
// position whose value reached AWS in it: its resource was created or
// updated in this deploy's events. A position whose resource was unchanged
// keeps the fingerprint recorded before, and so does a create-only
// property AWS never reports when cdkd kept the resource (cdkd did not
// apply the value; the next diff still says "changed, not applied"). A
// failure is a warning: the deploy itself is over.
func (d *deployRun) recordFingerprints(ctx context.Context, cur *gate.Current) {
	r := d.r
	fp := r.fingerprints(ctx)
	if fp == nil {
		return
	}
	if fp.off != "" {
		r.runner.Warning("fingerprints were not recorded: " + fp.off)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, fingerprintTimeout)
	defer cancel()
	for _, ds := range d.rep.Stacks {
		region := r.region(ds.Stack, ds.Region)
		st, ok := r.asm.StackIn(ds.Stack, region)
		if !ok {
			continue
		}
		slots := r.slots(st, region)
		if len(slots) == 0 {
			continue
		}
		changes := changesOf(cur, ds.Stack, ds.Region)
		rec, reason := fp.load(ctx, st.Name, region)
		updates := fingerprint.NewRecord(st.Name, region)
		updates.KeyID = fp.hasher.KeyID()
		var unrecorded fingerprint.Unrecorded
		noEvents := d.noEvents[ds.Stack+"\x00"+ds.Region]
		var applied []*slot
		var items []fingerprint.Item
		for _, s := range slots {
			switch {
			case !s.known:
				unrecorded.Add("its value is not known to this run: "+s.why, s.pos, rec)
				continue
			case noEvents != "":
				// What no deploy can apply is said whatever the events.
				d.warnNotApplied(ctx, fp, st.Name, s, rec, changes)
				unrecorded.Add(noEvents, s.pos, rec)
				continue
			case !d.applied(fp, s, ds, changes):
				d.warnNotApplied(ctx, fp, st.Name, s, rec, changes)
				unrecorded.Add("this deploy did not create or update its resource", s.pos, rec)
				continue
			}
			applied = append(applied, s)
			items = append(items, fingerprint.Item{Position: s.pos, Value: s.value})
		}
		// Hash on every core at once; Fingerprint below finds them memoised
		// and reports a failure per position.
		_, _ = fp.hasher.All(ctx, items)
		for _, s := range applied {
			f, err := fp.hasher.Fingerprint(ctx, s.pos, s.value)
			if err != nil {
				r.runner.Warning(fmt.Sprintf("fingerprint %s: %v", r.set.Redact(s.pos.String()), err))
				unrecorded.Add(fmt.Sprintf("its fingerprint could not be computed (%v)", err), s.pos, rec)
				continue
			}
			updates.Positions[s.pos.Key()] = fingerprint.Entry{Position: s.pos, Source: r.set.Redact(strings.Join(s.sources, " + ")), Fingerprint: f}
		}
		for _, w := range unrecorded.Warnings(st.Name, noEvents != "") {
			d.rep.Warnings = append(d.rep.Warnings, w)
			r.runner.Warning(r.set.Redact(w))
		}
		if len(updates.Positions) == 0 {
			continue
		}
		if reason == "" && rec != nil && rec.KeyID != updates.KeyID {
			w := fmt.Sprintf("The fingerprints of %s were recorded %s: the positions this deploy applied are recorded again; the others stay unknown until a deploy applies them.",
				r.set.Redact(st.Name), fingerprint.KeyChange(rec.KeyID, updates.KeyID))
			d.rep.Warnings = append(d.rep.Warnings, w)
			r.runner.Warning(w)
		}
		key := fp.key(st.Name, region)
		if err := fingerprint.Save(ctx, fp.store, key, updates); err != nil {
			r.runner.Warning(fmt.Sprintf("record the fingerprints of %s: %v", r.set.Redact(st.Name), err))
			continue
		}
		r.runner.Notice(fmt.Sprintf("recorded the fingerprints of %d secret position(s) of %s in s3://%s/%s", len(updates.Positions), r.set.Redact(st.Name), fp.bucket, key))
	}
}

// warnNotApplied says, in the deploy report, that a changed value did not
// reach AWS in this deploy: a create-only property AWS never reports (cdkd
// kept the resource), or a value rotated behind an unchanged reference
// (cdkd compares the reference text); or that whether it did is unknown.
func (d *deployRun) warnNotApplied(ctx context.Context, fp *fpRun, stack string, s *slot, rec *fingerprint.Record, changes map[string]*model.ResourceChange) {
	dec := fp.effect(s, changes[s.pos.LogicalID])
	if dec.Effect.AppliedByUpdate() {
		return
	}
	if st, _ := fp.hasher.Compare(ctx, rec.Lookup(s.pos), s.pos, s.value); st != fingerprint.StatusChanged {
		return
	}
	v := model.SecretValue{LogicalID: s.pos.LogicalID, Path: s.pos.Path, ResourceType: s.resourceType, Source: strings.Join(s.sources, " + "),
		Status: model.FingerprintChanged, Effect: dec.Effect, Remedy: dec.Remedy, Stateful: dec.Stateful}
	w := reporters.SecretLeftBehind(stack, v)
	if dec.Effect == model.EffectReferenceResourceUpdated {
		w = fmt.Sprintf("%s: whether this deploy applied the changed secret value at %s.%s (%s) is unknown: cdkd updated the resource for another change, and compares the reference text, which is unchanged; its fingerprint is not recorded, so the next diff still reports it changed.",
			stack, v.LogicalID, v.Path, v.Source)
	}
	w = d.r.set.Redact(w)
	d.rep.Warnings = append(d.rep.Warnings, w)
	d.r.runner.Warning(w)
}

// applied reports whether the value at s reached AWS in this deploy.
func (d *deployRun) applied(fp *fpRun, s *slot, ds reporters.DeployedStack, changes map[string]*model.ResourceChange) bool {
	if s.pos.Kind == fingerprint.KindOutput {
		return d.rep.Outcome == reporters.OutcomeDeployed
	}
	for _, res := range ds.Resources {
		if res.LogicalID != s.pos.LogicalID {
			continue
		}
		switch res.Result {
		case cdkd.ResultCreated:
			return true
		case cdkd.ResultUpdated:
			// An update does not apply a create-only value AWS never
			// reports (cdkd kept the resource), nor a value behind an
			// unchanged reference (cdkd compares the text); and whether
			// it carried such a value along with another change is not
			// known, so nothing is recorded.
			return fp.effect(s, changes[s.pos.LogicalID]).Effect.AppliedByUpdate()
		}
		return false
	}
	return false
}

// changesOf indexes the reviewed change set's changes of one stack.
func changesOf(cur *gate.Current, stack, region string) map[string]*model.ResourceChange {
	out := map[string]*model.ResourceChange{}
	if cur == nil {
		return out
	}
	for i := range cur.Diff.Stacks {
		s := &cur.Diff.Stacks[i]
		if s.Stack != stack || (region != "" && s.Region != "" && s.Region != region) {
			continue
		}
		for k := range s.Changes {
			out[s.Changes[k].LogicalID] = &s.Changes[k]
		}
	}
	return out
}
