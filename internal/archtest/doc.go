// Package archtest holds the project's structural rules as tests: the
// import rules of its layers (imports_test.go), where a new import that
// breaks a rule fails `go test` with the rule's reason, and the shape of
// what a publish target receives (redacted_test.go): only redacted.Text,
// never a plain string. It has no code of its own.
package archtest
