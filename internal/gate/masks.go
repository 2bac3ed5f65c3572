package gate

import (
	"fmt"
	"strings"
)

// AssemblyHint says how to make a change set with too many hidden values
// verifiable.
const AssemblyHint = "Pass the cloud assembly (app, or a synthesized cdk.out) so only secret positions are hidden."

// maskIssue is the refusal the values behind the masks get: ones the
// current change set did not fingerprint (diff-unverifiable), a review whose
// digest did not cover them (an older digest version: stale-review), or
// tokens keyed with another fingerprint-key than the review's. The message
// is a sentence without its end; hint, when set, says what to do.
func maskIssue(rv Review, cur Current, usable bool) (reason Reason, title, msg, hint string, ok bool) {
	masks := cur.Diff.Masks()
	switch {
	case cur.Unverifiable != "" || masks.Unverifiable > 0:
		// The run's own reason names the cause and what to do; only
		// tokens a report carried leave the cause to guess.
		why, hint := cur.Unverifiable, ""
		if why == "" {
			why, hint = fmt.Sprintf("%s not fingerprinted", count(masks.Unverifiable, "hidden value")), AssemblyHint
		}
		return DiffUnverifiable, "Change set cannot be verified", "The values behind the masks of the change set cannot be compared with the review: " + why, hint, true
	case !usable:
		return "", "", "", "", false
	case digestVersion(rv.Digest) != digestVersion(cur.Digest):
		return StaleReview, "Review is stale", fmt.Sprintf("The review of pull request #%d has a digest of another version of cdkd-action (%s, this one computes %s), which does not cover the values behind the masks as this one does, so it cannot vouch for the change set; re-run the pull request's diff",
			rv.PR, strings.TrimSuffix(digestVersion(rv.Digest), ":"), strings.TrimSuffix(digestVersion(cur.Digest), ":")), "", true
	case rv.KeyID != cur.KeyID && masks.Tokens > 0:
		return FingerprintKeyMismatch, "Fingerprint key changed", fmt.Sprintf("The review of pull request #%d fingerprinted the values behind the masks %s, so they cannot be compared; diff and deploy with the same fingerprint key (the same fingerprint-key input, or none and the same state bucket)",
			rv.PR, keyChange(rv.KeyID, cur.KeyID)), "", true
	}
	return "", "", "", "", false
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
