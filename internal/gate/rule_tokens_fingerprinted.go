package gate

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// AssemblyHint says how to make a change set with too many hidden values
// verifiable.
const AssemblyHint = "Pass the cloud assembly (app, or a synthesized cdk.out) so only secret positions are hidden."

// tokensFingerprinted: every hidden value of the change set was
// fingerprinted, so it can be compared with the review.
type tokensFingerprinted struct{}

func (tokensFingerprinted) about() about {
	return about{reason: reason.DiffUnverifiable, waivable: true}
}

func (tokensFingerprinted) check(s *state) *finding {
	tokens := s.cur.Diff.HiddenTokens()
	if s.cur.Unverifiable == "" && tokens.Unverifiable == 0 {
		return nil
	}
	// The run's own reason names the cause and what to do; only tokens a
	// report carried leave the cause to guess.
	why, hint := s.cur.Unverifiable, ""
	if why == "" {
		why, hint = fmt.Sprintf("%s not fingerprinted", count(tokens.Unverifiable, "hidden value")), AssemblyHint
	}
	return &finding{title: "Change set cannot be verified", msg: "The hidden values of the change set cannot be compared with the review: " + why, hint: hint}
}
