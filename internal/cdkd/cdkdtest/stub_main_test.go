package cdkdtest

import (
	"os"
	"testing"
)

// TestMain removes the cdkd stand-in the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	RemoveStub()
	os.Exit(code)
}
