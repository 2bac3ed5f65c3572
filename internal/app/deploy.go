package app

import (
	"context"
	"errors"
)

// deploy is being built (issue: gated deploy on merge).
func (r *run) deploy(ctx context.Context) ExitCode {
	return r.fail("bad-input", errors.New("input command: deploy is not yet supported by this version of cdkd-action"), ExitBadInput, nil)
}
