// Package discover finds every secret of a run before anything is printed:
// the action's own inputs, the cloud assembly's NoEcho parameters and secret
// references, and the values the state bucket holds at those positions. What
// it finds goes into one secrets.Set, the action's only redactor.
package discover

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	awsx "github.com/cdkd-action/cdkd-action/internal/aws"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// StateSource reads a stack's state record; nil, nil means there is none yet.
type StateSource interface {
	Read(ctx context.Context, bucket, prefix, stack, region string) (*awsx.State, error)
}

// Resolver turns a {{resolve:...}} reference into its value; secret is false
// for a plain SSM String parameter.
type Resolver interface {
	Resolve(ctx context.Context, ref dynref.Ref) (value string, secret bool, err error)
}

// Input says where to look.
type Input struct {
	// Assembly is the synthesized cloud assembly, nil when the app input is
	// a command (cdkd synthesizes it later, too late to mask before it runs).
	Assembly *assembly.Assembly
	// Stacks limits state reads to these stacks (empty: every assembly stack).
	Stacks []string
	// DefaultRegion is used for stacks whose environment names no region.
	DefaultRegion  string
	StateBucket    string
	StatePrefix    string
	MaskValues     []string
	MaskEnv        []string
	Getenv         func(string) string
	ResolveSecrets bool
}

// Deps are the AWS edges; either may be nil when AWS is not configured.
type Deps struct {
	State    StateSource
	Resolver Resolver
}

// result collects what one discovery found.
type result struct {
	Set    *secrets.Set
	secure map[string]bool // resolved references that hold a secret
	// Warnings are one sentence each and never contain a secret value.
	Warnings []string
}

// Discover adds to set every secret it finds and returns warnings for what it
// could not check, one sentence each, never holding a value. AWS trouble is a
// warning, not a failure: a missing permission must not hide the report.
func Discover(ctx context.Context, set *secrets.Set, in Input, deps Deps) (warnings []string) {
	r := &result{Set: set, secure: map[string]bool{}}
	for i, v := range in.MaskValues {
		r.Set.Add(v, fmt.Sprintf("mask-values line %d", i+1))
	}
	for _, name := range in.MaskEnv {
		v := ""
		if in.Getenv != nil {
			v = in.Getenv(name)
		}
		if v == "" {
			r.warn("mask-env: environment variable %s is not set or empty, nothing to mask for it", name)
			continue
		}
		r.Set.Add(v, "mask-env "+name)
	}
	if in.Assembly == nil {
		return r.Warnings
	}
	resolved := map[string]bool{}
	for _, st := range in.Assembly.Stacks {
		if !selected(in.Stacks, st) {
			continue
		}
		for _, p := range st.NoEchoParams {
			if p.Default != nil {
				r.Set.Add(*p.Default, fmt.Sprintf("default of NoEcho parameter %s/%s", st.Name, p.Name))
			}
		}
		for _, ref := range st.References {
			if ref.Templated {
				// Parts of the spelling are other resources' ids, known
				// only after deploy; the resolved value is still masked
				// wherever the state names the reference.
				continue
			}
			r.resolve(ctx, in, deps, ref.Ref, resolved)
		}
		r.readState(ctx, in, deps, st, resolved)
	}
	// A plain ssm reference is secret only when it names a SecureString;
	// now that it is resolved, its positions can be hidden too.
	in.Assembly.MarkSecureSSM(func(ref dynref.Ref) bool { return r.secure[ref.Raw] })
	return r.Warnings
}

func (r *result) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

func (r *result) resolve(ctx context.Context, in Input, deps Deps, ref dynref.Ref, done map[string]bool) {
	if done[ref.Raw] || !in.ResolveSecrets || deps.Resolver == nil {
		return
	}
	done[ref.Raw] = true
	v, secret, err := deps.Resolver.Resolve(ctx, ref)
	if err != nil {
		r.warn("could not resolve %s to mask its value: %v", ref.Raw, err)
		return
	}
	if secret {
		r.secure[ref.Raw] = true
		r.Set.Add(v, "value of "+ref.Raw)
	}
}

// readState adds the values the state record holds at secret positions: a
// record written before cdkd masked NoEcho values holds them in plaintext.
func (r *result) readState(ctx context.Context, in Input, deps Deps, st assembly.Stack, resolved map[string]bool) {
	if deps.State == nil || in.StateBucket == "" {
		return
	}
	region := st.Region
	if region == "" {
		region = in.DefaultRegion
	}
	state, err := deps.State.Read(ctx, in.StateBucket, in.StatePrefix, st.Name, region)
	switch {
	case errors.Is(err, awsx.ErrAccessDenied):
		r.warn("could not read the state of %s to mask the values it holds: %v", st.Name, err)
		return
	case err != nil:
		r.warn("could not read the state of %s: %v", st.Name, err)
		return
	case state == nil:
		return // first deploy
	}
	for _, pos := range st.Positions {
		var values []string
		switch pos.Kind {
		case assembly.KindResource:
			values = state.StringsAt(pos.LogicalID, pos.Path)
		case assembly.KindOutput:
			if v, ok := state.OutputString(pos.Output); ok {
				values = []string{v}
			}
		}
		for _, v := range values {
			if v == model.Masked || strings.Contains(v, "{{resolve:") {
				continue
			}
			r.Set.Add(v, fmt.Sprintf("state of %s at %s", st.Name, describe(pos)))
		}
	}
	// References recorded in state but gone from today's template (a
	// resource being deleted) still name secrets whose values may surface.
	for _, ref := range dynref.FindAll(string(state.Raw)) {
		r.resolve(ctx, in, deps, ref, resolved)
	}
}

// describe names a position for diagnostics; it never holds a value.
func describe(p assembly.Position) string {
	if p.Kind == assembly.KindOutput {
		return "output " + p.Output
	}
	return p.LogicalID + "." + p.Path
}

func selected(stacks []string, st assembly.Stack) bool {
	if len(stacks) == 0 {
		return true
	}
	for _, s := range stacks {
		if s == st.Name || s == st.DisplayName || strings.ContainsAny(s, "*?") {
			return true
		}
	}
	return false
}
