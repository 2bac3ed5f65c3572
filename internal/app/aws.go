package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// awsEdge is the run's one connection to AWS: the settings every client
// is built with, the SDK configuration loaded once, and the state reader
// and resolver that discovery, drift and the fingerprints share.
type awsEdge struct {
	cfgOnce sync.Once
	sdk     aws.Config
	sdkErr  error

	depsOnce sync.Once
	deps     discover.Deps
	depsErr  error

	// bucket is the run's state bucket, decided on first use
	// (stateBucket); bucketSaid is what the log says of it, printed once
	// discovery has registered every mask.
	bucketOnce sync.Once
	bucket     awsx.StateBucket
	bucketSaid []func()
	discovered bool
}

// stateBucketTimeout bounds finding cdkd's default state bucket: one STS
// call, then at most two HeadBucket and two ListObjectsV2 calls.
const stateBucketTimeout = 30 * time.Second

// awsSettings is how every AWS client of the run is configured.
func (r *Env) awsSettings() awsx.Settings {
	return awsx.Settings{Region: r.app.Getenv("AWS_REGION"), RoleARN: r.cfg.RoleARN, Profile: r.app.Getenv("AWS_PROFILE")}
}

// sdkConfig loads the SDK's configuration (credentials, role, endpoints)
// once per run.
func (r *Env) sdkConfig(ctx context.Context) (aws.Config, error) {
	r.cfgOnce.Do(func() { r.sdk, r.sdkErr = awsx.LoadConfig(ctx, r.awsSettings()) })
	return r.sdk, r.sdkErr
}

// awsClients returns the state reader and the secret resolver, built on
// first use (Deps.AWS, else the SDK's). The callers wrap the resolver each
// in their own way; the clients underneath are one.
func (r *Env) awsClients(ctx context.Context) (discover.Deps, error) {
	r.depsOnce.Do(func() {
		if build := r.app.Deps.AWS; build != nil {
			s := r.awsSettings()
			s.BucketOwner = r.bucketOwner(ctx)
			r.deps, r.depsErr = build(ctx, s)
			return
		}
		cfg, err := r.sdkConfig(ctx)
		if err != nil {
			r.depsErr = err
			return
		}
		owner := awsx.ExpectBucketOwner(r.bucketOwner(ctx))
		r.deps = discover.Deps{State: awsx.StateReader{S3: awsx.NewS3(cfg, owner)}, Resolver: awsx.NewResolver(cfg)}
	})
	return r.deps, r.depsErr
}

// objectStore is where the fingerprints of a state bucket live
// (Deps.Objects, else the SDK's S3).
func (r *Env) objectStore(ctx context.Context, bucket string) (fingerprint.ObjectStore, error) {
	s := r.awsSettings()
	s.BucketOwner = r.bucketOwner(ctx)
	if build := r.app.Deps.Objects; build != nil {
		return build(ctx, s, bucket)
	}
	cfg, err := r.sdkConfig(ctx)
	if err != nil {
		return nil, err
	}
	return awsx.Objects{S3: awsx.NewS3(cfg, awsx.ExpectBucketOwner(s.BucketOwner)), Bucket: bucket}, nil
}

// stateBucket is the run's state bucket, "" when none is known. It is
// decided on first use, as cdkd decides it: the state-bucket input,
// CDKD_STATE_BUCKET, cdk.json's context.cdkd.stateBucket, then (when the
// run may call AWS) cdkd's default for the account, which every S3 call
// then expects that account to own.
func (r *Env) stateBucket(ctx context.Context) string {
	r.bucketOnce.Do(func() {
		b, ok := awsx.NamedStateBucket(r.cfg.StateBucket, r.app.Getenv, filepath.Join(r.cfg.WorkingDirectory, "cdk.json"))
		if !ok && r.readsAWS() {
			var err error
			if b, err = r.defaultStateBucket(ctx); err != nil {
				r.bucketSaid = append(r.bucketSaid, func() { r.runner.Warning(err.Error()) })
			}
		}
		r.bucket = b
		if b.Name != "" {
			r.bucketSaid = append(r.bucketSaid, func() { r.runner.Info(b.Why()) })
		}
		if r.discovered {
			r.sayStateBucket()
		}
	})
	return r.bucket.Name
}

// bucketOwner is the account every S3 call must find owning the state
// bucket: set when its name is cdkd's default (see awsx.StateBucket.Owner).
func (r *Env) bucketOwner(ctx context.Context) string {
	r.stateBucket(ctx)
	return r.bucket.Owner
}

// defaultStateBucket finds cdkd's default bucket for the account
// (Deps.BucketProbe, else the SDK's STS and S3).
func (r *Env) defaultStateBucket(ctx context.Context) (awsx.StateBucket, error) {
	ctx, cancel := context.WithTimeout(ctx, stateBucketTimeout)
	defer cancel()
	b, err := r.findDefaultStateBucket(ctx)
	if err != nil {
		return b, fmt.Errorf("no state bucket is named (state-bucket, CDKD_STATE_BUCKET, cdk.json's context.cdkd.stateBucket), and cdkd's default for the account could not be used: %w", err)
	}
	return b, nil
}

func (r *Env) findDefaultStateBucket(ctx context.Context) (awsx.StateBucket, error) {
	if build := r.app.Deps.BucketProbe; build != nil {
		probe, err := build(ctx, r.awsSettings())
		if err != nil {
			return awsx.StateBucket{}, err
		}
		return awsx.DefaultStateBucket(ctx, probe)
	}
	cfg, err := r.sdkConfig(ctx)
	if err != nil {
		return awsx.StateBucket{}, err
	}
	return awsx.DefaultStateBucket(ctx, awsx.NewBucketProbe(cfg))
}

// sayStateBucket prints which state bucket the run uses and why, or why
// it has none, once every mask is registered.
func (r *Env) sayStateBucket() {
	r.discovered = true
	for _, say := range r.bucketSaid {
		say()
	}
	r.bucketSaid = nil
}

// Region resolution, in one place. region answers where a stack of the
// change set lives: the region cdkd or the change set named, else the
// assembly's for the stack, else AWS_REGION. defaultRegion answers where a
// run reads stacks that name no region: drift reads the stacks of
// stack-region, else AWS_REGION.
func (r *Env) region(stack, region string) string {
	if region == "" && stack != "" && r.asm != nil {
		if st, ok := r.asm.Stack(stack); ok {
			region = st.Region
		}
	}
	return cmp.Or(region, r.app.Getenv("AWS_REGION"))
}

func (r *Env) defaultRegion() string {
	return cmp.Or(r.cfg.StackRegion, r.app.Getenv("AWS_REGION"))
}

// requireRegion refuses, before anything runs, a run whose cdkd would fail
// with "Region is missing": no region is known. A run that does not run
// cdkd (a saved report rendered, a plan for diff, an aggregate) needs
// none.
func (r *Env) requireRegion(ctx context.Context) error {
	if !r.needsCdkd() || awsx.KnownRegion(ctx, r.app.Getenv) != "" {
		return nil
	}
	if r.local {
		return errors.New("no AWS region is known, and cdkd needs one: set AWS_REGION (or AWS_DEFAULT_REGION, or a region in the AWS profile)")
	}
	return errors.New("no AWS region is known, and cdkd needs one: set aws-region on the step that configures AWS credentials (aws-actions/configure-aws-credentials), or AWS_REGION in the job's env")
}
