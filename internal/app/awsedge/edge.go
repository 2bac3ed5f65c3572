// Package awsedge is a run's one connection to AWS: the settings every
// client is built with, the SDK configuration loaded once, the state
// reader and resolver that discovery, drift and the fingerprints share,
// and where the run's state bucket and default region are.
package awsedge

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Edge is the run's connection to AWS, built once per run.
type Edge struct {
	// Config is the run's inputs (role-arn, state-bucket, stack-region,
	// resolve-secrets).
	Config *config.Config
	// Local is set in a local run: it makes no AWS call of its own unless
	// resolve-secrets asks.
	Local  bool
	Getenv func(string) string
	// Clients builds the state reader and secret resolver; nil means the
	// SDK's (App.Deps.AWS).
	BuildClients func(ctx context.Context, s awsx.Settings) (discover.Deps, error)
	// BuildObjects builds the store of the action's own objects in the
	// state bucket; nil means the SDK's S3 client (App.Deps.Objects).
	BuildObjects func(ctx context.Context, s awsx.Settings, bucket string) (fingerprint.ObjectStore, error)
	// BuildBucketProbe builds the clients that find cdkd's default state
	// bucket when none is named; nil means the SDK's (App.Deps.BucketProbe).
	BuildBucketProbe func(ctx context.Context, s awsx.Settings) (awsx.BucketProbeAPI, error)
	// Log is the step's log: which state bucket the run uses, and why.
	Log *workflow.Runner

	cfgOnce sync.Once
	sdk     aws.Config
	sdkErr  error

	depsOnce sync.Once
	deps     discover.Deps
	depsErr  error

	// bucket is the run's state bucket, decided on first use
	// (StateBucket); bucketSaid is what the log says of it, printed once
	// discovery has registered every mask.
	bucketOnce sync.Once
	bucket     awsx.StateBucket
	bucketSaid []func()
	discovered bool
	// noBucketSaid: the warning that no default bucket was found is queued.
	noBucketSaid bool
}

// stateBucketTimeout bounds finding cdkd's default state bucket: one STS
// call, then at most two HeadBucket and two ListObjectsV2 calls.
const stateBucketTimeout = 30 * time.Second

// Settings is how every AWS client of the run is configured.
func (e *Edge) Settings() awsx.Settings {
	return awsx.Settings{Region: e.Getenv("AWS_REGION"), RoleARN: e.Config.RoleARN, Profile: e.Getenv("AWS_PROFILE")}
}

// sdkConfig loads the SDK's configuration (credentials, role, endpoints)
// once per run.
func (e *Edge) sdkConfig(ctx context.Context) (aws.Config, error) {
	e.cfgOnce.Do(func() { e.sdk, e.sdkErr = awsx.LoadConfig(ctx, e.Settings()) })
	return e.sdk, e.sdkErr
}

// Clients returns the state reader and the secret resolver, built on
// first use (BuildClients, else the SDK's). The callers wrap the resolver
// each in their own way; the clients underneath are one.
func (e *Edge) Clients(ctx context.Context) (discover.Deps, error) {
	e.depsOnce.Do(func() {
		if build := e.BuildClients; build != nil {
			s := e.Settings()
			s.BucketOwner = e.bucketOwner(ctx)
			e.deps, e.depsErr = build(ctx, s)
			return
		}
		cfg, err := e.sdkConfig(ctx)
		if err != nil {
			e.depsErr = err
			return
		}
		owner := awsx.ExpectBucketOwner(e.bucketOwner(ctx))
		e.deps = discover.Deps{State: awsx.StateReader{S3: awsx.NewS3(cfg, owner)}, Resolver: awsx.NewResolver(cfg)}
	})
	return e.deps, e.depsErr
}

// ObjectStore is where the fingerprints of a state bucket live
// (BuildObjects, else the SDK's S3).
func (e *Edge) ObjectStore(ctx context.Context, bucket string) (fingerprint.ObjectStore, error) {
	s := e.Settings()
	s.BucketOwner = e.bucketOwner(ctx)
	if build := e.BuildObjects; build != nil {
		return build(ctx, s, bucket)
	}
	cfg, err := e.sdkConfig(ctx)
	if err != nil {
		return nil, err
	}
	return awsx.Objects{S3: awsx.NewS3(cfg, awsx.ExpectBucketOwner(s.BucketOwner)), Bucket: bucket}, nil
}

// DefaultRegion is where a run reads stacks that name no region: drift
// reads the stacks of stack-region, else AWS_REGION.
func (e *Edge) DefaultRegion() string {
	return cmp.Or(e.Config.StackRegion, e.Getenv("AWS_REGION"))
}

// StateBucket is the run's state bucket, "" when none is known. It is
// decided on first use, as cdkd decides it: the state-bucket input,
// CDKD_STATE_BUCKET, cdk.json's context.cdkd.stateBucket, then (when the
// run may call AWS) cdkd's default for the account, which every S3 call
// then expects that account to own.
func (e *Edge) StateBucket(ctx context.Context) string {
	e.bucketOnce.Do(func() {
		b, ok := awsx.NamedStateBucket(e.Config.StateBucket, e.Getenv, filepath.Join(e.Config.WorkingDirectory, "cdk.json"))
		if !ok && e.ReadsAWS() {
			var err error
			if b, err = e.defaultStateBucket(ctx); err != nil {
				e.noBucketSaid = true
				e.bucketSaid = append(e.bucketSaid, func() { e.Log.Warning(err.Error()) })
			}
		}
		e.bucket = b
		if b.Name != "" {
			e.bucketSaid = append(e.bucketSaid, func() { e.Log.Info(b.Why()) })
		}
		if e.discovered {
			e.SayStateBucket()
		}
	})
	return e.bucket.Name
}

// bucketOwner is the account every S3 call must find owning the state
// bucket: set when its name is cdkd's default (see awsx.StateBucket.Owner).
func (e *Edge) bucketOwner(ctx context.Context) string {
	e.StateBucket(ctx)
	return e.bucket.Owner
}

// defaultStateBucket finds cdkd's default bucket for the account
// (BuildBucketProbe, else the SDK's STS and S3).
func (e *Edge) defaultStateBucket(ctx context.Context) (awsx.StateBucket, error) {
	ctx, cancel := context.WithTimeout(ctx, stateBucketTimeout)
	defer cancel()
	b, err := e.findDefaultStateBucket(ctx)
	if err != nil {
		return b, fmt.Errorf("no state bucket is named (state-bucket, CDKD_STATE_BUCKET, cdk.json's context.cdkd.stateBucket), and cdkd's default for the account could not be used: %w", err)
	}
	return b, nil
}

func (e *Edge) findDefaultStateBucket(ctx context.Context) (awsx.StateBucket, error) {
	if build := e.BuildBucketProbe; build != nil {
		probe, err := build(ctx, e.Settings())
		if err != nil {
			return awsx.StateBucket{}, err
		}
		return awsx.DefaultStateBucket(ctx, probe)
	}
	cfg, err := e.sdkConfig(ctx)
	if err != nil {
		return awsx.StateBucket{}, err
	}
	return awsx.DefaultStateBucket(ctx, awsx.NewBucketProbe(cfg))
}

// SayStateBucket prints which state bucket the run uses and why, or why
// it has none: discovery calls it once every mask is registered, and a
// bucket decided later is said as soon as it is.
func (e *Edge) SayStateBucket() {
	e.discovered = true
	for _, say := range e.bucketSaid {
		say()
	}
	e.bucketSaid = nil
}

// Offline says why the action makes no AWS call of its own: a local run
// without --resolve-secrets. Empty when it may.
func (e *Edge) Offline() string {
	if !e.Local || e.Config.ResolveSecrets {
		return ""
	}
	return "this local run made no AWS call of its own, so values stored in state and secret references were not read for masking; pass --resolve-secrets to read them"
}

// NoBucketSaid reports whether the run says itself why it knows no state
// bucket (once StateBucket decided): the default could not be found (a
// warning), or a local run reads no AWS (a notice), so no other line
// needs to say that the state was not read.
func (e *Edge) NoBucketSaid() bool {
	return e.noBucketSaid || !e.ReadsAWS()
}

// ReadsAWS reports whether discovery may read the state bucket, Secrets
// Manager and SSM: a local run reads them only when resolve-secrets asks.
func (e *Edge) ReadsAWS() bool {
	return e.Offline() == ""
}
