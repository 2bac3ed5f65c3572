package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/reviewstore"
)

// reviewStoreTimeout bounds writing or reading a stored change set.
const reviewStoreTimeout = time.Minute

// changeSetReject refuses a change-set line the redactor would alter, or
// whose decoded content holds a value it hides.
func (r *Env) changeSetReject(digest string) func(string) bool {
	return func(line string) bool { return r.set.Contains(line) || prcomment.ChangeSetLeaks(r.set, digest, line) }
}

// storeChangeSet keeps the reviewed change set d in the state bucket when
// its whole form does not fit in the comment's hidden line, so that the
// gate can fetch it, check it against the digest and re-render the report
// from it. It returns the change set as the gate will decode it (nil when
// nothing was stored) and, when it had to be stored and could not be, a
// note saying why and that a gated deploy of it will be refused.
func (r *diffRun) storeChangeSet(ctx context.Context, d model.Diff) (*model.Diff, string) {
	if !r.publishesToAPI() || r.cfg.Comment == config.CommentOff || r.gh.PR == nil {
		return nil, "" // no review comment: nothing a deploy could verify
	}
	digest := d.Digest()
	if prcomment.IsWhole(prcomment.EncodeChangeSet(d, maxChangeSetChars, r.changeSetReject(digest)), digest) {
		return nil, ""
	}
	refused := fmt.Sprintf("so a gated deploy of it is refused (%s)", reason.NoReviewedDiff)
	if b, err := json.Marshal(d.Stacks); err != nil || r.set.Contains(string(b)) {
		return nil, "The change set is too large for the comment and was not stored in the state bucket: it holds a value the redactor hides, " + refused + "."
	}
	bucket := r.stateBucket()
	if bucket == "" {
		return nil, "The change set is too large for the comment and no state bucket is known to keep it in (set state-bucket), " + refused + "."
	}
	ctx, cancel := context.WithTimeout(ctx, reviewStoreTimeout)
	defer cancel()
	store, err := r.objectStore(ctx, bucket)
	if err == nil {
		var key string
		if key, err = reviewstore.Save(ctx, store, r.cfg.FingerprintPrefix, d); err == nil {
			cs, err := reviewstore.Load(ctx, store, r.cfg.FingerprintPrefix, digest)
			if err == nil {
				r.runner.Notice(fmt.Sprintf("the change set is too large for the comment: stored it in s3://%s/%s for the deploy gate", bucket, key))
				return cs.Diff, ""
			}
		}
	}
	note := r.set.OneLine(fmt.Sprintf("The change set is too large for the comment and could not be stored in the state bucket (the diff job needs s3:PutObject and s3:GetObject on %s/%s/*): %v; %s.",
		bucket, reviewstore.Dir(r.cfg.FingerprintPrefix), err, refused))
	r.runner.Warning(note)
	return nil, note
}

// storedChangeSet is the gate's hook for a review whose change set did not
// fit in its comment: the diff's check run records that it is stored in
// the state bucket, so it is fetched and checked against the digest. why
// says why it cannot be used.
func (r *Env) storedChangeSet(ctx context.Context, digest string) (cs *gate.ChangeSet, why string) {
	cannot := "it did not fit in the comment and is kept in the state bucket, but "
	bucket := r.stateBucket()
	if bucket == "" {
		return nil, cannot + "no state bucket is known here (set state-bucket as in the diff workflow)"
	}
	ctx, cancel := context.WithTimeout(ctx, reviewStoreTimeout)
	defer cancel()
	store, err := r.objectStore(ctx, bucket)
	if err == nil {
		if cs, err = reviewstore.Load(ctx, store, r.cfg.FingerprintPrefix, digest); err == nil {
			return cs, ""
		}
	}
	if errors.Is(err, reviewstore.ErrNotTheChangeSet) {
		return nil, r.set.OneLine(fmt.Sprintf("%s%v in s3://%s: it was replaced since the diff wrote it; re-run the pull request's diff", cannot, err, bucket))
	}
	return nil, r.set.OneLine(fmt.Sprintf("%sit could not be read from s3://%s (the deploy job needs s3:GetObject on %s): %v", cannot, bucket, reviewstore.Key(r.cfg.FingerprintPrefix, digest), err))
}
