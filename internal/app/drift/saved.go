package drift

import (
	"context"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/app/fromjson"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
)

// driftResult runs `cdkd drift`, or reads the saved `cdkd drift --json`
// given as from-json. A saved report has no exit code: cdkd-exit-code gives
// it; without it, it is what cdkd exits with for that report (1 with
// drift, else 0) when cdkd compared everything, and unknown when it did
// not (cdkd 0.284's JSON names no cause, and only the exit code told a
// refusal from a permanent token).
func (r *run) driftResult(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	if r.Config.FromJSON == "" {
		return r.Cdkd.RunHeld(ctx, runner, args)
	}
	b, err := r.FromJSON().Bytes()
	if err != nil {
		return cdkd.Result{}, err
	}
	d, err := cdkd.DecodeDrift(b)
	if err != nil {
		return cdkd.Result{}, &config.InputError{Input: "from-json", Msg: fmt.Sprintf("expected cdkd drift --json output in %s: %v", r.Config.FromJSON, err)}
	}
	if err := fromjson.SelectDrift(r.Config.FromJSON, r.Config.Stacks, &d); err != nil {
		return cdkd.Result{}, err
	}
	exit := cdkd.SavedDriftExit(d)
	if r.Config.CdkdExitCode != nil {
		exit = *r.Config.CdkdExitCode
	}
	return cdkd.Result{Args: args, Stdout: b, ExitCode: exit}, nil
}
