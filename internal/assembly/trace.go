package assembly

import (
	"cmp"
	"encoding/json"
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
	// imports are the export names Fn::ImportValue reads, spelled; one
	// that cannot be spelled before deploying is importsUnknown.
	imports        map[string]bool
	importsUnknown bool
	// literals are the public leaves by logical id, outputNames the
	// outputs' literal values (see literal).
	literals    map[string][]Literal
	outputNames map[string][]string
}

// newTracer prepares a trace of tpl. passed is what a parent stack passes
// into this (nested) stack's parameters; key "*" means every parameter.
func newTracer(tpl *template, s Stack, passed map[string][]src) *tracer {
	t := &tracer{tpl: tpl, params: map[string][]src{}, entries: map[Position]*entry{}, imports: map[string]bool{}}
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
	// One path buffer serves every walk (see appendPath).
	path := make([]string, 0, 16)
	for _, id := range t.tpl.resourceIDs() {
		_, props, _, ok := t.tpl.resource(id)
		if !ok || props == nil {
			continue
		}
		t.walk(props, path, site{kind: KindResource, logicalID: id})
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
	s.Imports, s.ImportsUnknown = slices.Sorted(maps.Keys(t.imports)), t.importsUnknown
	s.Literals, s.outputLiterals = t.literals, t.outputNames
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
		srcs := t.evalString(x)
		for _, s := range srcs {
			t.emit(at, path, s)
		}
		if len(srcs) == 0 {
			t.literal(at, path, x)
		}
	case json.Number, bool:
		t.literal(at, path, x)
	case []any:
		for i, e := range x {
			t.walk(e, appendPath(path, strconv.Itoa(i)), at)
		}
	case map[string]any:
		fn, arg, ok := intrinsic(x)
		if !ok {
			// Sorted, for positions in a stable order; most objects are
			// small, and their keys are sorted without allocating.
			var small [8]string
			keys := small[:0]
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
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
		srcs := t.eval(x)
		for _, s := range srcs {
			t.emit(at, path, s)
		}
		if len(srcs) == 0 {
			t.literal(at, path, x)
		}
	}
}

// appendPath is path one level down. It may write into path's spare
// capacity: walk is depth first, so a sibling's path replaces one that is
// done with, and emit copies the path it records (strings.Join).
func appendPath(path []string, seg string) []string {
	return append(path, seg)
}
