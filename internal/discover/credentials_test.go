package discover

import (
	"slices"
	"testing"

	"gotest.tools/v3/assert"
)

// The known credentials are always masked; a variable named like one
// (…TOKEN, …SECRET, …PASSWORD, …_KEY, in any case) is masked unless its
// value is too short or a flag, which masking would hide everywhere.
func TestCredentials(t *testing.T) {
	environ := func() []string {
		return []string{"NPM_TOKEN=abcdefgh", "db_password=hunter22", "CACHE_KEY=v1", "FEATURE_KEY=true", "KEYS=x", "PATH=/bin", "MONKEY=x"}
	}
	names := CredentialNames(environ)
	for _, want := range []string{"GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "db_password", "CACHE_KEY", "FEATURE_KEY"} {
		assert.Assert(t, slices.Contains(names, want), "%s in %v", want, names)
	}
	for _, not := range []string{"KEYS", "PATH", "MONKEY"} {
		assert.Assert(t, !slices.Contains(names, not), "%s in %v", not, names)
	}
	assert.DeepEqual(t, CredentialNames(nil), CredentialNames(func() []string { return nil }))

	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_TOKEN", "x", true}, // a known credential, however short
		{"NPM_TOKEN", "abcdefgh", true},
		{"CACHE_KEY", "v1", false},
		{"FEATURE_KEY", " True ", false},
		{"DB_PASSWORD", "null", false},
	} {
		assert.Equal(t, CredentialValue(tc.name, tc.value), tc.want, tc.name)
	}
}
