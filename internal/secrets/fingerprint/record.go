package fingerprint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// PositionKind says whether a position is a resource property or an output.
type PositionKind string

const (
	KindResource PositionKind = "resource"
	KindOutput   PositionKind = "output"
)

// Position is where a secret value fills a stack; all of it is the salt.
// No field holds a value: they are names from the template.
type Position struct {
	Stack  string       `json:"stack"`
	Region string       `json:"region"`
	Kind   PositionKind `json:"kind"`
	// LogicalID is the resource (KindResource).
	LogicalID string `json:"logicalId,omitempty"`
	// Output is the output's name (KindOutput).
	Output string `json:"output,omitempty"`
	// Path is the property path as cdkd prints it ("" for an output's value).
	Path string `json:"path,omitempty"`
}

// Key is the position's key in a Record: stable and readable.
func (p Position) Key() string {
	if p.Kind == KindOutput {
		return "output:" + p.Output + pathSuffix(p.Path)
	}
	return "resource:" + p.LogicalID + pathSuffix(p.Path)
}

func pathSuffix(path string) string {
	if path == "" {
		return ""
	}
	return "." + path
}

// String names the position for messages; it never holds a value.
func (p Position) String() string {
	return p.Stack + " " + strings.TrimPrefix(strings.TrimPrefix(p.Key(), "resource:"), "output:")
}

// Entry is one position's record: its salt inputs, where the value came
// from (a parameter name or a reference's spelling, both template text) and
// the fingerprint.
type Entry struct {
	Position    Position    `json:"position"`
	Source      string      `json:"source,omitempty"`
	Fingerprint Fingerprint `json:"fingerprint"`
}

// RecordVersion is the version of the stored object's shape.
const RecordVersion = 1

// Record is the stored object of one stack in one region
// (<prefix>/<stack>/<region>/fingerprints.json). It holds fingerprints,
// their salt inputs, parameters and key ids, never a value.
type Record struct {
	Version int    `json:"version"`
	Stack   string `json:"stack"`
	Region  string `json:"region"`
	// KeyID is the key id of the last run that wrote the record; each
	// fingerprint carries its own.
	KeyID     string           `json:"keyId,omitempty"`
	Positions map[string]Entry `json:"positions"`
}

// NewRecord returns an empty record for a stack.
func NewRecord(stack, region string) *Record {
	return &Record{Version: RecordVersion, Stack: stack, Region: region, Positions: map[string]Entry{}}
}

// Lookup returns the fingerprint recorded at pos, or nil.
func (r *Record) Lookup(pos Position) *Fingerprint {
	if r == nil {
		return nil
	}
	e, ok := r.Positions[pos.Key()]
	if !ok || e.Position != pos {
		return nil
	}
	fp := e.Fingerprint
	return &fp
}

// Merge returns base with each of updates' positions replacing base's; a
// position absent from updates keeps base's entry. KeyID becomes updates'.
func Merge(base, updates *Record) *Record {
	out := NewRecord(updates.Stack, updates.Region)
	if base != nil {
		maps.Copy(out.Positions, base.Positions)
	}
	maps.Copy(out.Positions, updates.Positions)
	out.KeyID = updates.KeyID
	return out
}

// maxRecordSize bounds a record read from the bucket.
const maxRecordSize = 16 << 20

// Encode is the record as stored: indented JSON, positions sorted.
func (r *Record) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode fingerprints: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode parses a stored record. It is strict: an object it does not
// understand is an error, and the caller treats its fingerprints as
// unknown. Errors never echo the object's bytes.
func Decode(raw []byte) (*Record, error) {
	if len(raw) > maxRecordSize {
		return nil, fmt.Errorf("fingerprints object is larger than %d bytes", maxRecordSize)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("decode fingerprints: invalid JSON at offset %d", se.Offset)
		}
		return nil, errors.New("decode fingerprints: not a fingerprints object")
	}
	if r.Version != RecordVersion {
		return nil, fmt.Errorf("decode fingerprints: version %d is not %d", r.Version, RecordVersion)
	}
	if r.Positions == nil {
		r.Positions = map[string]Entry{}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Positions)) {
		if r.Positions[k].Position.Key() != k {
			return nil, fmt.Errorf("decode fingerprints: entry %q does not match its position", k)
		}
	}
	return &r, nil
}
