package app

import (
	"cmp"
	"context"
	"sync"

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
}

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
			r.deps, r.depsErr = build(ctx, r.awsSettings())
			return
		}
		cfg, err := r.sdkConfig(ctx)
		if err != nil {
			r.depsErr = err
			return
		}
		r.deps = discover.Deps{State: awsx.StateReader{S3: awsx.NewS3(cfg)}, Resolver: awsx.NewResolver(cfg)}
	})
	return r.deps, r.depsErr
}

// objectStore is where the fingerprints of a state bucket live
// (Deps.Objects, else the SDK's S3).
func (r *Env) objectStore(ctx context.Context, bucket string) (fingerprint.ObjectStore, error) {
	if build := r.app.Deps.Objects; build != nil {
		return build(ctx, r.awsSettings(), bucket)
	}
	cfg, err := r.sdkConfig(ctx)
	if err != nil {
		return nil, err
	}
	return awsx.Objects{S3: awsx.NewS3(cfg), Bucket: bucket}, nil
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
