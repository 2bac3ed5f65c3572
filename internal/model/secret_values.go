package model

import "slices"

// FingerprintStatus is what a secret position's fingerprint says about its
// value since the last deploy that applied it.
type FingerprintStatus string

const (
	FingerprintChanged   FingerprintStatus = "changed"
	FingerprintUnchanged FingerprintStatus = "unchanged"
	// FingerprintUnknown: no fingerprint recorded yet, unreadable, or made with
	// another fingerprint-key.
	FingerprintUnknown FingerprintStatus = "unknown"
)

// SecretEffect is what the next deploy does with a changed secret value:
// what cdkd's diff shows, else cdkd's rules (a reference is compared by its
// text; a hidden NoEcho value by the seed's two questions, from
// CloudFormation's schema for the property). internal/secreteffect decides.
type SecretEffect string

const (
	// EffectUpdated: the property is updatable; the value is sent.
	EffectUpdated SecretEffect = "updated"
	// EffectCreated: the resource is created in this deploy, with the value.
	EffectCreated SecretEffect = "created"
	// EffectReplaced: the resource is replaced in this deploy anyway.
	EffectReplaced SecretEffect = "replaced"
	// EffectReplaceIfDiffers: create-only and reported by AWS: cdkd reads
	// AWS first and replaces the resource if it differs.
	EffectReplaceIfDiffers SecretEffect = "replace-if-differs"
	// EffectNotApplied: create-only and never reported: cdkd keeps the
	// resource and does NOT apply the value.
	EffectNotApplied SecretEffect = "not-applied"
	// EffectHandlerRuns: a custom resource's handler runs on every deploy.
	EffectHandlerRuns SecretEffect = "handler-runs"
	// EffectInCdkdDiff: cdkd's own diff shows the change (a reference
	// whose text changed; a NoEcho value cdkd 0.284 stores in plain text).
	EffectInCdkdDiff SecretEffect = "in-cdkd-diff"
	// EffectReferenceKept: the value behind an unchanged {{resolve:...}}
	// reference changed; cdkd compares the reference text, so a deploy does
	// NOT apply it.
	EffectReferenceKept SecretEffect = "reference-kept"
	// EffectReferenceResourceUpdated: as EffectReferenceKept, but cdkd
	// updates the resource for another change; whether the new value goes
	// with it is not known.
	EffectReferenceResourceUpdated SecretEffect = "reference-resource-updated"
	// EffectUnknown: the schema table does not know the type or property,
	// so what cdkd does is unknown: it decides when it reads AWS.
	EffectUnknown SecretEffect = "unknown"
)

// SecretRemedy is what puts a changed value into AWS when a deploy does not.
type SecretRemedy string

const (
	// RemedyDriftRevert: `cdkd drift --revert` pushes the referenced value
	// (an updatable property AWS reports).
	RemedyDriftRevert SecretRemedy = "drift-revert"
	// RemedyRecreate: recreating the resource (--recreate-via-cc-api or
	// --recreate-via-sdk-provider) applies a NoEcho value (the seed).
	RemedyRecreate SecretRemedy = "recreate"
	// RemedyChangeReference: new reference text (the secret's version
	// pinned) is a change cdkd's diff sees, so the deploy sends the value.
	RemedyChangeReference SecretRemedy = "change-reference"
)

// SecretValue is one position a NoEcho value or a resolved secret reference
// fills, and what its fingerprint says. It never holds the value.
type SecretValue struct {
	// LogicalID and Path locate a resource property; Output an output.
	LogicalID    string `json:"logicalId,omitempty"`
	Output       string `json:"output,omitempty"`
	Path         string `json:"path,omitempty"`
	ResourceType string `json:"resourceType,omitempty"`
	// Source names where the value comes from: "NoEcho parameter X" or a
	// {{resolve:...}} reference's spelling (template text, not the value).
	Source string            `json:"source"`
	Status FingerprintStatus `json:"status"`
	// Reason says why the status is unknown.
	Reason string `json:"reason,omitempty"`
	// Effect is set for a changed value.
	Effect SecretEffect `json:"effect,omitempty"`
	// Remedy is set when the deploy does not apply a changed value and
	// something cdkd does is known to.
	Remedy SecretRemedy `json:"remedy,omitempty"`
	// Stateful marks a type whose recreation destroys its data.
	Stateful bool `json:"stateful,omitempty"`
}

// Warns reports a change the deploy will not apply: a reviewer must act.
func (v SecretValue) Warns() bool {
	return v.Status == FingerprintChanged && v.Effect.LeavesBehind()
}

// LeavesBehind reports an effect under which the deploy does not apply
// the new value.
func (e SecretEffect) LeavesBehind() bool {
	return e == EffectNotApplied || e == EffectReferenceKept
}

// AppliedByUpdate reports whether a changed value counts as applied when
// cdkd updated its resource, so its fingerprint is recorded: under every
// effect but those that leave it behind and the one under which whether it
// went along with another change is unknown (EffectReferenceResourceUpdated).
func (e SecretEffect) AppliedByUpdate() bool {
	return !e.LeavesBehind() && e != EffectReferenceResourceUpdated
}

// SecretCounts counts a run's secret positions by status.
type SecretCounts struct {
	Changed, Unchanged, Unknown, NotApplied int
}

// SecretCounts walks every stack, nested ones included.
func (d Diff) SecretCounts() SecretCounts {
	var c SecretCounts
	d.Walk(func(_ string, s StackDiff) {
		for _, v := range s.SecretValues {
			switch v.Status {
			case FingerprintChanged:
				c.Changed++
			case FingerprintUnchanged:
				c.Unchanged++
			default:
				c.Unknown++
			}
			if v.Warns() {
				c.NotApplied++
			}
		}
	})
	return c
}

// AnyChange reports whether the next deploy changes anything: a resource,
// an output, or a secret value cdkd itself cannot see change.
func (d Diff) AnyChange() bool { return d.Totals().Any() || d.SecretCounts().Changed > 0 }

// UntoldNoEchoReaders drops from a stack's NoEcho note (NoEchoReaders:
// "cdkd cannot tell whether its value changed") the resources whose every
// secret position the fingerprints could tell (vals): the note stays true
// for the others.
func UntoldNoEchoReaders(readers []string, vals []SecretValue) []string {
	if len(vals) == 0 {
		return readers
	}
	out := slices.DeleteFunc(slices.Clone(readers), func(id string) bool {
		listed, known := false, true
		for _, v := range vals {
			if v.LogicalID == id {
				listed = true
				known = known && v.Status != FingerprintUnknown
			}
		}
		return listed && known
	})
	if len(out) == 0 {
		return nil
	}
	return out
}
