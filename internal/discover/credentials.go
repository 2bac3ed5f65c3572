package discover

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// knownCredentials are the variables that always hold a credential: the
// GitHub token (input and runner), the runner's own tokens (the runtime
// token, and the OIDC request token present with `id-token: write`, the
// usual set-up for AWS), and the AWS keys.
var knownCredentials = []string{
	"INPUT_GITHUB-TOKEN", "GITHUB_TOKEN",
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
}

// credentialSuffixes name a credential by convention: every variable whose
// name ends in one of them is masked.
var credentialSuffixes = []string{"TOKEN", "SECRET", "PASSWORD", "_KEY"}

// CredentialNames returns the names of the environment variables to mask
// before anything prints: the known credentials and every variable of
// environ whose name ends in a credential suffix (case-insensitively),
// sorted.
func CredentialNames(environ func() []string) []string {
	names := slices.Clone(knownCredentials)
	if environ != nil {
		for _, kv := range environ() {
			name, _, _ := strings.Cut(kv, "=")
			upper := strings.ToUpper(name)
			if slices.ContainsFunc(credentialSuffixes, func(s string) bool { return strings.HasSuffix(upper, s) }) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// CredentialValue reports whether the value of a variable named as a
// credential is masked. A known credential always is. One matched only by
// its suffix is not when it is shorter than secrets.MinRedactRunes or a
// flag (true, false, null, none): a CACHE_KEY of "v1" is not a credential,
// and masking it would hide every "v1" in the log.
func CredentialValue(name, v string) bool {
	if slices.Contains(knownCredentials, name) {
		return true
	}
	t := strings.TrimSpace(v)
	if utf8.RuneCountInString(t) < secrets.MinRedactRunes {
		return false
	}
	switch strings.ToLower(t) {
	case "true", "false", "null", "none":
		return false
	}
	return true
}
