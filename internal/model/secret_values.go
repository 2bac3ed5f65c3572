package model

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

// SecretEffect is what the next deploy does with a changed secret value,
// from CloudFormation's schema for the property (create-only? reported by
// AWS?) and cdkd's rules (seed 000's decision table).
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
	// Stateful marks a type whose recreation destroys its data.
	Stateful bool `json:"stateful,omitempty"`
}

// Warns reports a change the deploy will not apply: a reviewer must act.
func (v SecretValue) Warns() bool {
	return v.Status == FingerprintChanged && v.Effect == EffectNotApplied
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
