package model

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The reviewed change set is what the deploy gate compares a deploy with:
// the change set a diff showed reviewers, read back from where the diff
// left it (the diff comment's hidden line, internal/prcomment, or the state
// bucket, internal/reviewstore). Both hold the same encoding: gzip of one
// JSON object,
//
//	{"v":1,"digest":"v1:…","stacks":[…]}        the whole change set, or
//	{"v":1,"digest":"v1:…","fingerprints":[…]}  one short hash per item
//
// "stacks" is the REDACTED, sorted change set as the report renders it (its
// digest is computed over its canonical form); "fingerprints" is
// Diff.Fingerprints(), for where the whole change set does not fit. The
// digest alone decides; the change set only explains a mismatch.
const (
	changeSetV = 1
	// maxInflated bounds what an encoded change set may decompress to.
	maxInflated = 32 << 20
)

// ChangeSet is a reviewed change set read back: whole, or only its
// fingerprints.
type ChangeSet struct {
	Digest       string
	Diff         *Diff
	Fingerprints []Fingerprint
}

type changeSetEnvelope struct {
	V            int            `json:"v"`
	Digest       string         `json:"digest"`
	Stacks       *[]StackDiff   `json:"stacks,omitempty"`
	Fingerprints *[]Fingerprint `json:"fingerprints,omitempty"`
}

// ErrChangeSetMismatch means an encoded change set is well formed but does
// not match the digest it was read for. The diff writes both together, so
// one was edited or swapped since: the deploy refuses it rather than guess
// which part to trust.
var ErrChangeSetMismatch = errors.New("the stored change set does not match the header's digest")

// EncodeChangeSet is the whole change set d (redacted, sorted), encoded.
// It is d as the report shows it (not its canonical form, which drops the
// notes and reorders JSON keys): the deploy gate re-renders the visible
// report from it. Its digest is the same either way.
func EncodeChangeSet(d Diff) ([]byte, error) {
	stacks := d.Stacks
	if stacks == nil {
		stacks = []StackDiff{}
	}
	return gzipChangeSet(changeSetEnvelope{V: changeSetV, Digest: d.Digest(), Stacks: &stacks})
}

// EncodeFingerprints is the fingerprint form of d, encoded: what is left
// when the whole change set does not fit.
func EncodeFingerprints(d Diff) ([]byte, error) {
	fingerprints := d.Fingerprints()
	return gzipChangeSet(changeSetEnvelope{V: changeSetV, Digest: d.Digest(), Fingerprints: &fingerprints})
}

func gzipChangeSet(env changeSetEnvelope) ([]byte, error) {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, fmt.Errorf("encode change set: %w", err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // the level is valid
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, fmt.Errorf("compress change set: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress change set: %w", err)
	}
	return gz.Bytes(), nil
}

// DecodeChangeSet reads an encoded change set and checks it against
// digest: a whole one must hash to it, a fingerprint one must name it
// (ErrChangeSetMismatch otherwise).
func DecodeChangeSet(gz []byte, digest string) (*ChangeSet, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("read the reviewed change set: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxInflated+1))
	if err != nil {
		return nil, fmt.Errorf("read the reviewed change set: %w", err)
	}
	if len(raw) > maxInflated {
		return nil, errors.New("read the reviewed change set: it inflates to more than 32 MiB")
	}
	var env changeSetEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("read the reviewed change set: %w", err)
	}
	switch {
	case env.V != changeSetV:
		return nil, fmt.Errorf("read the reviewed change set: unknown version %d", env.V)
	case env.Digest != digest:
		return nil, fmt.Errorf("read the reviewed change set: %w: it records digest %s, the header %s", ErrChangeSetMismatch, ShortDigest(env.Digest), ShortDigest(digest))
	case env.Stacks != nil:
		d := Diff{Stacks: *env.Stacks}
		if got := d.Digest(); got != digest {
			return nil, fmt.Errorf("read the reviewed change set: %w: its digest is %s, the header's %s", ErrChangeSetMismatch, ShortDigest(got), ShortDigest(digest))
		}
		return &ChangeSet{Digest: digest, Diff: &d}, nil
	case env.Fingerprints != nil:
		return &ChangeSet{Digest: digest, Fingerprints: *env.Fingerprints}, nil
	}
	return nil, errors.New("read the reviewed change set: it holds neither stacks nor fingerprints")
}

// DecodeWholeChangeSet is DecodeChangeSet of a change set that must be
// whole: the state bucket keeps only whole ones.
func DecodeWholeChangeSet(gz []byte, digest string) (*ChangeSet, error) {
	cs, err := DecodeChangeSet(gz, digest)
	if err != nil {
		return nil, err
	}
	if cs.Diff == nil {
		return nil, errors.New("read the reviewed change set: the stored object holds only fingerprints")
	}
	return cs, nil
}

// ShortDigest is enough of a digest to tell two apart in a message.
func ShortDigest(d string) string {
	version, hex, ok := strings.Cut(d, ":")
	if !ok {
		version, hex = "", d
	}
	if len(hex) > 12 {
		hex = hex[:12]
	}
	if !ok {
		return hex
	}
	return version + ":" + hex
}
