package model

// Drift is one `cdkd drift --json` run.
type Drift struct {
	Stacks []StackDrift `json:"stacks"`
}

// Resource names one resource of a stack.
type Resource struct {
	LogicalID string `json:"logicalId"`
	Type      string `json:"type"`
}

// StackDrift is one stack's drift report, in cdkd's groups.
type StackDrift struct {
	Stack        string            `json:"stack"`
	Region       string            `json:"region"`
	Drifted      []DriftedResource `json:"drifted"`
	Clean        []Resource        `json:"clean"`
	NotSupported []Resource        `json:"notSupported"`
	Skipped      []Resource        `json:"skipped,omitempty"`
	NotCompared  []NotCompared     `json:"notCompared"`
	// Groups are the groups of resources cdkd reported that this version
	// does not know (cdkd's "masked" group, say): shown, never counted.
	Groups []DriftGroup `json:"otherGroups,omitempty"`
}

// DriftedResource is a resource whose live configuration differs from state.
// ReferencesUnresolved means the changes are real but not the whole comparison.
type DriftedResource struct {
	Resource
	Changes              []DriftChange `json:"changes"`
	ReferencesUnresolved bool          `json:"referencesUnresolved"`
}

// DriftChange is one property path whose state and AWS values differ.
type DriftChange struct {
	Path   string     `json:"path"`
	State  Value      `json:"stateValue,omitzero"`
	AWS    Value      `json:"awsValue,omitzero"`
	Secret SecretKind `json:"secret,omitempty"`
	// Leaves says the values at this secret position were hidden leaf by
	// leaf: the leaves the template writes in public are shown, the others
	// (and every leaf either side stores as "***") are "***".
	Leaves bool `json:"secretLeaves,omitempty"`
	// HiddenCase says, for a hidden position, whether it drifts by design or
	// is real drift (see HiddenCase). Its JSON key, maskCase, is the report's.
	HiddenCase HiddenCase `json:"maskCase,omitempty"`
}

// NotComparedCause is why cdkd did not compare a resource. cdkd 0.284 reports
// no cause; the seeds' cdkd reports one of the constants. Unknown causes are
// kept verbatim.
type NotComparedCause string

const (
	CauseUnreported      NotComparedCause = ""
	CauseRefused         NotComparedCause = "refused"
	CauseUnresolvedToken NotComparedCause = "unresolvedToken"
	CauseReadFailed      NotComparedCause = "readFailed"
)

// NotCompared is a resource cdkd left (partly) uncompared.
type NotCompared struct {
	Resource
	ReferencesUnresolved bool             `json:"referencesUnresolved"`
	Cause                NotComparedCause `json:"cause,omitempty"`
	// CauseInferred is set when cdkd reported no cause and cdkd-action
	// decided it (from the state record or the exit code).
	CauseInferred bool `json:"causeInferred,omitempty"`
	// CauseBasis says what an inferred cause rests on (see CauseBasis).
	CauseBasis CauseBasis `json:"causeBasis,omitempty"`
	// Reason is cdkd's own line about the resource (redacted), when its log
	// had one: the authority on why it was not compared.
	Reason string `json:"reason,omitempty"`
	// Token is, for an unresolved ssm-secure token, whether it is its
	// property's whole value or embedded in a longer string (see
	// DecideTokenCase): what a revert does with it.
	Token *TokenCase `json:"ssmSecure,omitempty"`
}
