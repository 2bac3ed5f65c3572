// Package awsx makes cdkd-action's own read-only AWS calls (the state bucket,
// Secrets Manager, SSM) with the credentials, region and endpoint overrides
// cdkd itself uses, so the whole action can run against an emulator.
//
// It is awsx, not aws, so it does not clash with the SDK's aws package.
package awsx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// ErrNoRegion is returned by LoadConfig when neither the settings, the
// environment nor the profile name a region; cdkd refuses to run then too.
var ErrNoRegion = errors.New("AWS region is not set: set AWS_REGION or a profile with a region")

// RoleSessionName names the session when Settings.RoleARN is assumed, so
// CloudTrail shows which calls the action made.
const RoleSessionName = "cdkd-action"

// Settings are the action inputs that shape the SDK configuration. Every
// field is optional; empty means "as the SDK's default chain decides".
type Settings struct {
	// Region overrides AWS_REGION and the profile's region.
	Region string
	// Profile selects a shared-config profile (AWS_PROFILE otherwise).
	Profile string
	// RoleARN, when set, is assumed with the default-chain credentials,
	// as cdkd does with --role-arn / CDKD_ROLE_ARN.
	RoleARN string
	// BucketOwner, when set, is the account that must own the state
	// bucket: every S3 client built for the run passes it to
	// ExpectBucketOwner. Set when the bucket's name is cdkd's default.
	BucketOwner string
}

// LoadConfig builds the SDK configuration the action's clients share.
//
// It is config.LoadDefaultConfig, so it honours the same environment cdkd
// does: AWS_REGION, AWS_PROFILE, static keys, web identity
// (AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN), and the endpoint overrides
// AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE> (S3, SECRETS_MANAGER, SSM,
// STS), which each service client applies when it is built.
func LoadConfig(ctx context.Context, s Settings) (aws.Config, error) {
	webIdentity := &lateSTS{}
	opts := []func(*config.LoadOptions) error{
		config.WithWebIdentityRoleCredentialOptions(func(o *stscreds.WebIdentityRoleOptions) {
			o.Client = webIdentity
		}),
	}
	if s.Region != "" {
		opts = append(opts, config.WithRegion(s.Region))
	}
	if s.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(s.Profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return aws.Config{}, ErrNoRegion
	}
	webIdentity.setConfig(cfg)
	if s.RoleARN != "" {
		provider := stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), s.RoleARN,
			func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = RoleSessionName })
		cfg.Credentials = aws.NewCredentialsCache(provider)
	}
	return cfg, nil
}

// lateSTS is the STS client of web-identity credentials. The SDK resolves
// credentials before it reads AWS_ENDPOINT_URL, so its own client would
// send the OIDC token to real STS while every other call goes to the
// emulator; this one is built from the finished configuration instead.
type lateSTS struct {
	mu     sync.Mutex
	cfg    *aws.Config
	client *sts.Client
}

func (l *lateSTS) setConfig(cfg aws.Config) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// AssumeRoleWithWebIdentity is unsigned; the credentials being
	// resolved are not needed (and would recurse).
	cfg.Credentials = nil
	l.cfg = &cfg
}

func (l *lateSTS) AssumeRoleWithWebIdentity(ctx context.Context, in *sts.AssumeRoleWithWebIdentityInput, optFns ...func(*sts.Options)) (*sts.AssumeRoleWithWebIdentityOutput, error) {
	l.mu.Lock()
	if l.client == nil {
		if l.cfg == nil {
			l.mu.Unlock()
			return nil, errors.New("web identity: AWS configuration is not loaded yet")
		}
		l.client = sts.NewFromConfig(*l.cfg)
	}
	c := l.client
	l.mu.Unlock()
	return c.AssumeRoleWithWebIdentity(ctx, in, optFns...)
}

// NewS3 returns an S3 client for cfg. When an endpoint override is in effect
// (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, a profile's endpoint_url, or a
// BaseEndpoint in optFns) it uses path-style addressing: emulators serve
// one host and cannot resolve bucket subdomains.
//
// It also silences the SDK's debug line about objects stored without a
// checksum, which would otherwise appear in the job log on every read.
func NewS3(cfg aws.Config, optFns ...func(*s3.Options)) *s3.Client {
	fns := []func(*s3.Options){func(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true }}
	fns = append(fns, optFns...)
	fns = append(fns, PathStyleWhenOverridden)
	return s3.NewFromConfig(cfg, fns...)
}

// PathStyleWhenOverridden is an s3 option that turns on path-style
// addressing when a base endpoint has been set. Apply it last: the SDK
// resolves environment overrides before option functions run.
func PathStyleWhenOverridden(o *s3.Options) {
	if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
		o.UsePathStyle = true
	}
}

// KnownRegion is the region the run's AWS calls, and cdkd's, would use,
// found as the SDK finds it, from getenv alone: AWS_REGION,
// AWS_DEFAULT_REGION, then the region of the profile (AWS_PROFILE, else
// default) in the shared config files. "" when none names one: cdkd then
// fails with "Region is missing".
func KnownRegion(ctx context.Context, getenv func(string) string) string {
	for _, name := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if r := getenv(name); r != "" {
			return r
		}
	}
	profile := getenv("AWS_PROFILE")
	if profile == "" {
		profile = getenv("AWS_DEFAULT_PROFILE")
	}
	if profile == "" {
		profile = "default"
	}
	home := getenv("HOME")
	file := func(env, name string) []string {
		if p := getenv(env); p != "" {
			return []string{p}
		}
		if home == "" {
			return nil
		}
		return []string{filepath.Join(home, ".aws", name)}
	}
	shared, err := config.LoadSharedConfigProfile(ctx, profile, func(o *config.LoadSharedConfigOptions) {
		o.ConfigFiles = file("AWS_CONFIG_FILE", "config")
		o.CredentialsFiles = file("AWS_SHARED_CREDENTIALS_FILE", "credentials")
	})
	if err != nil {
		return ""
	}
	return shared.Region
}
