package config

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestFingerprintInputs(t *testing.T) {
	c, err := Load(TableCommands, env(nil), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.Fingerprints, true)
	assert.Equal(t, c.FingerprintPrefix, "cdkd-action")
	assert.Equal(t, c.FingerprintKey, "")

	key := "q6v2Yl0XBd7Ph+WmT1sZ4kR9aNcJ3uE8oFgHiKxL5yA=" // openssl rand -base64 32
	c, err = Load(TableCommands, env(map[string]string{"INPUT_FINGERPRINTS": "false", "INPUT_FINGERPRINT-PREFIX": "/team/fp/", "INPUT_FINGERPRINT-KEY": key}), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.Fingerprints, false)
	assert.Equal(t, c.FingerprintPrefix, "team/fp")
	assert.Equal(t, c.FingerprintKey, key)
}

func TestBadFingerprintInputs(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"bool", map[string]string{"INPUT_FINGERPRINTS": "maybe"}, `input fingerprints: expected true or false, got "maybe"`},
		{"empty prefix", map[string]string{"INPUT_FINGERPRINT-PREFIX": " / "}, "input fingerprint-prefix: expected a key prefix such as cdkd-action"},
		{"inside cdkd's prefix", map[string]string{"INPUT_FINGERPRINT-PREFIX": "cdkd/fp"}, `input fingerprint-prefix: expected a prefix outside state-prefix "cdkd"`},
		{"cdkd's prefix", map[string]string{"INPUT_FINGERPRINT-PREFIX": "team", "INPUT_STATE-PREFIX": "team"}, `input fingerprint-prefix: expected a prefix outside state-prefix "team"`},
		{"dot-dot", map[string]string{"INPUT_FINGERPRINT-PREFIX": "a/../cdkd"}, "input fingerprint-prefix: expected a plain key prefix"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(TableCommands, env(tc.env), nil)
			assert.Assert(t, IsInputError(err), "%v", err)
			assert.Assert(t, strings.HasPrefix(err.Error(), tc.want), "got %q", err.Error())
			assert.Assert(t, !strings.Contains(err.Error(), "k3y"), "the key is never quoted")
		})
	}
}
