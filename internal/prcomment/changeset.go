package prcomment

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The reviewed change set (model.ChangeSet) travels in the diff comment,
// on the line after the hidden header, as a second HTML comment:
//
//	<!-- cdkd-action-changeset:v1 BASE64 -->
//
// BASE64 is standard base64 (with padding) of the change set's encoding
// (model.EncodeChangeSet, or model.EncodeFingerprints when the whole does
// not fit). Both are redacted as the comment is, but the whole form holds
// every value whole, which the visible comment may shorten or leave out:
// anyone who can read the pull request can decode it. A deploy trusts the
// line only inside a comment written by the action's identity, and only
// when it matches the header's digest (model.ErrChangeSetMismatch
// otherwise: the comment was edited, and the deploy refuses it).
const (
	// changeSetMarker starts the line in every version.
	changeSetMarker = "<!-- cdkd-action-changeset:"
	changeSetPrefix = changeSetMarker + "v1 "
	changeSetSuffix = " -->"
)

// EncodeChangeSet returns the hidden line (no newline) that records d, a
// redacted and sorted change set, for a later deploy: the whole change set
// when its line has at most maxChars characters, else its fingerprints, else
// "" (the digest alone then guards the deploy). reject, when not nil,
// refuses a line the redactor would alter (a base64 run that happens to
// spell a secret's encoding): the next form is tried instead.
func EncodeChangeSet(d model.Diff, maxChars int, reject func(string) bool) string {
	for _, encode := range []func(model.Diff) ([]byte, error){model.EncodeChangeSet, model.EncodeFingerprints} {
		gz, err := encode(d)
		if err != nil {
			continue
		}
		line := changeSetPrefix + base64.StdEncoding.EncodeToString(gz) + changeSetSuffix
		if len(line) > maxChars || (reject != nil && reject(line)) {
			continue
		}
		return line
	}
	return ""
}

// IsWhole reports whether line records the whole change set (the form the
// deploy gate re-renders the visible report from), not only fingerprints.
func IsWhole(line, digest string) bool {
	cs, err := DecodeChangeSet("\n"+line, digest)
	return err == nil && cs.Diff != nil
}

// ErrNoChangeSet means the comment carries no change set line.
var ErrNoChangeSet = errors.New("the comment carries no reviewed change set")

// DecodeChangeSet reads the change set line of a diff comment body: the
// line right after the header, nowhere else (a value shown in the visible
// report cannot plant one). It must match digest, the header's.
func DecodeChangeSet(body, digest string) (*model.ChangeSet, error) {
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
	return model.DecodeChangeSet(gz, digest)
}
