package diff

import (
	"os"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// TestMain removes the cdkd stand-in the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	cdkdtest.RemoveStub()
	os.Exit(code)
}
