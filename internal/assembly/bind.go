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
func (a *Assembly) BindCreates(d *model.Diff) int {
	b := binder{a: a}
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
	// read are the bytes of the templates Load read, by file.
	read map[string][]byte
	// file and tpl are the template last decoded (nil: it could not be
	// read): creations are bound stack by stack, so one is decoded at a
	// time and each once.
	file    string
	tpl     *template
	unbound int
}

// template decodes the template in file, from the bytes Load read or
// from the file; nil when it cannot be read.
func (b *binder) template(file string) *template {
	if file == b.file {
		return b.tpl
	}
	var t *template
	var err error
	if raw, ok := b.read[file]; ok {
		t, err = decodeTemplate(raw)
	} else {
		_, t, err = readTemplate(file)
	}
	if err != nil {
		t = nil
	}
	b.file, b.tpl = file, t
	return t
}

func (b *binder) stacks(stacks []model.StackDiff, parent string) {
	for i := range stacks {
		s := &stacks[i]
		for c := range s.Changes {
			ch := &s.Changes[c]
			if ch.ChangeType != model.ChangeCreate || len(ch.PropertyChanges) > 0 || ch.Unbound != "" {
				continue
			}
			props, why := b.properties(s.Stack, s.Region, parent, ch.LogicalID)
			if why != "" {
				ch.Unbound = why
				b.unbound++
				continue
			}
			ch.PropertyChanges = props
		}
		name := s.Stack
		if parent != "" {
			name = parent + "~" + s.Stack
		}
		b.stacks(s.Children, name)
	}
}

// properties are the created resource's template properties, or why they
// cannot be read.
func (b *binder) properties(stack, region, parent, logicalID string) ([]model.PropertyChange, string) {
	if b.a == nil {
		return nil, NoAssembly
	}
	st, ok := b.a.StackIn(stack, region)
	if !ok && parent != "" {
		st, ok = b.a.StackIn(parent+"~"+stack, region)
	}
	switch {
	case !ok:
		return nil, fmt.Sprintf("stack %s is not in the cloud assembly", stack)
	case st.Unknown != "":
		return nil, st.Unknown
	case st.TemplateFile == "":
		return nil, fmt.Sprintf("the cloud assembly names no template for stack %s", stack)
	}
	t := b.template(st.TemplateFile)
	if t == nil {
		return nil, fmt.Sprintf("the template of stack %s cannot be read", stack)
	}
	_, raw, _, ok := t.resource(logicalID)
	if !ok {
		return nil, fmt.Sprintf("resource %s is not in the template of stack %s", logicalID, stack)
	}
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
			v = templateStandIn(v)
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
