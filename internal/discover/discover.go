// Package discover finds every secret of a run before anything is printed:
// the action's own inputs, the cloud assembly's NoEcho parameters and secret
// references, and the values the state bucket holds at those positions. What
// it finds goes into one secrets.Set, the action's only redactor.
package discover

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
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
	// Discover marks its confirmed SecureString positions (MarkSecureSSM).
	Assembly *assembly.Assembly
	// Stacks limits state reads to these stacks and their nested stacks
	// (empty: every assembly stack). A wildcard selects every stack.
	Stacks []string
	// DefaultRegion is used for stacks whose environment names no region.
	DefaultRegion string
	StateBucket   string
	StatePrefix   string
	// NoBucketSaid: the run says itself why StateBucket is empty (cdkd's
	// default could not be found, or a local run reads no AWS), so
	// discovery does not say it again.
	NoBucketSaid bool
	// MaskValues are the mask-values input, one value per entry.
	MaskValues []string
	// MaskEnv names environment variables whose values are secrets.
	MaskEnv []string
	Getenv  func(string) string
	// ResolveSecrets allows reading Secrets Manager and SSM.
	ResolveSecrets bool
}

// Deps are the AWS edges; either may be nil when AWS is not configured.
type Deps struct {
	State    StateSource
	Resolver Resolver
}

// discovery is one run of Discover.
type discovery struct {
	set  *secrets.Set
	in   Input
	deps Deps
	// resolved holds the outcome of every reference tried, by spelling:
	// true when its value is a secret, false for a plain String parameter.
	// A reference that could not be resolved is absent: unknown, so its
	// positions stay hidden.
	resolved map[string]bool
	tried    map[string]bool
	warnings []string
}

// Discover adds to set every secret it finds and returns warnings for what it
// could not check, one sentence each, never holding a value. AWS trouble is a
// warning, not a failure: a missing permission must not hide the report.
//
// Discover prints nothing: the caller registers every value with the runner
// (::add-mask::) first, and only then prints the warnings.
func Discover(ctx context.Context, set *secrets.Set, in Input, deps Deps) (warnings []string) {
	d := &discovery{set: set, in: in, deps: deps, resolved: map[string]bool{}, tried: map[string]bool{}}
	if !in.ResolveSecrets {
		d.deps.Resolver = nil
	}
	d.inputs()
	if in.Assembly != nil {
		d.assembly(ctx, in.Assembly)
	}
	d.warnShort()
	return d.warnings
}

func (d *discovery) warn(format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
}

// inputs registers mask-values and mask-env.
func (d *discovery) inputs() {
	for i, v := range d.in.MaskValues {
		d.set.Add(v, fmt.Sprintf("mask-values line %d", i+1))
	}
	for _, name := range d.in.MaskEnv {
		v := ""
		if d.in.Getenv != nil {
			v = d.in.Getenv(name)
		}
		if strings.TrimSpace(v) == "" {
			d.warn("mask-env: environment variable %s is not set or empty, nothing to mask for it", name)
			continue
		}
		d.set.Add(v, "mask-env "+name)
	}
}

// stackState is an assembly stack (its index in the assembly), whether
// its state record is read, and the record (nil when there is none, it was
// not read, or it could not be read).
type stackState struct {
	idx   int
	st    assembly.Stack
	read  bool
	state *awsx.State
}

// assembly reads what the cloud assembly and the state bucket know. It runs
// in two phases: first every reference is resolved (a plain ssm reference
// is only secret once it is known to be a SecureString), then the values
// the state records at the secret positions are added.
//
// What the assembly knows is learned from every stack, whatever the run
// selects: a shard, or a run over some stacks, must hide what one run over
// all of them hides. State is read for the selected stacks and for every
// stack whose export one of them imports (Fn::ImportValue, which cdkd
// resolves to the value the exporting stack's state holds), transitively.
func (d *discovery) assembly(ctx context.Context, asm *assembly.Assembly) {
	stacks := make([]stackState, len(asm.Stacks))
	for i, st := range asm.Stacks {
		stacks[i] = stackState{idx: i, st: st}
	}
	d.markRead(asm, stacks)
	if d.in.StateBucket == "" && !d.in.NoBucketSaid {
		d.warnNoBucket(stacks)
	}
	for i := range stacks {
		s := &stacks[i]
		if s.read {
			s.state = d.readState(ctx, s.st)
		}
		d.noEchoDefaults(asm, s.st)
		for _, ref := range s.st.References {
			if ref.Templated {
				spelled, ok := spell(ref.Ref, s.state, d.region(s.st))
				if !ok {
					// Parts of the spelling are known only after a deploy;
					// the deployed spelling is in the record and is read
					// below.
					continue
				}
				d.resolve(ctx, spelled)
				// The template's spelling stands for the same value.
				if v, ok := d.resolved[spelled.Raw]; ok {
					d.resolved[ref.Raw] = v
				}
				continue
			}
			d.resolve(ctx, ref.Ref)
		}
		if s.state != nil {
			// References the record holds: the deployed spelling of a
			// templated one, and those of resources gone from today's
			// template (being deleted), whose values may still surface.
			for _, ref := range dynref.FindAll(string(s.state.Raw)) {
				d.resolve(ctx, ref)
			}
		}
	}
	// A plain ssm reference is secret only when it names a SecureString;
	// one that could not be resolved might, so it stays hidden.
	asm.MarkSecureSSM(func(ref dynref.Ref) bool {
		secret, ok := d.resolved[ref.Raw]
		return !ok || secret
	})
	for _, s := range stacks {
		d.statePositions(asm.Stacks[s.idx], s.state)
	}
}

// markRead marks the stacks whose state is read: the selected ones and,
// transitively, the stacks that export what a marked one imports, with
// their nested stacks.
func (d *discovery) markRead(asm *assembly.Assembly, stacks []stackState) {
	index := map[string]int{}
	var queue []int
	for i := range stacks {
		index[stacks[i].st.Name+"\x00"+stacks[i].st.Region] = i
		if d.selected(asm, stacks[i].st) {
			stacks[i].read = true
			queue = append(queue, i)
		}
	}
	mark := func(i int) {
		if !stacks[i].read {
			stacks[i].read = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		s := stacks[queue[0]].st
		queue = queue[1:]
		for _, e := range asm.Exporters(s) {
			if i, ok := index[e.Name+"\x00"+e.Region]; ok {
				mark(i)
			}
		}
		// A stack's nested stacks come with it: an export can carry a
		// value a nested stack's state holds.
		for i := range stacks {
			if c := stacks[i].st; c.Parent == s.Name && (c.Region == s.Region || c.Region == "" || s.Region == "") {
				mark(i)
			}
		}
	}
}

// selected reports whether a stack is in the run: named by the stacks
// input, or nested in one that is. A nested stack is deployed with its
// parent, so selecting the parent selects it.
func (d *discovery) selected(asm *assembly.Assembly, st assembly.Stack) bool {
	if len(d.in.Stacks) == 0 {
		return true
	}
	for depth := 0; depth < 32; depth++ {
		for _, s := range d.in.Stacks {
			if s == st.Name || s == st.DisplayName || strings.ContainsAny(s, "*?") {
				return true
			}
		}
		if st.Parent == "" {
			return false
		}
		parent, ok := asm.StackIn(st.Parent, st.Region)
		if !ok {
			return false
		}
		st = parent
	}
	return false
}

// noEchoDefaults adds the defaults of the NoEcho parameters a stack reads:
// its own, and for a nested stack its ancestors', since a parent passes its
// parameter's value down.
func (d *discovery) noEchoDefaults(asm *assembly.Assembly, st assembly.Stack) {
	for depth := 0; depth < 32; depth++ {
		for _, p := range st.NoEchoParams {
			if p.Default != nil {
				d.set.Add(*p.Default, fmt.Sprintf("default of NoEcho parameter %s/%s", st.Name, p.Name))
			}
		}
		if st.Parent == "" {
			return
		}
		parent, ok := asm.StackIn(st.Parent, st.Region)
		if !ok {
			return
		}
		st = parent
	}
}

func (d *discovery) region(st assembly.Stack) string {
	if st.Region != "" {
		return st.Region
	}
	return d.in.DefaultRegion
}

// resolve reads a reference's value once and adds it when it is secret.
func (d *discovery) resolve(ctx context.Context, ref dynref.Ref) {
	if d.deps.Resolver == nil || d.tried[ref.Raw] {
		return
	}
	d.tried[ref.Raw] = true
	v, secret, err := d.deps.Resolver.Resolve(ctx, ref)
	if err != nil {
		// Resolver errors name the reference already; say it once.
		msg := strings.TrimPrefix(err.Error(), "resolve "+ref.Raw+": ")
		d.warn("could not resolve %s to mask its value, so it is hidden only where the template reads it: %s", ref.Raw, msg)
		return
	}
	d.resolved[ref.Raw] = secret
	if !secret {
		return
	}
	// A JSON value also registers its fields (secrets.Set.Add): a template
	// can substitute any field on its own
	// ({{resolve:secretsmanager:id:SecretString:password}}).
	d.set.Add(v, "value of "+ref.Raw)
}

// readState reads a stack's state record; trouble is a warning.
func (d *discovery) readState(ctx context.Context, st assembly.Stack) *awsx.State {
	if d.deps.State == nil || d.in.StateBucket == "" {
		return nil
	}
	region := d.region(st)
	if region == "" {
		d.warn("could not read the state of %s to mask the values it holds: its region is unknown (set AWS_REGION)", st.Name)
		return nil
	}
	state, err := d.deps.State.Read(ctx, d.in.StateBucket, d.in.StatePrefix, st.Name, region)
	if err != nil {
		// A denied read names the missing permission (awsx.AccessDeniedError).
		d.warn("could not read the state of %s to mask the values it holds: %v", st.Name, err)
		return nil
	}
	return state // nil: never deployed
}

// warnNoBucket says, once, that values stored in state were not read
// although a stack whose state the run would read has secret positions.
func (d *discovery) warnNoBucket(stacks []stackState) {
	for _, s := range stacks {
		if s.read && len(s.st.Positions) > 0 {
			d.warn("no state bucket is known (input state-bucket, CDKD_STATE_BUCKET or cdk.json's context.cdkd.stateBucket), so values stored in state at secret positions were not read for masking")
			return
		}
	}
}

// statePositions adds the values the state record holds at secret
// positions: a record written before cdkd hid NoEcho values (schema
// version < 11) holds them in plaintext, and AWS-reported copies
// (observedProperties, attributes) may hold them whatever the version.
func (d *discovery) statePositions(st assembly.Stack, state *awsx.State) {
	if state == nil {
		return
	}
	for _, pos := range st.Positions {
		if !pos.Secure {
			continue
		}
		var values []string
		switch {
		case pos.Kind == assembly.KindResource && pos.Path != "":
			// (A position covering all of a resource's properties would
			// take every string AWS reported; it is hidden by position.)
			values = state.StringsAt(pos.LogicalID, pos.Path)
			if tail, ok := namedAfter(state, pos); ok {
				d.set.Add(tail, fmt.Sprintf("physical id of %s/%s, named after a secret", st.Name, pos.LogicalID))
			}
		case pos.Kind == assembly.KindOutput && pos.Path == "":
			if v, ok := state.OutputString(pos.Output); ok {
				values = []string{v}
			}
		}
		for _, v := range values {
			if v == model.Hidden || strings.Contains(v, "{{resolve:") {
				continue
			}
			d.set.Add(v, fmt.Sprintf("state of %s at %s", st.Name, describe(pos)))
		}
	}
}

// namedAfter returns the name a resource was given from a secret when the
// record hides it at the naming property (*** since schema 11, or the
// unresolved reference): the physical id is never hidden and ends in the
// name (a queue URL, an ARN, a bucket name). Only a whole value at a
// property called *Name is taken as a name, and only a tail long enough to
// redact by value: a wrong guess would hide an ordinary word everywhere.
func namedAfter(state *awsx.State, pos assembly.Position) (string, bool) {
	if !pos.Whole || !strings.HasSuffix(pos.Path, "Name") || strings.ContainsAny(pos.Path, ".[") {
		return "", false
	}
	res, ok := state.Resources[pos.LogicalID]
	if !ok || res.PhysicalID == "" {
		return "", false
	}
	stored, ok := res.Properties[pos.Path].(string)
	if !ok || (stored != model.Hidden && !strings.Contains(stored, "{{resolve:")) {
		return "", false
	}
	tail := res.PhysicalID
	if i := strings.LastIndexAny(tail, "/:"); i >= 0 {
		tail = tail[i+1:]
	}
	if utf8.RuneCountInString(tail) < secrets.MinRedactRunes || tail == model.Hidden {
		return "", false
	}
	return tail, true
}

// ShortWarnings are the warnings for the secrets in set that are not
// redacted and masked everywhere by value (too short, or no letter or digit), one sentence
// each, never holding a value: the same as Discover's. The caller asks
// after the redaction stage learned values by position.
func ShortWarnings(set *secrets.Set) []string {
	d := &discovery{set: set}
	d.warnShort()
	return d.warnings
}

// warnShort names, without the value, each secret that is not redacted
// and masked everywhere by value: one too short to redact by value, and one with no
// letter or digit, which the runner is not asked to mask (it would mask
// that punctuation all over the log).
func (d *discovery) warnShort() {
	for _, reg := range d.set.Registrations() {
		sources := strings.Join(reg.Sources, ", ")
		switch {
		case !reg.ByRunner && !reg.ByValue:
			d.warn("a secret (%s) holds no letter or digit and is shorter than %d characters: it is not masked by value anywhere (the runner would mask that punctuation all over the log), only at the secret positions the template gives it",
				sources, secrets.MinRedactRunes)
		case !reg.ByRunner:
			d.warn("a secret (%s) holds no letter or digit, so the runner is not asked to mask it (it would mask that punctuation all over the log): cdkd-action still hides it in everything it writes, but later steps' output is not masked",
				sources)
		case !reg.ByValue:
			d.warn("a secret (%s) is shorter than %d characters: the runner masks it in the log and cdkd-action hides it where the template reads it, but reports are not searched for it by value",
				sources, secrets.MinRedactRunes)
		}
	}
}

// spell fills in the ${...} placeholders of a templated reference from
// the state record: ${Id} is a resource's physical id, ${Id.Attr} its
// attribute, and the region-derived pseudo parameters are known. CDK
// writes a generated secret's reference this way
// ({{resolve:secretsmanager:${DbSecret}:SecretString:password::}}).
func spell(ref dynref.Ref, state *awsx.State, region string) (dynref.Ref, bool) {
	raw := ref.Raw
	var b strings.Builder
	for {
		i := strings.Index(raw, "${")
		if i < 0 {
			b.WriteString(raw)
			break
		}
		end := strings.IndexByte(raw[i:], '}')
		if end < 0 {
			return dynref.Ref{}, false
		}
		v, ok := placeholder(raw[i+2:i+end], state, region)
		if !ok {
			return dynref.Ref{}, false
		}
		b.WriteString(raw[:i])
		b.WriteString(v)
		raw = raw[i+end+1:]
	}
	return dynref.Parse(b.String())
}

func placeholder(name string, state *awsx.State, region string) (string, bool) {
	switch name {
	case "AWS::Region":
		return region, region != ""
	case "AWS::Partition":
		switch {
		case region == "":
			return "", false
		case strings.HasPrefix(region, "cn-"):
			return "aws-cn", true
		case strings.HasPrefix(region, "us-gov-"):
			return "aws-us-gov", true
		}
		return "aws", true
	case "AWS::URLSuffix":
		if strings.HasPrefix(region, "cn-") {
			return "amazonaws.com.cn", region != ""
		}
		return "amazonaws.com", region != ""
	}
	if state == nil {
		return "", false
	}
	id, attr, isAttr := strings.Cut(name, ".")
	res, ok := state.Resources[id]
	if !ok {
		return "", false
	}
	if !isAttr {
		return res.PhysicalID, res.PhysicalID != ""
	}
	v, ok := res.Attributes[attr].(string)
	return v, ok && v != ""
}

// describe names a position for diagnostics; it never holds a value.
func describe(p assembly.Position) string {
	if p.Kind == assembly.KindOutput {
		return "output " + p.Output
	}
	return p.LogicalID + "." + p.Path
}
