package drift

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// driftAWS is what the drift command reads AWS with, built once per run
// (drift does not synthesize, so discovery may not have built it): the
// state reader, whose reads one detection shares between the cause
// decisions and the secret references, and the resolver, which resolves
// each reference once per run.
type driftAWS struct {
	// reads is nil when the state cannot be read; why then says why.
	reads *stateReads
	why   string
	// resolver is nil when resolve-secrets is off or AWS is not configured.
	resolver discover.Resolver
	// lister is the state reader as built, which may list the bucket.
	lister discover.StateSource
}

// newDriftAWS builds the state reader and the resolver the same way
// discovery builds them. Nothing is printed: what could not be built is
// said where it matters.
func (r *run) newDriftAWS(ctx context.Context) *driftAWS {
	if why := r.AWS.Offline(); why != "" {
		return &driftAWS{why: why}
	}
	if r.AWS.StateBucket(ctx) == "" {
		return &driftAWS{why: "the state bucket is not known: set the state-bucket input or CDKD_STATE_BUCKET"}
	}
	deps, err := r.AWS.Clients(ctx)
	if err != nil {
		return &driftAWS{why: fmt.Sprintf("AWS is not configured (%v)", err)}
	}
	a := &driftAWS{why: "no state reader"}
	if deps.State != nil {
		a.reads = &stateReads{src: deps.State, got: map[string]stateRead{}}
		a.lister = deps.State
	}
	if deps.Resolver != nil && r.Config.ResolveSecrets {
		a.resolver = &onceResolver{next: deps.Resolver, got: map[string]resolved{}}
	}
	return a
}

// stateSource is the state reader, or nil and why there is none.
func (a *driftAWS) stateSource() (discover.StateSource, string) {
	if a.reads == nil {
		return nil, a.why
	}
	return a.reads, ""
}

// forget drops the state read so far: after --accept the records changed.
func (a *driftAWS) forget() {
	if a.reads != nil {
		a.reads.got = map[string]stateRead{}
	}
}

// stateReads remembers each state record read, so one detection reads a
// record once whoever asks.
type stateReads struct {
	src discover.StateSource
	got map[string]stateRead
}

type stateRead struct {
	state *awsx.State
	err   error
}

func (s *stateReads) Read(ctx context.Context, bucket, prefix, stack, region string) (*awsx.State, error) {
	key := strings.Join([]string{bucket, prefix, stack, region}, "\x00")
	if got, ok := s.got[key]; ok {
		return got.state, got.err
	}
	st, err := s.src.Read(ctx, bucket, prefix, stack, region)
	s.got[key] = stateRead{state: st, err: err}
	return st, err
}

// onceResolver resolves each reference once per run, failures included.
type onceResolver struct {
	next discover.Resolver
	got  map[string]resolved
}

type resolved struct {
	value  string
	secret bool
	err    error
}

func (o *onceResolver) Resolve(ctx context.Context, ref dynref.Ref) (string, bool, error) {
	if got, ok := o.got[ref.Raw]; ok {
		return got.value, got.secret, got.err
	}
	v, secret, err := o.next.Resolve(ctx, ref)
	o.got[ref.Raw] = resolved{value: v, secret: secret, err: err}
	return v, secret, err
}

// decideCauses fills in the causes cdkd did not report, per resource, from
// the stack's state record (read-only): an ssm-secure token there means a
// permanent unresolvedToken, anything else under exit 2 a refusal. Where a
// record cannot be read, cdkd's exit code alone decides, and the returned
// note says so for the report.
func (r *run) decideCauses(ctx context.Context, aws *driftAWS, d *model.Drift, exitCode int) string {
	if !cdkd.NeedsCauses(*d) {
		return ""
	}
	// What decides where the state record cannot: the exit code, unless
	// no run gave it (a saved report), when nothing does.
	fallback, fallbackNote := "cdkd's exit code alone decides", "so those causes were inferred from cdkd's exit code alone"
	if exitCode == model.ExitCodeUnknown {
		fallback, fallbackNote = "cdkd's exit code is unknown, so nothing decides", "and cdkd's exit code is unknown, so those causes stay unknown"
	}
	src, why := aws.stateSource()
	if src == nil {
		r.Log.Warning(fmt.Sprintf("the state records were not read to tell a refused comparison from an ssm-secure one: %s; %s", why, fallback))
		cdkd.DecideNotComparedCauses(d, exitCode, nil)
		return fmt.Sprintf("cdkd did not report why some resources were not compared, and their state records could not be read (%s), %s.", why, fallbackNote)
	}
	bucket := r.AWS.StateBucket(ctx)
	type record struct {
		state *awsx.State
		err   error
	}
	records := map[string]record{}
	lookup := func(stack, region, logicalID string) (bool, bool) {
		if region == "" {
			region = r.AWS.DefaultRegion()
		}
		key := stack + "\x00" + region
		rec, ok := records[key]
		if !ok {
			st, err := src.Read(ctx, bucket, r.Config.StatePrefix, stack, region)
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
	for _, key := range slices.Sorted(maps.Keys(records)) {
		rec := records[key]
		if rec.err == nil {
			continue
		}
		stack, _, _ := strings.Cut(key, "\x00")
		failed = append(failed, stack)
		r.Log.Warning(fmt.Sprintf("could not read the state of %s to tell a refused comparison from an ssm-secure one: %v", stack, rec.err))
	}
	if len(failed) == 0 {
		return ""
	}
	if exitCode == model.ExitCodeUnknown {
		return fmt.Sprintf("The state records of %s could not be read, and cdkd's exit code is unknown, so for their resources the causes cdkd did not report stay unknown.", strings.Join(failed, ", "))
	}
	return fmt.Sprintf("The state records of %s could not be read, so for their resources the causes cdkd did not report were inferred from its exit code alone.", strings.Join(failed, ", "))
}

// tokenCase gathers, for cdkd.PlaceTokens and cdkd.TokenRefusals, where a
// resource's ssm-secure tokens sit: in its stack's state record (what a
// revert writes back) and in the assembly's template. The decision is
// model.DecideTokenCase's; this only reads.
func (r *run) tokenCase(ctx context.Context, aws *driftAWS) cdkd.TokenCaseOf {
	return func(stack, region, logicalID string) model.TokenCase {
		return model.DecideTokenCase(r.stateTokens(ctx, aws, stack, cmp.Or(region, r.AWS.DefaultRegion()), logicalID),
			r.templateTokens(stack, r.Secrets.Region(stack, region), logicalID))
	}
}

func (r *run) stateTokens(ctx context.Context, aws *driftAWS, stack, region, logicalID string) model.TokenEvidence {
	src, why := aws.stateSource()
	if src == nil {
		return model.TokenEvidence{Why: "the state record was not read (" + why + ")"}
	}
	st, err := src.Read(ctx, r.AWS.StateBucket(ctx), r.Config.StatePrefix, stack, region)
	switch {
	case err != nil:
		return model.TokenEvidence{Why: fmt.Sprintf("the state record of %s could not be read (%v)", stack, err)}
	case st == nil:
		return model.TokenEvidence{Why: fmt.Sprintf("there is no state record for %s in %s", stack, region)}
	}
	sites := st.TokenSites(logicalID, dynref.SSMSecure)
	if len(sites) == 0 {
		return model.TokenEvidence{Why: fmt.Sprintf("the state record of %s holds no ssm-secure token for %s", stack, logicalID)}
	}
	return model.TokenEvidence{Sites: sites}
}

func (r *run) templateTokens(stack, region, logicalID string) model.TokenEvidence {
	if r.Secrets.Assembly == nil {
		return model.TokenEvidence{Why: "no assembly was given (the app input)"}
	}
	st, ok := r.Secrets.Assembly.StackIn(stack, region)
	if !ok {
		return model.TokenEvidence{Why: fmt.Sprintf("the assembly has no stack %s in %s", stack, region)}
	}
	sites := st.TokenSites(logicalID, dynref.SSMSecure)
	if len(sites) == 0 {
		return model.TokenEvidence{Why: fmt.Sprintf("the template of %s reads no ssm-secure reference in %s", stack, logicalID)}
	}
	return model.TokenEvidence{Sites: sites}
}
