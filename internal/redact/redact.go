// Package redact is the one redaction stage between a command's typed
// result (package model) and the reporters: one entry per result type
// (Diff, Drift, Deploy) and one for cdkd's log lines (Lines).
//
// It fails closed. A value is placed first (is its position secret? the
// cloud assembly and the state record say); a value whose position cannot
// be placed is hidden; then every value is hidden at a secret position and
// every string is redacted by value. A value hidden because of where it
// sits is learned: added to the secret Set, so the same value is hidden
// wherever else it shows. The stage does no I/O: what the caller must act
// on (register the learned values with the runner, fingerprint the hidden
// values into their hidden-value tokens, say what could not be placed) comes
// back in a Report. Tokens then decides, within bounds, which hidden values
// are fingerprinted into the digest's tokens (tokens.go). The sinks redact
// again, as a safety net (a publish target receives only redacted.Text).
package redact

import (
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Positions answers "is this position secret?" for a stack. The assembly
// implements it; a nil Positions knows no positions.
type Positions interface {
	Stack(name string) (assembly.Stack, bool)
}

// regionalPositions is implemented by *assembly.Assembly: one stack name
// may be deployed to several regions from one assembly.
type regionalPositions interface {
	StackIn(name, region string) (assembly.Stack, bool)
}

// StateLookup returns a stack's state record, nil when it has none or it
// cannot be read.
type StateLookup func(stack, region string) *awsx.State

// Input is what an entry needs besides the result.
type Input struct {
	// Set is the run's secrets; the stage adds the values it hides by
	// position.
	Set *secrets.Set
	// Positions gives the secret positions; nil when no cloud assembly was
	// found, and then every value whose position cannot be given is hidden.
	Positions Positions
	// State reads a stack's state record, a second source of NoEcho
	// positions (drift); nil when no record can be read.
	State StateLookup
	// Placed says the result was placed and redacted by the run that
	// produced it (a shard's report, a saved report): its positions'
	// decisions stand, and it is redacted again by value with this run's
	// secrets. Positions and State are not read.
	Placed bool
	// Leaves decides each leaf of a value at a secret position from the
	// template (see splitLeaves) instead of hiding the value whole: the
	// review layouts from 4 on (reporters.LeafSecrecy). A deploy checking a
	// review of an older layout hides whole, as that review was written.
	Leaves bool
}

// Report is what the caller of an entry must act on.
type Report struct {
	// Hidden are the values the stage hid, in the order it met them, each
	// with the hidden-value token the caller fills (see model.HiddenToken); Diff only.
	Hidden []Hidden
	// Unplaced are the stacks and resources whose values were hidden
	// because their positions are unknown, named as the result gave them
	// before redaction; the caller says why in notes.
	Unplaced []Unplaced
	// NamedAfter are the resources whose name a secret fills, whole or in
	// part (see NamedAfterNotes); Diff only, from the assembly.
	NamedAfter []NamedAfter
}

// Hidden is one value redaction hid: where it was (names as redacted, so
// every run that redacts alike names it alike), what it was (absent when
// its token is set already: a shard's report, aggregated), and the token
// to fill in. The values stay in memory only.
type Hidden struct {
	Place    Place
	Original model.Value
	Token    *model.HiddenToken
}

// Place is where a hidden value was: a property or policy attribute of a
// resource, or an output's value. Stack is the nested path ("Parent~Child").
type Place struct {
	Stack, Region string
	Output        bool
	// Name is the logical id, or the output's name.
	Name string
	// Path is the property path, "@" and the attribute for a policy
	// attribute, "" for an output.
	Path string
}

// Why a position cannot be placed; Unplaced.Why holds one of these or the
// assembly's own reason (assembly.Stack.Unknown).
const (
	WhyNoAssembly       = "no cloud assembly was given"
	WhyStackNotAssembly = "the cloud assembly does not hold this stack"
	WhyNotInTemplate    = "the resource is not in the cloud assembly's template (removed or renamed since it was deployed)"
)

// Unplaced is a stack, or one resource of it, of a result whose secret
// positions the assembly cannot give. Names are as the result gave them,
// before redaction.
type Unplaced struct {
	Stack string
	// LogicalID is "" when the whole stack is unplaced.
	LogicalID string
	Why       string
}

// lookup finds a stack's positions by the name and region cdkd reports.
func lookup(pos Positions, name, region string) (assembly.Stack, bool) {
	if pos == nil {
		return assembly.Stack{}, false
	}
	if rp, ok := pos.(regionalPositions); ok && region != "" {
		return rp.StackIn(name, region)
	}
	return pos.Stack(name)
}

// lookupNested finds a nested stack of a --recursive diff, which cdkd may
// name by its state name ("Parent~Child") or by its logical id alone.
func lookupNested(pos Positions, name, region, parent string) (assembly.Stack, bool) {
	if st, ok := lookup(pos, name, region); ok || parent == "" {
		return st, ok
	}
	return lookup(pos, parent+"~"+name, region)
}

func nestedName(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "~" + name
}

// stronger keeps NoEcho over a reference and any kind over none, so a
// second pass (or a kind cdkd reported) never weakens a position.
func stronger(a, b model.SecretKind) model.SecretKind {
	switch {
	case a == model.SecretNoEcho || b == model.SecretNoEcho:
		return model.SecretNoEcho
	case a != model.SecretNone:
		return a
	}
	return b
}
