package app

import (
	"context"
	"fmt"
	"strings"

	awsx "github.com/cdkd-action/cdkd-action/internal/aws"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
)

// decideCauses fills in the causes cdkd did not report, per resource, from
// the stack's state record (read-only): an ssm-secure token there means a
// permanent unresolvedToken, anything else under exit 2 a refusal. Where a
// record cannot be read, cdkd's exit code alone decides, and the returned
// note says so for the report.
func (r *run) decideCauses(ctx context.Context, d *model.Drift, exitCode int) string {
	if !cdkd.NeedsCauses(*d) {
		return ""
	}
	src, why := r.driftStateSource(ctx)
	if src == nil {
		r.runner.Warning(fmt.Sprintf("the state records were not read to tell a refused comparison from an ssm-secure one: %s; cdkd's exit code alone decides", why))
		cdkd.DecideNotComparedCauses(d, exitCode, nil)
		return fmt.Sprintf("cdkd did not report why some resources were not compared, and their state records could not be read (%s), so those causes were inferred from cdkd's exit code alone.", why)
	}
	bucket := r.stateBucket()
	type record struct {
		state *awsx.State
		err   error
	}
	records := map[string]record{}
	lookup := func(stack, region, logicalID string) (bool, bool) {
		if region == "" {
			region = r.defaultRegion()
		}
		key := stack + "\x00" + region
		rec, ok := records[key]
		if !ok {
			st, err := src.Read(ctx, bucket, r.cfg.StatePrefix, stack, region)
			if err == nil && st == nil {
				err = fmt.Errorf("no state record for %s in %s", stack, region)
			}
			rec = record{state: st, err: err}
			records[key] = rec
		}
		if rec.err != nil {
			return false, false
		}
		return rec.state.ContainsToken(logicalID, model.SSMSecurePrefix), true
	}
	cdkd.DecideNotComparedCauses(d, exitCode, lookup)

	var failed []string
	for _, key := range sortedKeys(records) {
		rec := records[key]
		if rec.err == nil {
			continue
		}
		stack, _, _ := strings.Cut(key, "\x00")
		failed = append(failed, stack)
		r.runner.Warning(fmt.Sprintf("could not read the state of %s to tell a refused comparison from an ssm-secure one: %v", stack, rec.err))
	}
	if len(failed) == 0 {
		return ""
	}
	return fmt.Sprintf("The state records of %s could not be read, so for their resources the causes cdkd did not report were inferred from its exit code alone.", strings.Join(failed, ", "))
}

// driftStateSource builds the state reader the cause decisions need, even
// when no cloud assembly was given (drift does not synthesize), the same
// way discovery builds it. It returns nil and the reason when it cannot.
func (r *run) driftStateSource(ctx context.Context) (discover.StateSource, string) {
	if r.stateBucket() == "" {
		return nil, "the state bucket is not known: set the state-bucket input or CDKD_STATE_BUCKET"
	}
	build := r.app.Deps.AWS
	if build == nil {
		build = sdkDeps
	}
	settings := awsx.Settings{Region: r.app.Getenv("AWS_REGION"), RoleARN: r.cfg.RoleARN, Profile: r.app.Getenv("AWS_PROFILE")}
	deps, err := build(ctx, settings)
	if err != nil {
		return nil, fmt.Sprintf("AWS is not configured (%v)", err)
	}
	if deps.State == nil {
		return nil, "no state reader"
	}
	return deps.State, ""
}

// defaultRegion is where a stack with no region of its own lives.
func (r *run) defaultRegion() string {
	if r.cfg.StackRegion != "" {
		return r.cfg.StackRegion
	}
	return r.app.Getenv("AWS_REGION")
}
