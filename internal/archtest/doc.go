// Package archtest holds the import rules of the project's layers as a test
// (imports_test.go): a new import that breaks a rule fails `go test` with the
// rule's reason. It has no code of its own.
package archtest
