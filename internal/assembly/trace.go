package assembly

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// src is one secret a value reads.
type src struct {
	kind      model.SecretKind
	param     string     // kind NoEcho
	ref       dynref.Ref // kind reference
	templated bool
	// whole: the value IS the secret, not a string built from it.
	whole bool
}

func (s src) key() string {
	return string(s.kind) + "\x00" + s.param + "\x00" + s.ref.Raw
}

func noEchoSrc(param string) src {
	return src{kind: model.SecretNoEcho, param: param, whole: true}
}

func refSrc(r dynref.Ref, whole, templated bool) src {
	return src{kind: model.SecretReference, ref: r, whole: whole, templated: templated}
}

// partOf marks sources whose value is only part of (or derived from) the
// value at hand.
func partOf(ss []src) []src {
	for i := range ss {
		ss[i].whole = false
	}
	return ss
}

// merge unions source lists; a source found twice is whole only if every
// finding says so.
func merge(lists ...[]src) []src {
	var out []src
	idx := map[string]int{}
	for _, l := range lists {
		for _, s := range l {
			if i, ok := idx[s.key()]; ok {
				out[i].whole = out[i].whole && s.whole
				out[i].templated = out[i].templated || s.templated
				continue
			}
			idx[s.key()] = len(out)
			out = append(out, s)
		}
	}
	return out
}

// site is where a walk emits: a resource or an output.
type site struct {
	kind      Kind
	logicalID string
	output    string
	export    string
}

type entry struct {
	pos       Position
	ref       dynref.Ref
	templated bool
}

type tracer struct {
	tpl     *template
	params  map[string][]src  // what Ref'ing each secret parameter reads
	known   map[string]string // pseudo parameters and parameter defaults
	noEcho  []Parameter
	outputs []Output
	entries map[Position]*entry // keyed with Whole and Secure cleared
}

// newTracer prepares a trace of tpl. passed is what a parent stack passes
// into this (nested) stack's parameters; key "*" means every parameter.
func newTracer(tpl *template, s Stack, passed map[string][]src) *tracer {
	t := &tracer{tpl: tpl, params: map[string][]src{}, entries: map[Position]*entry{}}
	for _, name := range slices.Sorted(maps.Keys(tpl.Parameters)) {
		if all, ok := passed["*"]; ok {
			t.params[name] = merge(t.params[name], all)
		}
		if p, ok := passed[name]; ok {
			t.params[name] = merge(t.params[name], p)
		}
		decl, _ := tpl.Parameters[name].(map[string]any)
		if !noEcho(decl["NoEcho"]) {
			continue
		}
		t.params[name] = merge(t.params[name], []src{noEchoSrc(name)})
		p := Parameter{Name: name}
		if d, ok := stringify(decl["Default"]); ok {
			p.Default = &d
		}
		t.noEcho = append(t.noEcho, p)
	}
	t.known = pseudoParameters(s)
	if s.Parent == "" {
		// cdkd has no --parameters: a top-level stack's parameters take
		// their defaults, so a name built from one can be spelled.
		for name, decl := range tpl.Parameters {
			d, _ := decl.(map[string]any)
			typ, _ := d["Type"].(string)
			if len(t.params[name]) > 0 || strings.HasPrefix(typ, "AWS::SSM::Parameter::Value") {
				continue
			}
			if v, ok := stringify(d["Default"]); ok {
				t.known[name] = v
			}
		}
	}
	return t
}

// pseudoParameters are the pseudo parameters known before deploying, used to
// spell references and export names the way CloudFormation would.
func pseudoParameters(s Stack) map[string]string {
	p := map[string]string{}
	if s.Region != "" {
		partition, suffix := "aws", "amazonaws.com"
		switch {
		case strings.HasPrefix(s.Region, "cn-"):
			partition, suffix = "aws-cn", "amazonaws.com.cn"
		case strings.HasPrefix(s.Region, "us-gov-"):
			partition = "aws-us-gov"
		}
		p["AWS::Region"], p["AWS::Partition"], p["AWS::URLSuffix"] = s.Region, partition, suffix
	}
	if s.Account != "" {
		p["AWS::AccountId"] = s.Account
	}
	if s.Parent == "" {
		p["AWS::StackName"] = s.Name
	}
	return p
}

func (t *tracer) trace() {
	for _, id := range slices.Sorted(maps.Keys(t.tpl.Resources)) {
		_, props, _, ok := t.tpl.resource(id)
		if !ok || props == nil {
			continue
		}
		t.walk(props, nil, site{kind: KindResource, logicalID: id})
	}
	for _, name := range slices.Sorted(maps.Keys(t.tpl.Outputs)) {
		o, ok := t.tpl.Outputs[name].(map[string]any)
		if !ok {
			continue
		}
		at := site{kind: KindOutput, output: name}
		out := Output{Name: name}
		exp, _ := o["Export"].(map[string]any)
		if n, ok := exp["Name"]; ok {
			out.Exported = true
			if s := t.spell(n); !strings.Contains(s, "${") && !strings.Contains(s, "{{resolve:") {
				at.export, out.Export = s, s
			}
			t.walk(n, []string{"Export", "Name"}, at)
		}
		t.outputs = append(t.outputs, out)
		if v, ok := o["Value"]; ok {
			t.walk(v, nil, at)
		}
	}
}

func (t *tracer) emit(at site, path []string, s src) {
	p := Position{
		Kind:      at.kind,
		LogicalID: at.logicalID,
		Output:    at.output,
		Export:    at.export,
		Path:      strings.Join(path, "."),
		Source:    s.kind,
		Parameter: s.param,
		Reference: s.ref.Raw,
		Service:   s.ref.Service,
	}
	if e, ok := t.entries[p]; ok {
		e.pos.Whole = e.pos.Whole && s.whole
		e.templated = e.templated || s.templated
		return
	}
	key := p
	p.Whole = s.whole
	p.Secure = s.kind == model.SecretNoEcho || s.ref.Service != dynref.SSM
	t.entries[key] = &entry{pos: p, ref: s.ref, templated: s.templated}
}

// fill stores the trace's findings in s.
func (t *tracer) fill(s *Stack) {
	s.NoEchoParams, s.Outputs = t.noEcho, t.outputs
	s.Positions, s.References = t.results()
}

func (t *tracer) results() ([]Position, []Reference) {
	var pos []Position
	var refs []Reference
	for _, e := range t.entries {
		pos = append(pos, e.pos)
		if e.pos.Source == model.SecretReference {
			refs = append(refs, Reference{Ref: e.ref, Position: e.pos, Templated: e.templated})
		}
	}
	slices.SortFunc(pos, comparePositions)
	slices.SortFunc(refs, func(a, b Reference) int { return comparePositions(a.Position, b.Position) })
	return pos, refs
}

func comparePositions(a, b Position) int {
	return cmp.Or(
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.LogicalID, b.LogicalID),
		cmp.Compare(a.Output, b.Output),
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Source, b.Source),
		cmp.Compare(a.Parameter, b.Parameter),
		cmp.Compare(a.Reference, b.Reference),
	)
}

// passedTo reports what the resource logicalID (a nested stack) passes into
// each parameter of its template, read off the positions under "Parameters".
func (t *tracer) passedTo(logicalID string) map[string][]src {
	passed := map[string][]src{}
	for _, e := range t.entries {
		p := e.pos
		if p.Kind != KindResource || p.LogicalID != logicalID {
			continue
		}
		s := src{kind: p.Source, param: p.Parameter, ref: e.ref, templated: e.templated, whole: p.Whole}
		segs := splitPath(p.Path)
		switch {
		case len(segs) == 0 || (len(segs) == 1 && segs[0] == "Parameters"):
			s.whole = false
			passed["*"] = merge(passed["*"], []src{s})
		case segs[0] == "Parameters":
			s.whole = s.whole && len(segs) == 2
			passed[segs[1]] = merge(passed[segs[1]], []src{s})
		}
	}
	return passed
}

// walk emits every secret the value v at path reads. Plain maps and lists
// are descended, building the path; an intrinsic stands for the value it
// resolves to, so its secrets are emitted at its own path, except that
// Fn::If and Fn::Select pick one of several values whose own structure is
// kept.
func (t *tracer) walk(v any, path []string, at site) {
	switch x := v.(type) {
	case string:
		for _, s := range t.evalString(x) {
			t.emit(at, path, s)
		}
	case []any:
		for i, e := range x {
			t.walk(e, appendPath(path, strconv.Itoa(i)), at)
		}
	case map[string]any:
		fn, arg, ok := intrinsic(x)
		if !ok {
			for _, k := range slices.Sorted(maps.Keys(x)) {
				t.walk(x[k], appendPath(path, k), at)
			}
			return
		}
		args, _ := arg.([]any)
		switch {
		case fn == "Fn::If" && len(args) == 3:
			t.walk(args[1], path, at)
			t.walk(args[2], path, at)
			return
		case fn == "Fn::Select" && len(args) == 2:
			if list, ok := args[1].([]any); ok {
				for _, e := range list {
					t.walk(e, path, at)
				}
				return
			}
		}
		for _, s := range t.eval(x) {
			t.emit(at, path, s)
		}
	}
}

func appendPath(path []string, seg string) []string {
	return append(slices.Clip(path), seg)
}

// intrinsic recognizes {"Ref": ...} and {"Fn::X": ...}.
func intrinsic(m map[string]any) (fn string, arg any, ok bool) {
	if len(m) != 1 {
		return "", nil, false
	}
	for k, v := range m {
		if k == "Ref" || strings.HasPrefix(k, "Fn::") {
			return k, v, true
		}
	}
	return "", nil, false
}

// eval returns the secrets the value of v reads, whatever its structure.
func (t *tracer) eval(v any) []src {
	switch x := v.(type) {
	case string:
		return t.evalString(x)
	case []any:
		var out []src
		for _, e := range x {
			out = merge(out, partOf(t.eval(e)))
		}
		return out
	case map[string]any:
		if fn, arg, ok := intrinsic(x); ok {
			return t.evalIntrinsic(fn, arg)
		}
		var out []src
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = merge(out, partOf(t.eval(x[k])))
		}
		return out
	}
	return nil
}

func (t *tracer) evalString(s string) []src {
	var out []src
	for _, r := range scanRefs(s) {
		out = merge(out, []src{refSrc(r, s == r.Raw, false)})
	}
	return out
}

func (t *tracer) evalIntrinsic(fn string, arg any) []src {
	args, isList := arg.([]any)
	switch fn {
	case "Ref":
		name, _ := arg.(string)
		return slices.Clone(t.params[name])
	case "Fn::GetAtt", "Fn::ImportValue", "Fn::GetAZs":
		// Attributes, imports and zones are not parameters; what they hold
		// is for value masking.
		return nil
	case "Fn::FindInMap":
		// The mapping's values are literals in the template; only a
		// language-extension DefaultValue can carry a secret.
		if isList && len(args) == 4 {
			if d, ok := args[3].(map[string]any); ok {
				return t.eval(d["DefaultValue"])
			}
		}
		return nil
	case "Fn::If":
		if isList && len(args) == 3 {
			return merge(t.eval(args[1]), t.eval(args[2]))
		}
	case "Fn::Select":
		if isList && len(args) == 2 {
			if list, ok := args[1].([]any); ok {
				var out []src
				for _, e := range list {
					out = merge(out, t.eval(e))
				}
				return out
			}
			return partOf(t.eval(args[1]))
		}
	case "Fn::Join":
		if isList && len(args) == 2 {
			return t.evalJoin(args[0], args[1])
		}
	case "Fn::Sub":
		if tmpl, vars, ok := subArgs(arg); ok {
			return t.evalSub(tmpl, vars)
		}
	}
	// Fn::Base64, Fn::Split, Fn::Cidr, Fn::ToJsonString, ... and malformed
	// calls: conservatively, the result is derived from every argument.
	return partOf(t.eval(arg))
}

func (t *tracer) evalJoin(delim, list any) []src {
	out := partOf(t.eval(delim))
	if elems, ok := list.([]any); ok {
		for _, e := range elems {
			s := t.eval(e)
			if len(elems) != 1 {
				s = partOf(s)
			}
			out = merge(out, s)
		}
	} else {
		out = merge(out, partOf(t.eval(list)))
	}
	// CDK splits a reference to a secret it creates across the parts:
	// ["{{resolve:secretsmanager:", {"Ref": "Secret"}, ":SecretString:pw::}}"].
	return merge(out, t.spelledRefs(t.spell(map[string]any{"Fn::Join": []any{delim, list}})))
}

func (t *tracer) evalSub(tmpl string, vars map[string]any) []src {
	var out []src
	used := map[string]bool{}
	for _, name := range placeholders(tmpl) {
		used[name] = true
		var s []src
		if v, ok := vars[name]; ok {
			s = t.eval(v)
		} else {
			s = slices.Clone(t.params[name])
		}
		if tmpl != "${"+name+"}" {
			s = partOf(s)
		}
		out = merge(out, s)
	}
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		if !used[name] {
			// CloudFormation drops an unused variable; count it anyway.
			out = merge(out, partOf(t.eval(vars[name])))
		}
	}
	return merge(out, t.spelledRefs(t.spellSub(tmpl, vars)))
}

// spelledRefs finds the dynamic references in a value spelled out from
// intrinsics.
func (t *tracer) spelledRefs(spelled string) []src {
	var out []src
	for _, r := range scanRefs(spelled) {
		out = merge(out, []src{refSrc(r, spelled == r.Raw, strings.Contains(r.Raw, "${"))})
	}
	return out
}

func subArgs(arg any) (tmpl string, vars map[string]any, ok bool) {
	switch x := arg.(type) {
	case string:
		return x, nil, true
	case []any:
		if len(x) != 2 {
			return "", nil, false
		}
		tmpl, ok = x[0].(string)
		vars, _ = x[1].(map[string]any)
		return tmpl, vars, ok
	}
	return "", nil, false
}

// placeholders lists the ${Name} variables of an Fn::Sub template; ${!Name}
// is a literal.
func placeholders(tmpl string) []string {
	var names []string
	forSub(tmpl, func(lit string, name string, isVar bool) {
		if isVar {
			names = append(names, name)
		}
	})
	return names
}

// forSub cuts an Fn::Sub template into literal text and ${Name} variables.
func forSub(tmpl string, fn func(lit, name string, isVar bool)) {
	for tmpl != "" {
		i := strings.Index(tmpl, "${")
		if i < 0 {
			fn(tmpl, "", false)
			return
		}
		if i > 0 {
			fn(tmpl[:i], "", false)
		}
		rest := tmpl[i+2:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			fn(tmpl[i:], "", false)
			return
		}
		if name, ok := strings.CutPrefix(rest[:end], "!"); ok {
			fn("${"+name+"}", "", false)
		} else {
			fn("", strings.TrimSpace(rest[:end]), true)
		}
		tmpl = rest[end+1:]
	}
}

// spell renders a value as a string the way CloudFormation would build it,
// writing ${Name} for what is only known at deploy time.
func (t *tracer) spell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case interface{ String() string }: // json.Number
		return x.String()
	case map[string]any:
		fn, arg, ok := intrinsic(x)
		if !ok {
			break
		}
		args, _ := arg.([]any)
		switch fn {
		case "Ref":
			if name, ok := arg.(string); ok {
				return t.variable(name)
			}
		case "Fn::GetAtt":
			if s, ok := arg.(string); ok {
				return "${" + s + "}"
			}
			if len(args) == 2 {
				return "${" + t.spell(args[0]) + "." + t.spell(args[1]) + "}"
			}
		case "Fn::Join":
			if len(args) == 2 {
				if list, ok := args[1].([]any); ok {
					parts := make([]string, len(list))
					for i, e := range list {
						parts[i] = t.spell(e)
					}
					return strings.Join(parts, t.spell(args[0]))
				}
			}
		case "Fn::Sub":
			if tmpl, vars, ok := subArgs(arg); ok {
				return t.spellSub(tmpl, vars)
			}
		case "Fn::Select":
			if len(args) == 2 {
				i, err := strconv.Atoi(t.spell(args[0]))
				if list, ok := args[1].([]any); ok && err == nil && i >= 0 && i < len(list) {
					return t.spell(list[i])
				}
			}
		}
	}
	return "${?}"
}

func (t *tracer) spellSub(tmpl string, vars map[string]any) string {
	var b strings.Builder
	forSub(tmpl, func(lit, name string, isVar bool) {
		switch {
		case !isVar:
			b.WriteString(lit)
		case vars[name] != nil:
			b.WriteString(t.spell(vars[name]))
		default:
			b.WriteString(t.variable(name))
		}
	})
	return b.String()
}

func (t *tracer) variable(name string) string {
	if v, ok := t.known[name]; ok {
		return v
	}
	return "${" + name + "}"
}
