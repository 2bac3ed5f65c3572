package deploy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
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
func (d *run) hasSecretPositions(ctx context.Context, stack, region string) bool {
	if d.Opts.Fingerprints.Records(ctx) == nil || d.Opts.Secrets.Assembly == nil {
		return false
	}
	st, ok := d.Opts.Secrets.Assembly.StackIn(stack, d.Opts.Secrets.Region(stack, region))
	return ok && len(st.Positions) > 0
}

// recordFingerprints writes, after a deploy, the fingerprint of each secret
// position whose value reached AWS in it: its resource was created or
// updated in this deploy's events. A position whose resource was unchanged
// keeps the fingerprint recorded before, and so does a create-only
// property AWS never reports when cdkd kept the resource (cdkd did not
// apply the value; the next diff still says "changed, not applied"). A
// failure is a warning: the deploy itself is over.
func (d *run) recordFingerprints(ctx context.Context, cur *gate.Current) {
	r := d.Opts
	fp := r.Fingerprints.Records(ctx)
	if fp == nil {
		return
	}
	if fp.Off != "" {
		r.Log.Warning("fingerprints were not recorded: " + fp.Off)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, fingerprintTimeout)
	defer cancel()
	for _, ds := range d.Rep.Stacks {
		if !d.plan.deploys(ds.Stack) {
			continue // not deployed: its fingerprints stand
		}
		region := r.Secrets.Region(ds.Stack, ds.Region)
		st, ok := r.Secrets.Assembly.StackIn(ds.Stack, region)
		if !ok {
			continue
		}
		slots := r.Fingerprints.Slots(st, region)
		if len(slots) == 0 {
			continue
		}
		changes := changesOf(cur, ds.Stack, ds.Region)
		rec, reason := fp.Load(ctx, st.Name, region)
		updates := fingerprint.NewRecord(st.Name, region)
		updates.KeyID = fp.Hasher.KeyID()
		var unrecorded fingerprint.Unrecorded
		noEvents := d.noEvents[ds.Stack+"\x00"+ds.Region]
		var applied []*fingerprints.Slot
		var items []fingerprint.Item
		for _, s := range slots {
			switch {
			case !s.Known:
				unrecorded.Add("its value is not known to this run: "+s.Why, s.Pos, rec)
				continue
			case noEvents != "":
				// What no deploy can apply is said whatever the events.
				d.warnNotApplied(ctx, fp, st.Name, s, rec, changes)
				unrecorded.Add(noEvents, s.Pos, rec)
				continue
			case !d.applied(fp, s, ds, changes):
				d.warnNotApplied(ctx, fp, st.Name, s, rec, changes)
				unrecorded.Add("this deploy did not create or update its resource", s.Pos, rec)
				continue
			}
			applied = append(applied, s)
			items = append(items, fingerprint.Item{Position: s.Pos, Value: s.Value})
		}
		// Hash on every core at once; Fingerprint below finds them memoised
		// and reports a failure per position.
		r.Fingerprints.SayHashing(fp.Hasher, items)
		_, _ = fp.Hasher.All(ctx, items)
		for _, s := range applied {
			f, err := fp.Hasher.Fingerprint(ctx, s.Pos, s.Value)
			if err != nil {
				r.Log.Warning(fmt.Sprintf("fingerprint %s: %v", r.Secrets.Set.Redact(s.Pos.String()), err))
				unrecorded.Add(fmt.Sprintf("its fingerprint could not be computed (%v)", err), s.Pos, rec)
				continue
			}
			updates.Positions[s.Pos.Key()] = fingerprint.Entry{Position: s.Pos, Source: r.Secrets.Set.Redact(strings.Join(s.Sources, " + ")), Fingerprint: f}
		}
		for _, w := range unrecorded.Warnings(st.Name, noEvents != "") {
			d.Rep.Warnings = append(d.Rep.Warnings, w)
			r.Log.Warning(r.Secrets.Set.Redact(w))
		}
		if len(updates.Positions) == 0 {
			continue
		}
		if reason == "" && rec != nil && rec.KeyID != updates.KeyID {
			w := fmt.Sprintf("The fingerprints of %s were recorded %s: the positions this deploy applied are recorded again; the others stay unknown until a deploy applies them.",
				r.Secrets.Set.Redact(st.Name), fingerprint.KeyChange(rec.KeyID, updates.KeyID))
			d.Rep.Warnings = append(d.Rep.Warnings, w)
			r.Log.Warning(w)
		}
		key := fp.ObjectKey(st.Name, region)
		if err := fingerprint.Save(ctx, fp.Store, key, updates); err != nil {
			r.Log.Warning(fmt.Sprintf("record the fingerprints of %s: %v", r.Secrets.Set.Redact(st.Name), err))
			continue
		}
		r.Log.Notice(fmt.Sprintf("recorded the fingerprints of %d secret position(s) of %s in s3://%s/%s", len(updates.Positions), r.Secrets.Set.Redact(st.Name), fp.Bucket, key))
	}
}

// warnNotApplied says, in the deploy report, that a changed value did not
// reach AWS in this deploy: a create-only property AWS never reports (cdkd
// kept the resource), or a value rotated behind an unchanged reference
// (cdkd compares the reference text); or that whether it did is unknown.
func (d *run) warnNotApplied(ctx context.Context, fp *fingerprints.Records, stack string, s *fingerprints.Slot, rec *fingerprint.Record, changes map[string]*model.ResourceChange) {
	dec := fp.Effect(s, changes[s.Pos.LogicalID])
	if dec.Effect.AppliedByUpdate() {
		return
	}
	if st, _ := fp.Hasher.Compare(ctx, rec.Lookup(s.Pos), s.Pos, s.Value); st != fingerprint.StatusChanged {
		return
	}
	v := model.SecretValue{LogicalID: s.Pos.LogicalID, Path: s.Pos.Path, ResourceType: s.ResourceType, Source: strings.Join(s.Sources, " + "),
		Status: model.FingerprintChanged, Effect: dec.Effect, Remedy: dec.Remedy, Stateful: dec.Stateful}
	w := reporters.SecretLeftBehind(stack, v)
	if dec.Effect == model.EffectReferenceResourceUpdated {
		w = fmt.Sprintf("%s: whether this deploy applied the changed secret value at %s.%s (%s) is unknown: cdkd updated the resource for another change, and compares the reference text, which is unchanged; its fingerprint is not recorded, so the next diff still reports it changed.",
			stack, v.LogicalID, v.Path, v.Source)
	}
	w = d.Opts.Secrets.Set.Redact(w)
	d.Rep.Warnings = append(d.Rep.Warnings, w)
	d.Opts.Log.Warning(w)
}

// applied reports whether the value at s reached AWS in this deploy.
func (d *run) applied(fp *fingerprints.Records, s *fingerprints.Slot, ds reporters.DeployedStack, changes map[string]*model.ResourceChange) bool {
	if s.Pos.Kind == fingerprint.KindOutput {
		return d.Rep.Outcome == reporters.OutcomeDeployed
	}
	for _, res := range ds.Resources {
		if res.LogicalID != s.Pos.LogicalID {
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
			return fp.Effect(s, changes[s.Pos.LogicalID]).Effect.AppliedByUpdate()
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
