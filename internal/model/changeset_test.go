package model

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A change set reads back as it was written, in either form, and only for
// its own digest; the state bucket's reader takes only the whole form.
func TestChangeSetRoundTrip(t *testing.T) {
	d := reviewedDiff()
	digest := d.Digest()

	whole, err := EncodeChangeSet(d)
	assert.NilError(t, err)
	cs, err := DecodeWholeChangeSet(whole, digest)
	assert.NilError(t, err)
	assert.Equal(t, cs.Digest, digest)
	assert.Equal(t, cs.Diff.Digest(), digest)

	short, err := EncodeFingerprints(d)
	assert.NilError(t, err)
	cs, err = DecodeChangeSet(short, digest)
	assert.NilError(t, err)
	assert.Assert(t, cs.Diff == nil)
	assert.DeepEqual(t, cs.Fingerprints, d.Fingerprints())
	_, err = DecodeWholeChangeSet(short, digest)
	assert.Assert(t, is.ErrorContains(err, "holds only fingerprints"))

	other := reviewedDiff()
	other.Stacks[0].Changes[0].LogicalID += "Renamed"
	_, err = DecodeChangeSet(whole, other.Digest())
	assert.Assert(t, errors.Is(err, ErrChangeSetMismatch), "%v", err)
}

func TestShortDigest(t *testing.T) {
	assert.Equal(t, ShortDigest("v1:0123456789abcdef0123"), "v1:0123456789ab")
	assert.Equal(t, ShortDigest("0123456789abcdef0123"), "0123456789ab")
	assert.Equal(t, ShortDigest("v1:abc"), "v1:abc")
}
