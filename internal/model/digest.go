package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// DigestVersion names the canonical form below; it changes whenever that form
// does, so a deploy never compares digests computed two different ways.
const DigestVersion = "v1"

// Digest is the canonical fingerprint of the change set: what the deploy gate
// compares with the digest recorded in the reviewed PR comment. It covers every
// stack, change, property path and value (after redaction, so the public digest
// cannot be used to guess a secret offline) in a stable order, and leaves out
// notes that are not changes.
func (d Diff) Digest() string {
	c := d.Canonical()
	c.Sort()
	h := sha256.New()
	h.Write([]byte("cdkd-action diff " + DigestVersion + "\n"))
	enc := json.NewEncoder(h)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(canonicalStacks(c.Stacks))
	return DigestVersion + ":" + hex.EncodeToString(h.Sum(nil))
}

// Canonical returns a deep copy without the parts that are not changes (NoEcho
// notes) and with every value in canonical JSON (sorted keys, compact).
func (d Diff) Canonical() Diff {
	return Diff{Stacks: canonicalStacks(d.Stacks)}
}

func canonicalStacks(in []StackDiff) []StackDiff {
	if len(in) == 0 {
		return nil
	}
	out := make([]StackDiff, len(in))
	for i, s := range in {
		cs := StackDiff{Stack: s.Stack, Region: s.Region, Children: canonicalStacks(s.Children)}
		for _, ch := range s.Changes {
			cc := ResourceChange{LogicalID: ch.LogicalID, ChangeType: ch.ChangeType, ResourceType: ch.ResourceType,
				CCAPI: append([]string(nil), ch.CCAPI...)}
			for _, p := range ch.PropertyChanges {
				p.Old, p.New = canonicalValue(p.Old), canonicalValue(p.New)
				if p.ReplacementPropagated != nil {
					v := *p.ReplacementPropagated
					p.ReplacementPropagated = &v
				}
				cc.PropertyChanges = append(cc.PropertyChanges, p)
			}
			for _, a := range ch.AttributeChanges {
				a.Old, a.New = canonicalValue(a.Old), canonicalValue(a.New)
				cc.AttributeChanges = append(cc.AttributeChanges, a)
			}
			cs.Changes = append(cs.Changes, cc)
		}
		for _, o := range s.OutputChanges {
			o.Old, o.New = canonicalValue(o.Old), canonicalValue(o.New)
			cs.OutputChanges = append(cs.OutputChanges, o)
		}
		out[i] = cs
	}
	return out
}

// canonicalValue re-encodes JSON with sorted object keys and exact numbers.
func canonicalValue(v Value) Value {
	if v.Raw == nil {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(v.Raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return Value{Raw: append(json.RawMessage(nil), v.Raw...)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(x)
	return Value{Raw: bytes.TrimRight(buf.Bytes(), "\n")}
}
