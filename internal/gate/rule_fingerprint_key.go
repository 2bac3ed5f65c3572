package gate

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// fingerprintKeySame: the review fingerprinted its hidden values
// with the deploy's key, so the tokens can be compared.
type fingerprintKeySame struct{}

func (fingerprintKeySame) about() about {
	return about{reason: reason.KeyMismatch, waivable: true}
}

func (fingerprintKeySame) check(s *state) *finding {
	rv, cur := s.rv, s.cur
	if !s.usable() || digestVersion(rv.Digest) != digestVersion(cur.Digest) || rv.KeyID == cur.KeyID || cur.Diff.HiddenTokens().Tokens == 0 {
		return nil
	}
	return &finding{title: "Fingerprint key changed", msg: fmt.Sprintf("The review of pull request #%d fingerprinted the hidden values %s, so they cannot be compared; diff and deploy with the same fingerprint key (the same fingerprint-key input, or none and the same state bucket)",
		rv.PR, keyChange(rv.KeyID, cur.KeyID))}
}

// keyChange says how the review's fingerprint key and the deploy's differ.
func keyChange(reviewed, current string) string {
	switch {
	case reviewed == "":
		return "without a key (an older cdkd-action), and this deploy's key is " + current
	case current == "":
		return "with fingerprint key " + reviewed + ", and this deploy has none"
	}
	return "with fingerprint key " + reviewed + ", and this deploy's key is " + current
}
