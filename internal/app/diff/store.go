package diff

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/reviewstore"
)

// changeSetReject refuses a change-set line the redactor would alter, or
// whose decoded content holds a value it hides.
func (r *run) changeSetReject(digest string) func(string) bool {
	return func(line string) bool {
		return r.Secrets.Set.Contains(line) || prcomment.ChangeSetLeaks(r.Secrets.Set, digest, line)
	}
}

// storeChangeSet keeps the reviewed change set d in the state bucket when
// its whole form does not fit in the comment's hidden line, so that the
// gate can fetch it, check it against the digest and re-render the report
// from it. It returns the change set as the gate will decode it (nil when
// nothing was stored) and, when it had to be stored and could not be, a
// note saying why and what a gated deploy of it will do.
func (r *run) storeChangeSet(ctx context.Context, d model.Diff) (*model.Diff, string) {
	if !r.Channels.PublishesToAPI() || r.Config.Comment == config.CommentOff || r.GitHub.PR == nil {
		return nil, "" // no review comment: nothing a deploy could verify
	}
	digest := d.Digest()
	line := prcomment.EncodeChangeSet(d, maxChangeSetChars, r.changeSetReject(digest))
	if prcomment.IsWhole(line, digest) {
		return nil, ""
	}
	refused := fmt.Sprintf("so a gated deploy of it is refused (%s)", reason.NoReviewedDiff)
	if line != "" {
		// Its fingerprints fit: the gate still verifies this change set
		// by its digest, and names the items of another that differ.
		refused = "so the comment keeps only its fingerprints: a gated deploy of exactly this change set goes ahead, and one of another names the items that differ but not how"
	}
	if b, err := json.Marshal(d.Stacks); err != nil || r.Secrets.Set.Contains(string(b)) {
		return nil, "The change set is too large for the comment and was not stored in the state bucket: it holds a value the redactor hides, " + refused + "."
	}
	bucket := r.AWS.StateBucket(ctx)
	if bucket == "" {
		return nil, "The change set is too large for the comment and no state bucket is known to keep it in (set state-bucket), " + refused + "."
	}
	ctx, cancel := context.WithTimeout(ctx, changeset.StoreTimeout)
	defer cancel()
	folder := bucket + "/" + reviewstore.Dir(r.Config.FingerprintPrefix) + "/*"
	store, err := r.AWS.ObjectStore(ctx, bucket)
	var key string
	if err == nil {
		key, err = reviewstore.Save(ctx, store, r.Config.FingerprintPrefix, d)
	}
	if err != nil {
		why := err.Error()
		if fix := reviewstore.Remedy(err, "diff", "s3:PutObject and s3:GetObject", folder); fix != "" {
			why += "; " + fix
		}
		note := r.Secrets.Set.OneLine(fmt.Sprintf("The change set is too large for the comment and could not be stored in the state bucket (%s), %s.", why, refused))
		r.Log.Warning(note)
		return nil, note
	}
	// Stored: the gate will find it. It reads it back as the gate will,
	// so the comment shows it as the gate decodes it; a failed read-back
	// does not undo the write (the gate reads it with its own role).
	cs, err := reviewstore.Load(ctx, store, r.Config.FingerprintPrefix, digest)
	if err != nil {
		why := err.Error()
		if fix := reviewstore.Remedy(err, "diff", "s3:GetObject", folder); fix != "" {
			why += "; " + fix
		}
		r.Log.Warning(r.Secrets.Set.OneLine(fmt.Sprintf("the change set is too large for the comment: stored it in s3://%s/%s for the deploy gate, but could not read it back (%s); the comment shows it as it was written", bucket, key, why)))
		body, eerr := model.EncodeChangeSet(d)
		if eerr == nil {
			cs, eerr = model.DecodeWholeChangeSet(body, digest)
		}
		if eerr != nil {
			return nil, r.Secrets.Set.OneLine(fmt.Sprintf("The change set is too large for the comment and was stored in the state bucket, but could not be read back (%s), %s.", why, refused))
		}
		return cs.Diff, ""
	}
	r.Log.Notice(fmt.Sprintf("the change set is too large for the comment: stored it in s3://%s/%s for the deploy gate", bucket, key))
	return cs.Diff, ""
}
