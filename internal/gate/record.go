package gate

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// The records the diff and deploy commands leave in their check runs'
// external IDs, where nobody can edit them in GitHub's UI.

// diffRecordV2Prefix starts the external ID of a successful diff's check
// run; diffRecordV1Prefix is the older form, which names no comment.
const (
	diffRecordV2Prefix = "cdkd-action:v2:diff:"
	diffRecordV1Prefix = "cdkd-action:v1:diff:"
	// diffRecordV2StoredPrefix is the v2 record of a review whose change set is
	// kept in the state bucket (reviewstore), too large for the comment.
	diffRecordV2StoredPrefix = "cdkd-action:v2:diff-stored:"
)

// DiffRecordV2 is the external ID the diff command gives its check run when
// the diff succeeded: a compact record of the review (its digest, the id
// of the comment holding it and a hash of that comment's visible report)
// that a deploy reads back to find and verify the diff comment.
func DiffRecordV2(digest string, commentID int64, reportHash string) string {
	return fmt.Sprintf("%s%d:%s:%s", diffRecordV2Prefix, commentID, reportHash, digest)
}

// StoredDiffRecordV2 is DiffRecordV2 for a review whose whole change set is
// kept in the state bucket under its digest, not in the comment.
func StoredDiffRecordV2(digest string, commentID int64, reportHash string) string {
	return fmt.Sprintf("%s%d:%s:%s", diffRecordV2StoredPrefix, commentID, reportHash, digest)
}

// diffRecordV3Prefix starts the record a diff writes from this release on: v2's,
// plus where the change set is kept and the layout (renderer version) of
// the comment's visible report, both bound here where no one can edit
// them. A v2 record was written in layout 1.
const diffRecordV3Prefix = "cdkd-action:v3:diff:"

// Where a review's change set is kept, in a v3 record.
const (
	// KeptInComment: the comment's hidden line holds it (whole, or its
	// fingerprints).
	KeptInComment = "comment"
	// KeptStored: it is kept whole in the state bucket (reviewstore).
	KeptStored = "stored"
	// KeptNowhere: too large for the comment, and the diff could not
	// store it in the state bucket: no deploy can verify the review.
	KeptNowhere = "none"
)

// DiffRecord is the external ID the diff command gives its check run
// when the diff succeeded: the review's digest, the id of the comment
// holding it, a hash of that comment's visible report, the layout that
// report was rendered in, and where the change set is kept (Kept*).
func DiffRecord(digest string, commentID int64, reportHash string, renderer int, kept string) string {
	return fmt.Sprintf("%s%s:r%d:%d:%s:%s", diffRecordV3Prefix, kept, renderer, commentID, reportHash, digest)
}

// parseV3 reads a DiffRecord's rest (after its prefix) back.
func parseV3(rest string) (Record, bool) {
	parts := strings.SplitN(rest, ":", 5)
	if len(parts) != 5 || parts[4] == "" {
		return Record{}, false
	}
	kept := parts[0]
	if kept != KeptInComment && kept != KeptStored && kept != KeptNowhere {
		return Record{}, false
	}
	v, ok := strings.CutPrefix(parts[1], "r")
	renderer, err := strconv.Atoi(v)
	if !ok || err != nil || renderer < 1 || "r"+strconv.Itoa(renderer) != parts[1] {
		return Record{}, false
	}
	id, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || id < 0 {
		return Record{}, false
	}
	return Record{Digest: parts[4], CommentID: id, ReportHash: parts[3], Stored: kept == KeptStored, Kept: kept, Renderer: renderer}, true
}

// deployRecordPrefix starts the external ID of a deploy's check run.
const deployRecordPrefix = "cdkd-action:v2:deploy:"

// DeployRecord is the external ID the deploy command gives its check run:
// the diff comment it wrote its section into and a hash of that section.
// The section is the one part of a review comment written after the
// review; a later deploy of the commit trusts it only when this record
// vouches for it.
func DeployRecord(commentID int64, sectionHash string) string {
	return fmt.Sprintf("%s%d:%s", deployRecordPrefix, commentID, sectionHash)
}

// ParseDeployRecord reads DeployRecord back; false when externalID is not one.
func ParseDeployRecord(externalID string) (commentID int64, sectionHash string, ok bool) {
	rest, ok := strings.CutPrefix(externalID, deployRecordPrefix)
	if !ok {
		return 0, "", false
	}
	id, hash, ok := strings.Cut(rest, ":")
	n, err := strconv.ParseInt(id, 10, 64)
	if !ok || err != nil || n <= 0 || hash == "" {
		return 0, "", false
	}
	return n, hash, true
}

// ParseDiffRecord reads a check run's external ID back (Name and URL
// unset); false when it is no diff record. A record of the older form
// gives the digest alone.
func ParseDiffRecord(externalID string) (Record, bool) {
	if d, ok := strings.CutPrefix(externalID, diffRecordV1Prefix); ok && d != "" {
		return Record{Digest: d}, true
	}
	if rest, ok := strings.CutPrefix(externalID, diffRecordV3Prefix); ok {
		return parseV3(rest)
	}
	rest, ok := strings.CutPrefix(externalID, diffRecordV2Prefix)
	stored := false
	if !ok {
		if rest, ok = strings.CutPrefix(externalID, diffRecordV2StoredPrefix); !ok {
			return Record{}, false
		}
		stored = true
	}
	parts := strings.SplitN(rest, ":", 3)
	if len(parts) != 3 || parts[2] == "" {
		return Record{}, false
	}
	id, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || id < 0 {
		return Record{}, false
	}
	kept := ""
	if stored {
		kept = KeptStored
	}
	// Every v2 record was written by a release of layout 1.
	return Record{Digest: parts[2], CommentID: id, ReportHash: parts[1], Stored: stored, Kept: kept, Renderer: 1}, true
}

// IsOwnRecord reports whether externalID is exactly a record this code
// writes: DiffRecord, DiffRecordV2 or DeployRecord with a decimal comment id, a
// prcomment.ReportHash and (for a diff) a model digest, so nothing but
// digits and lowercase hex. Only such an ID may pass the redactor at the
// sink untouched (redacting a hex-like short secret inside it would make
// the deploy refuse its own review); a look-alike that merely starts like
// one is redacted like any other text.
func IsOwnRecord(externalID string) bool {
	hashLen := len(prcomment.ReportHash(""))
	if strings.HasPrefix(externalID, diffRecordV3Prefix) {
		r, ok := ParseDiffRecord(externalID)
		digest, ok2 := strings.CutPrefix(r.Digest, model.DigestVersion+":")
		return ok && ok2 && isHex(r.ReportHash, hashLen) && isHex(digest, 2*sha256.Size) &&
			externalID == DiffRecord(r.Digest, r.CommentID, r.ReportHash, r.Renderer, r.Kept)
	}
	if strings.HasPrefix(externalID, diffRecordV2Prefix) {
		r, ok := ParseDiffRecord(externalID)
		digest, ok2 := strings.CutPrefix(r.Digest, model.DigestVersion+":")
		return ok && ok2 && isHex(r.ReportHash, hashLen) && isHex(digest, 2*sha256.Size) &&
			externalID == DiffRecordV2(r.Digest, r.CommentID, r.ReportHash)
	}
	id, hash, ok := ParseDeployRecord(externalID)
	return ok && isHex(hash, hashLen) && externalID == DeployRecord(id, hash)
}

// isHex reports whether s is n lowercase hexadecimal digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
