package app

import (
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// ExitCode is the action's exit status, what App.Run returns: reason.Exit,
// whose list of failure reasons gives each its code.
type ExitCode = reason.Exit

// The exit codes (see reason.Exit).
const (
	ExitOK       = reason.ExitOK
	ExitChanges  = reason.ExitChanges
	ExitBadInput = reason.ExitBadInput
	ExitFailure  = reason.ExitFailure
)
