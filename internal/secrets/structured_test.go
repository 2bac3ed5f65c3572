package secrets

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// A structured secret is known by every re-serialization and every leaf
// that can surface on its own, at any depth, but not by the fields that only
// say where a database is.
func TestStructuredSecret(t *testing.T) {
	const doc = `{"username":"app-user","password":"p4ss-w0rd","engine":"postgres","host":"db.internal.example","port":5432,` +
		`"dbname":"orders","dbClusterIdentifier":"orders-cluster","enabled":true,"note":null,"pin":123456,"short":"abc","small":12345,` +
		`"nested":{"apiKeys":[{"id":"key-id-0001","secret":"nested-secret-2"},"array-leaf-3"],"big":-9876543.21},` +
		`"embedded":"{\"inner\":\"embedded-leaf-4\"}"}`
	s := newSet(t, doc)

	var pretty strings.Builder
	enc := json.NewEncoder(&pretty)
	enc.SetIndent("", "  ")
	var x any
	assert.NilError(t, json.Unmarshal([]byte(doc), &x))
	assert.NilError(t, enc.Encode(x))

	hidden := map[string]string{
		"string leaf":            "app-user",
		"top-level password":     "p4ss-w0rd",
		"number of 6 digits":     "123456",
		"leaf in an array":       "array-leaf-3",
		"leaf in an object":      "nested-secret-2",
		"id leaf":                "key-id-0001",
		"negative decimal":       "-9876543.21",
		"leaf of embedded JSON":  "embedded-leaf-4",
		"Go's sorted indent":     pretty.String(),
		"Python's default dumps": `{"username": "app-user", "password": "p4ss-w0rd"`,
	}
	for name, v := range hidden {
		got := s.Redact("before " + v + " after")
		assert.Assert(t, !strings.Contains(got, v), "%s %q survives: %s", name, v, got)
	}
	for _, visible := range []string{"postgres", "db.internal.example", "5432", "orders", "orders-cluster", "true", "null", "abc", "12345"} {
		text := "word " + visible + " word"
		assert.Equal(t, s.Redact(text), text, "%q is redacted on its own", visible)
		for _, m := range s.MaskCommands() {
			assert.Assert(t, m != visible, "%q is registered with the runner", visible)
		}
	}
	// The indented forms are redacted whole, not line by line: a line
	// such as `"port": 5432,` is not redacted on its own.
	assert.Equal(t, s.Redact(`  "port": 5432,`), `  "port": 5432,`)
}

func TestStructuredSecretOnlyForDocuments(t *testing.T) {
	for _, v := range []string{`"quoted-string"`, "1234567", "true", "{not json", "[1, 2"} {
		assert.Assert(t, len(structuredForms(v, "test")) == 0, "%q", v)
	}
}
