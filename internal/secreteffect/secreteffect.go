// Package secreteffect decides what the next cdkd deploy does with a secret
// value that changed since the last deploy that applied it, and what puts
// it into AWS when a deploy does not. It reads only what cdkd printed (its
// diff's change for the resource) and CloudFormation's schema for the
// property (cfnschema); it never guesses: what neither says is unknown.
//
// The rules rest on cdkd's "Secrets in state" and "cdkd drift" pages (the
// seeds) and on real cdkd 0.284.40 runs against an AWS emulator
// (testdata/README.md says how each was captured):
//
//   - A {{resolve:...}} reference is stored as its text: cdkd compares the
//     text, not the value, so a value rotated behind unchanged text is not
//     sent by a deploy (the resource stays Unchanged).
//   - A NoEcho value cdkd's own diff shows (0.284.40 stores it in plain
//     text) is cdkd's change: nothing is added to it.
//   - A NoEcho value cdkd stores as *** (the seeds' cdkd) follows the
//     seed's two questions: can the property be updated in place, and does
//     AWS report its value?
package secreteffect

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cfnschema"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Position is one secret position whose value changed.
type Position struct {
	// Output is set for a stack output (no resource, no schema).
	Output bool
	// ResourceType is the resource's Type ("" when the template does not
	// say).
	ResourceType string
	// Path is the property path as cdkd prints it.
	Path string
	// Source is what fills the position: a NoEcho parameter or a reference.
	Source model.SecretKind
}

// Decision is what the next deploy does with the value.
type Decision struct {
	Effect model.SecretEffect
	// Remedy puts the value into AWS when the deploy does not ("" when the
	// deploy applies it, or when nothing cdkd does is known to).
	Remedy model.SecretRemedy
	// Stateful marks a type whose recreation destroys its data.
	Stateful bool
}

// Decide applies the rules to one position. change is cdkd's diff entry
// for the position's resource (nil: cdkd's diff shows no change to it).
func Decide(t *cfnschema.Table, p Position, change *model.ResourceChange) Decision {
	stateful := cfnschema.IsStateful(p.ResourceType)
	switch {
	case p.Output:
		return Decision{Effect: model.EffectUpdated}
	case change != nil && change.ChangeType == model.ChangeCreate:
		return Decision{Effect: model.EffectCreated}
	case change != nil && change.Replaces():
		return Decision{Effect: model.EffectReplaced, Stateful: stateful}
	case change != nil && shows(change, p.Path):
		// cdkd's own diff carries the change (the reference's text
		// changed, or 0.284.40 shows a NoEcho value): say nothing more.
		return Decision{Effect: model.EffectInCdkdDiff}
	}
	var b cfnschema.Behavior
	if t != nil {
		b = t.Lookup(p.ResourceType, p.Path)
	}
	if p.Source == model.SecretReference {
		return reference(b, p, change, stateful)
	}
	switch {
	case cfnschema.IsCustomResource(p.ResourceType):
		return Decision{Effect: model.EffectHandlerRuns}
	case !b.Known:
		return Decision{Effect: model.EffectUnknown}
	case b.CreateOnly && b.WriteOnly:
		return Decision{Effect: model.EffectNotApplied, Remedy: model.RemedyRecreate, Stateful: stateful}
	case b.CreateOnly:
		return Decision{Effect: model.EffectReplaceIfDiffers, Stateful: stateful}
	}
	return Decision{Effect: model.EffectUpdated}
}

// reference decides for a value behind a {{resolve:...}} reference whose
// text cdkd's diff does not show changed: cdkd compares the text, so it
// does not replace for it, and leaves an unchanged resource alone.
func reference(b cfnschema.Behavior, p Position, change *model.ResourceChange, stateful bool) Decision {
	switch {
	case cfnschema.IsCustomResource(p.ResourceType):
		// A custom resource's handler runs only when cdkd updates it.
		if change != nil {
			return Decision{Effect: model.EffectReferenceResourceUpdated, Remedy: model.RemedyChangeReference}
		}
		return Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference}
	case !b.Known || b.CreateOnly || b.WriteOnly:
		// Create-only: cdkd 0.284.40's --revert says "reverted" and the
		// next detection still finds it drifted; --replace and
		// --recreate-via-cc-api leave the resource Unchanged. Never
		// reported: `cdkd drift` cannot see it, so --revert does not push
		// it. What the table does not know gets the remedy that works for
		// every property: new reference text is a change cdkd's diff sees.
		return Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference, Stateful: stateful && b.CreateOnly}
	case change != nil:
		// cdkd updates the resource for another property; whether its
		// provider sends the unchanged reference's new value is not
		// something cdkd says.
		return Decision{Effect: model.EffectReferenceResourceUpdated, Remedy: model.RemedyDriftRevert}
	}
	return Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyDriftRevert}
}

// shows reports whether cdkd's diff lists a property change at path, at
// one of its ancestors (cdkd printed the whole object) or below it.
func shows(c *model.ResourceChange, path string) bool {
	for _, pc := range c.PropertyChanges {
		if pc.Path == path || strings.HasPrefix(path, pc.Path+".") || strings.HasPrefix(pc.Path, path+".") {
			return true
		}
	}
	return false
}
