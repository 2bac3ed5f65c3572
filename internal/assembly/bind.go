package assembly

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// cdkd's diff gives a created resource its logical id and type only, so
// nothing in a review would bind what the resource is created with: a
// synth at deploy time that differs (an environment branch, a timestamp, a
// lookup) or a push after approval would create something else under the
// same digest. BindCreates takes each created resource's properties from
// the template the diff compared and makes them part of the change set.

// NoAssembly is why a creation is unbound when no cloud assembly is known.
const NoAssembly = "no cloud assembly to read its properties from (pass app: a synthesized cdk.out)"

// BindCreates gives every CREATE in d that carries no property changes its
// template properties as property changes with only a new value, one per
// top-level property, sorted by path; the values are the template's
// (intrinsics such as Ref stay as they are written), still to be redacted.
// A creation it cannot bind (no assembly: a nil a; a stack or resource the
// assembly does not hold, or a template it cannot read) gets Unbound set to
// why, and the deploy gate refuses it. It returns the number of creations
// left unbound. The templates Load read are used, then released.
func (a *Assembly) BindCreates(d *model.Diff) int { return a.bindCreates(d, false) }

// bindCreates is BindCreates; leaves stands in for a secret below a
// top-level property only where it sits (see BindCreatesLeafByLeaf).
func (a *Assembly) bindCreates(d *model.Diff, leaves bool) int {
	b := binder{a: a, leaves: leaves}
	if a != nil && a.templates != nil {
		b.read = a.templates // read by Load: not read again
		// A run binds one diff: the templates are let go now, not held
		// through the report (a later call reads the files).
		a.templates = nil
	}
	b.stacks(d.Stacks, "")
	return b.unbound
}

type binder struct {
	a *Assembly
	// read are the templates Load read, as bytes, by file; only read
	// while binding.
	read    map[string][]byte
	unbound int
	// leaves: see BindCreatesLeafByLeaf.
	leaves bool
}

// unboundCreate reports a creation whose properties the diff does not
// carry.
func unboundCreate(ch *model.ResourceChange) bool {
	return ch.ChangeType == model.ChangeCreate && len(ch.PropertyChanges) == 0 && ch.Unbound == ""
}

func (b *binder) stacks(stacks []model.StackDiff, parent string) {
	for i := range stacks {
		s := &stacks[i]
		b.stack(s, parent)
		name := s.Stack
		if parent != "" {
			name = parent + "~" + s.Stack
		}
		b.stacks(s.Children, name)
	}
}

// stack binds the creations of one stack, from its template's resources.
func (b *binder) stack(s *model.StackDiff, parent string) {
	if !slices.ContainsFunc(s.Changes, func(ch model.ResourceChange) bool { return unboundCreate(&ch) }) {
		return
	}
	st, resources, why := b.resources(s.Stack, s.Region, parent)
	for c := range s.Changes {
		ch := &s.Changes[c]
		if !unboundCreate(ch) {
			continue
		}
		var props []model.PropertyChange
		if why == "" {
			props, ch.Unbound = properties(st, s.Stack, resources, ch.LogicalID, b.leaves)
		} else {
			ch.Unbound = why
		}
		if ch.Unbound != "" {
			b.unbound++
			continue
		}
		ch.PropertyChanges = props
	}
}

// resources finds a stack diff's stack in the assembly and decodes its
// template's resources from the bytes Load read, so that what is bound is
// what Load traced; why says why they cannot be read.
func (b *binder) resources(stack, region, parent string) (Stack, map[string]any, string) {
	if b.a == nil {
		return Stack{}, nil, NoAssembly
	}
	st, ok := b.a.StackIn(stack, region)
	if !ok && parent != "" {
		st, ok = b.a.StackIn(parent+"~"+stack, region)
	}
	switch {
	case !ok:
		return st, nil, fmt.Sprintf("stack %s is not in the cloud assembly", stack)
	case st.Unknown != "":
		return st, nil, st.Unknown
	case st.TemplateFile == "":
		return st, nil, fmt.Sprintf("the cloud assembly names no template for stack %s", stack)
	}
	var tpl *template
	var err error
	if raw, ok := b.read[st.TemplateFile]; ok {
		tpl, err = decodeTemplate(raw)
	} else {
		// Released by an earlier call: read again, as Load reads it.
		_, tpl, err = readTemplate(st.TemplateFile)
	}
	if err != nil {
		return st, nil, fmt.Sprintf("the template of stack %s cannot be read", stack)
	}
	return st, tpl.Resources, ""
}

// properties are the created resource's template properties, or why they
// cannot be read; stack is the stack's name in the diff.
func properties(st Stack, stack string, resources map[string]any, logicalID string, leaves bool) ([]model.PropertyChange, string) {
	r, ok := resources[logicalID].(map[string]any)
	if !ok {
		return nil, fmt.Sprintf("resource %s is not in the template of stack %s", logicalID, stack)
	}
	raw := r["Properties"]
	if raw == nil {
		return []model.PropertyChange{}, "" // created with no properties
	}
	props, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Sprintf("the Properties of resource %s in stack %s are not an object", logicalID, stack)
	}
	out := make([]model.PropertyChange, 0, len(props))
	for _, k := range slices.Sorted(maps.Keys(props)) {
		v, err := encodeValue(props[k])
		if err != nil {
			return nil, fmt.Sprintf("property %s of resource %s in stack %s cannot be encoded: %v", k, logicalID, stack, err)
		}
		if st.SecretAt(logicalID, k) != model.SecretNone {
			v = boundSecret(st, logicalID, k, props[k], v, leaves)
		}
		out = append(out, model.PropertyChange{Path: k, New: v})
	}
	return out, ""
}

// templateStandIn stands for what the template writes at a secret position
// (a Ref to a NoEcho parameter, a {{resolve:...}} reference): redaction
// hides and learns every value at such a position as a secret, and the
// template's own words (a parameter's name) are no secret to hide
// everywhere else. A hash of them is: it binds which parameter or
// reference feeds the position, and the secret value itself is the
// fingerprints' (model.SecretValue).
func templateStandIn(v model.Value) model.Value {
	sum := sha256.Sum256(canonicalJSON(v))
	return model.StringValue("template:" + hex.EncodeToString(sum[:12]))
}

// canonicalJSON is v re-encoded with sorted keys (encoding/json sorts map
// keys), so the stand-in does not depend on the template's key order.
func canonicalJSON(v model.Value) []byte {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v.Raw))
	dec.UseNumber()
	if dec.Decode(&x) != nil {
		return v.Raw
	}
	b, err := json.Marshal(x)
	if err != nil {
		return v.Raw
	}
	return b
}

// encodeValue writes a template value back as compact JSON (numbers as
// written: the template is decoded with json.Number).
func encodeValue(v any) (model.Value, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return model.Value{}, err
	}
	return model.Value{Raw: bytes.TrimRight(buf.Bytes(), "\n")}, nil
}
