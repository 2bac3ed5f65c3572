package prcomment

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The reviewed change set travels in the diff comment, on the line after
// the hidden header, as a second HTML comment:
//
//	<!-- cdkd-action-changeset:v1 BASE64 -->
//
// BASE64 is standard base64 (with padding) of gzip of one JSON object:
//
//	{"v":1,"digest":"v1:…","stacks":[…]}        the whole change set, or
//	{"v":1,"digest":"v1:…","fingerprints":[…]}  one short hash per item
//
// "stacks" is the REDACTED, sorted change set as the report renders it (its
// digest is computed over its canonical form); "fingerprints" is model.Diff.Fingerprints(),
// used when the whole change set does not fit. Both are masked as the
// comment is, but the whole form holds every value whole, which the visible
// comment may shorten or leave out: anyone who can read the pull request can
// decode it. A deploy trusts the block only inside a comment
// written by the action's identity, and only when it matches the header's
// digest: the whole form must hash to it, the fingerprint form must name
// it. The digest alone decides; the block only explains a mismatch. A block
// that does not match its header (ErrChangeSetMismatch) shows the comment
// was edited, and the deploy refuses it.
const (
	// changeSetMarker starts the line in every version.
	changeSetMarker = "<!-- cdkd-action-changeset:"
	changeSetPrefix = changeSetMarker + "v1 "
	changeSetSuffix = " -->"
	changeSetV      = 1
	// maxInflated bounds what a block may decompress to.
	maxInflated = 32 << 20
)

// ChangeSet is a reviewed change set read back from a comment: whole, or
// only its fingerprints.
type ChangeSet struct {
	Digest       string
	Diff         *model.Diff
	Fingerprints []model.Fingerprint
}

type envelope struct {
	V            int                  `json:"v"`
	Digest       string               `json:"digest"`
	Stacks       *[]model.StackDiff   `json:"stacks,omitempty"`
	Fingerprints *[]model.Fingerprint `json:"fingerprints,omitempty"`
}

// EncodeChangeSet returns the hidden line (no newline) that records d, a
// redacted and sorted change set, for a later deploy: the whole change set
// when its line has at most maxChars characters, else its fingerprints, else
// "" (the digest alone then guards the deploy). reject, when not nil,
// refuses a line the redactor would alter (a base64 run that happens to
// spell a secret's encoding): the next form is tried instead.
func EncodeChangeSet(d model.Diff, maxChars int, reject func(string) bool) string {
	// The change set as the report shows it (not its canonical form, which
	// drops the notes and reorders JSON keys): the deploy gate re-renders
	// the visible report from it. Its digest is the same either way.
	digest := d.Digest()
	stacks := d.Stacks
	if stacks == nil {
		stacks = []model.StackDiff{}
	}
	fingerprints := d.Fingerprints()
	for _, env := range []envelope{
		{V: changeSetV, Digest: digest, Stacks: &stacks},
		{V: changeSetV, Digest: digest, Fingerprints: &fingerprints},
	} {
		line, err := encodeLine(env)
		if err != nil || len(line) > maxChars || (reject != nil && reject(line)) {
			continue
		}
		return line
	}
	return ""
}

func encodeLine(env envelope) (string, error) {
	gz, err := gzipEnvelope(env)
	if err != nil {
		return "", err
	}
	return changeSetPrefix + base64.StdEncoding.EncodeToString(gz) + changeSetSuffix, nil
}

// IsWhole reports whether line records the whole change set (the form the
// deploy gate re-renders the visible report from), not only fingerprints.
func IsWhole(line, digest string) bool {
	cs, err := DecodeChangeSet("\n"+line, digest)
	return err == nil && cs.Diff != nil
}

// EncodeStored is the whole change set d (redacted, sorted) as the state
// bucket keeps it when it does not fit in the comment: the gzip of the
// same JSON object the hidden line holds.
func EncodeStored(d model.Diff) ([]byte, error) {
	stacks := d.Stacks
	if stacks == nil {
		stacks = []model.StackDiff{}
	}
	return gzipEnvelope(envelope{V: changeSetV, Digest: d.Digest(), Stacks: &stacks})
}

// DecodeStored reads a stored change set back. It must be whole and hash
// to digest: the object is named by its digest, so a swapped one fails
// here (ErrChangeSetMismatch).
func DecodeStored(gz []byte, digest string) (*ChangeSet, error) {
	cs, err := inflateEnvelope(gz, digest)
	if err != nil {
		return nil, err
	}
	if cs.Diff == nil {
		return nil, errors.New("read the reviewed change set: the stored object holds only fingerprints")
	}
	return cs, nil
}

func gzipEnvelope(env envelope) ([]byte, error) {
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

// ErrNoChangeSet means the comment carries no change set block.
var ErrNoChangeSet = errors.New("the comment carries no reviewed change set")

// ErrChangeSetMismatch means the block is well formed but does not match the
// header's digest. The diff command writes both together, so the comment was
// edited since: the deploy refuses it rather than guess which part to trust.
var ErrChangeSetMismatch = errors.New("the stored change set does not match the header's digest")

// DecodeChangeSet reads the change set block of a diff comment body: the
// line right after the header, nowhere else (a value shown in the visible
// report cannot plant one). It must match digest, the header's.
func DecodeChangeSet(body, digest string) (*ChangeSet, error) {
	lines := strings.SplitN(body, "\n", 3)
	if len(lines) < 2 {
		return nil, ErrNoChangeSet
	}
	line := strings.TrimSpace(strings.TrimSuffix(lines[1], "\r"))
	data, ok := strings.CutPrefix(line, changeSetPrefix)
	if !ok {
		return nil, ErrNoChangeSet
	}
	data, ok = strings.CutSuffix(data, changeSetSuffix)
	if !ok {
		return nil, errors.New("read the reviewed change set: the hidden line is not closed")
	}
	gz, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("read the reviewed change set: %w", err)
	}
	return inflateEnvelope(gz, digest)
}

// inflateEnvelope decodes a gzipped change set and checks it against
// digest.
func inflateEnvelope(gz []byte, digest string) (*ChangeSet, error) {
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
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("read the reviewed change set: %w", err)
	}
	switch {
	case env.V != changeSetV:
		return nil, fmt.Errorf("read the reviewed change set: unknown version %d", env.V)
	case env.Digest != digest:
		return nil, fmt.Errorf("read the reviewed change set: %w: it records digest %s, the header %s", ErrChangeSetMismatch, ShortDigest(env.Digest), ShortDigest(digest))
	case env.Stacks != nil:
		d := model.Diff{Stacks: *env.Stacks}
		if got := d.Digest(); got != digest {
			return nil, fmt.Errorf("read the reviewed change set: %w: its digest is %s, the header's %s", ErrChangeSetMismatch, ShortDigest(got), ShortDigest(digest))
		}
		return &ChangeSet{Digest: digest, Diff: &d}, nil
	case env.Fingerprints != nil:
		return &ChangeSet{Digest: digest, Fingerprints: *env.Fingerprints}, nil
	}
	return nil, errors.New("read the reviewed change set: it holds neither stacks nor fingerprints")
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
