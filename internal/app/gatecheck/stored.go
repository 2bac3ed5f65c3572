package gatecheck

import (
	"context"
	"errors"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/reviewstore"
)

// storedChangeSet is the gate's hook for a review whose change set did not
// fit in its comment: the diff's check run records that it is stored in
// the state bucket, so it is fetched and checked against the digest. why
// says why it cannot be used.
func (o *Options) storedChangeSet(ctx context.Context, digest string) (cs *gate.ChangeSet, why string) {
	cannot := "it did not fit in the comment and is kept in the state bucket, but "
	bucket := o.AWS.StateBucket(ctx)
	if bucket == "" {
		return nil, cannot + "no state bucket is known here (set state-bucket as in the diff workflow)"
	}
	ctx, cancel := context.WithTimeout(ctx, changeset.StoreTimeout)
	defer cancel()
	store, err := o.AWS.ObjectStore(ctx, bucket)
	if err == nil {
		if cs, err = reviewstore.Load(ctx, store, o.Config.FingerprintPrefix, digest); err == nil {
			return cs, ""
		}
	}
	if errors.Is(err, reviewstore.ErrNotTheChangeSet) {
		return nil, o.Secrets.Set.OneLine(fmt.Sprintf("%s%v in s3://%s: it was replaced since the diff wrote it; re-run the pull request's diff", cannot, err, bucket))
	}
	if errors.Is(err, reviewstore.ErrNotFound) {
		return nil, o.Secrets.Set.OneLine(fmt.Sprintf("%s%v in s3://%s: it was deleted since the diff wrote it; re-run the pull request's diff", cannot, err, bucket))
	}
	msg := fmt.Sprintf("%sit could not be read from s3://%s: %v", cannot, bucket, err)
	if fix := reviewstore.Remedy(err, "deploy", "s3:GetObject", bucket+"/"+reviewstore.Key(o.Config.FingerprintPrefix, digest)); fix != "" {
		msg += "; " + fix
	}
	return nil, o.Secrets.Set.OneLine(msg)
}
