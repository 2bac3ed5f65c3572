package app

import (
	"context"
	"errors"
)

// drift is being built (issue: nightly drift checks).
func (r *run) drift(ctx context.Context) ExitCode {
	return r.fail("bad-input", errors.New("input command: drift is not yet supported by this version of cdkd-action"), ExitBadInput, nil)
}
