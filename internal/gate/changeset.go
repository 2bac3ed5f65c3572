package gate

import (
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// The change-set line is internal/prcomment's; these names keep the gate's
// API for its callers.

// ChangeSet is prcomment.ChangeSet.
type ChangeSet = prcomment.ChangeSet

// ErrNoChangeSet and ErrChangeSetMismatch are prcomment's.
var (
	ErrNoChangeSet       = prcomment.ErrNoChangeSet
	ErrChangeSetMismatch = prcomment.ErrChangeSetMismatch
)

// EncodeChangeSet is prcomment.EncodeChangeSet.
func EncodeChangeSet(d model.Diff, maxChars int, reject func(string) bool) string {
	return prcomment.EncodeChangeSet(d, maxChars, reject)
}

// DecodeChangeSet is prcomment.DecodeChangeSet.
func DecodeChangeSet(body, digest string) (*ChangeSet, error) {
	return prcomment.DecodeChangeSet(body, digest)
}
