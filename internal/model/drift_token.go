package model

import (
	"slices"
	"strings"
)

// TokenPlacement says where a resource's {{resolve:ssm-secure:...}} tokens
// sit, which decides what a `cdkd drift --revert` does with them. cdkd
// 0.284.40's warning states both cases at once (sample 86); the seed's
// "cdkd drift" page: "If the property's whole value is the token, the live
// value is left unchanged"; "If the token is embedded in a longer string
// ... is overwritten".
type TokenPlacement string

const (
	// TokenPlacementUnknown: neither the state record nor the template
	// places the token (TokenCase.Why says why).
	TokenPlacementUnknown TokenPlacement = ""
	// TokenWhole: every token is its property's whole value: a revert
	// leaves the live value unchanged.
	TokenWhole TokenPlacement = "whole"
	// TokenEmbedded: at least one token is part of a longer string (an
	// Fn::Join or Fn::Sub in the template): a revert writes the string
	// with the token literal, overwriting the value AWS holds there.
	TokenEmbedded TokenPlacement = "embedded"
)

// TokenSite is one property value holding an ssm-secure token.
type TokenSite struct {
	// Path is the property path as cdkd prints it ("Tags.0.Value").
	Path string
	// Whole: the value is exactly one token.
	Whole bool
}

// TokenEvidence is what one source says about a resource's tokens: the
// sites it holds, or, with none, why it says nothing ("could not be read:
// …", "holds no ssm-secure token for SecureTopic").
type TokenEvidence struct {
	Sites []TokenSite
	Why   string
}

// Token sources, in the order they decide.
const (
	// TokenFromState: the stack's state record, what cdkd deployed and
	// what its revert writes back.
	TokenFromState = "state"
	// TokenFromTemplate: the synthesized template (the assembly).
	TokenFromTemplate = "template"
)

// TokenCase is the decision for one resource.
type TokenCase struct {
	Placement TokenPlacement `json:"placement,omitempty"`
	// Paths are the properties the placement is about: the embedded ones
	// when any is embedded, else the whole ones.
	Paths []string `json:"paths,omitempty"`
	// Basis is TokenFromState or TokenFromTemplate ("" when unknown).
	Basis string `json:"basis,omitempty"`
	// Why says, for an unknown placement, what evidence is missing.
	Why string `json:"why,omitempty"`
}

// DecideTokenCase decides from the state record first (a revert writes its
// values back), then from the template; with neither placing a token the
// placement is unknown, and Why names what each source lacked. It never
// guesses.
func DecideTokenCase(state, template TokenEvidence) TokenCase {
	for _, src := range []struct {
		ev    TokenEvidence
		basis string
	}{{state, TokenFromState}, {template, TokenFromTemplate}} {
		if len(src.ev.Sites) == 0 {
			continue
		}
		c := TokenCase{Placement: TokenWhole, Basis: src.basis}
		var whole, embedded []string
		for _, s := range src.ev.Sites {
			if s.Whole {
				whole = append(whole, s.Path)
			} else {
				embedded = append(embedded, s.Path)
			}
		}
		c.Paths = whole
		if len(embedded) > 0 {
			c.Placement, c.Paths = TokenEmbedded, embedded
		}
		slices.Sort(c.Paths)
		c.Paths = slices.Compact(c.Paths)
		return c
	}
	var why []string
	for _, w := range []string{state.Why, template.Why} {
		if w != "" {
			why = append(why, w)
		}
	}
	if len(why) == 0 {
		why = append(why, "no source places the token")
	}
	return TokenCase{Why: strings.Join(why, "; ")}
}
