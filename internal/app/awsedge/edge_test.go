package awsedge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// account answers STS for one account, and says every bucket exists.
type account struct{ id string }

func (a account) GetCallerIdentity(context.Context, *sts.GetCallerIdentityInput, ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error) {
	return &sts.GetCallerIdentityOutput{Account: aws.String(a.id)}, nil
}

func (account) HeadBucket(context.Context, *s3.HeadBucketInput, ...func(*s3.Options)) (*s3.HeadBucketOutput, error) {
	return &s3.HeadBucketOutput{}, nil
}

func (account) ListObjectsV2(context.Context, *s3.ListObjectsV2Input, ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return &s3.ListObjectsV2Output{}, nil
}

// edge is an Edge over cfg and env, its log in log, whose default-bucket
// probe is probe (nil: a probe must not be built).
func edge(t *testing.T, cfg config.Config, env map[string]string, log *strings.Builder, probe func() (awsx.BucketProbeAPI, error)) *Edge {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	if cfg.WorkingDirectory == "" {
		cfg.WorkingDirectory = t.TempDir()
	}
	return &Edge{Config: &cfg, Getenv: getenv, Log: workflow.New(log, getenv),
		BuildBucketProbe: func(context.Context, awsx.Settings) (awsx.BucketProbeAPI, error) {
			if probe == nil {
				t.Error("the default bucket was probed")
				return awsx.BucketProbeAPI{}, errors.New("no probe")
			}
			return probe()
		}}
}

func found(id string) func() (awsx.BucketProbeAPI, error) {
	return func() (awsx.BucketProbeAPI, error) {
		return awsx.BucketProbeAPI{STS: account{id}, S3: account{id}}, nil
	}
}

// A local run makes no AWS call of its own unless resolve-secrets asks.
func TestOffline(t *testing.T) {
	for _, tc := range []struct {
		local, resolve, offline bool
	}{
		{local: false, resolve: false, offline: false},
		{local: true, resolve: false, offline: true},
		{local: true, resolve: true, offline: false},
	} {
		e := &Edge{Config: &config.Config{ResolveSecrets: tc.resolve}, Local: tc.local}
		assert.Equal(t, e.Offline() != "", tc.offline, "local %v, resolve-secrets %v", tc.local, tc.resolve)
		assert.Equal(t, e.ReadsAWS(), !tc.offline)
	}
}

func TestDefaultRegion(t *testing.T) {
	env := map[string]string{"AWS_REGION": "eu-west-1"}
	getenv := func(k string) string { return env[k] }
	assert.Equal(t, (&Edge{Config: &config.Config{}, Getenv: getenv}).DefaultRegion(), "eu-west-1")
	assert.Equal(t, (&Edge{Config: &config.Config{StackRegion: "us-west-2"}, Getenv: getenv}).DefaultRegion(), "us-west-2")
}

// The state bucket is decided as cdkd decides it, and said on the log
// only once discovery has registered every mask.
func TestStateBucket(t *testing.T) {
	cdkJSON := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(cdkJSON, "cdk.json"), []byte(`{"context":{"cdkd":{"stateBucket":"from-cdk-json"}}}`), 0o644))
	for _, tc := range []struct {
		name  string
		cfg   config.Config
		env   map[string]string
		local bool
		probe func() (awsx.BucketProbeAPI, error)
		want  string
		said  string // on the log once discovery is done
	}{
		{name: "the input", cfg: config.Config{StateBucket: "in-bucket"}, env: map[string]string{"CDKD_STATE_BUCKET": "env-bucket"},
			want: "in-bucket", said: "state bucket in-bucket, from the state-bucket input"},
		{name: "the environment", env: map[string]string{"CDKD_STATE_BUCKET": "env-bucket"}, want: "env-bucket", said: "from CDKD_STATE_BUCKET"},
		{name: "cdk.json", cfg: config.Config{WorkingDirectory: cdkJSON}, want: "from-cdk-json", said: "from cdk.json's context.cdkd.stateBucket"},
		{name: "cdkd's default", probe: found("123456789012"), want: "cdkd-state-123456789012",
			said: "from cdkd's default for the account 123456789012; every S3 call to it expects it owned by that account"},
		{name: "no default to be found", probe: func() (awsx.BucketProbeAPI, error) { return awsx.BucketProbeAPI{}, errors.New("no credentials") },
			said: "warning::no state bucket is named (state-bucket, CDKD_STATE_BUCKET, cdk.json's context.cdkd.stateBucket), and cdkd's default for the account could not be used: no credentials"},
		{name: "a local run looks for no default", local: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			e := edge(t, tc.cfg, tc.env, &log, tc.probe)
			e.Local = tc.local
			assert.Equal(t, e.StateBucket(context.Background()), tc.want)
			assert.Equal(t, log.String(), "", "nothing is said before the masks are registered")
			e.SayStateBucket()
			assert.Assert(t, is.Contains(log.String(), tc.said))
			if tc.said == "" {
				assert.Equal(t, log.String(), "")
			}
			e.SayStateBucket()
			assert.Equal(t, strings.Count(log.String(), "state bucket"), min(1, len(tc.said)), "said once")
		})
	}
}

// A bucket decided after discovery is said at once.
func TestStateBucketDecidedLateIsSaidAtOnce(t *testing.T) {
	var log strings.Builder
	e := edge(t, config.Config{StateBucket: "late"}, nil, &log, nil)
	e.SayStateBucket()
	assert.Equal(t, log.String(), "")
	e.StateBucket(context.Background())
	assert.Assert(t, is.Contains(log.String(), "state bucket late"))
}

// Every client of cdkd's default bucket expects the account that owns
// it; the clients are built once.
func TestClientsExpectTheDefaultBucketsOwner(t *testing.T) {
	var log strings.Builder
	e := edge(t, config.Config{RoleARN: "arn:aws:iam::123456789012:role/r"}, map[string]string{"AWS_REGION": "eu-west-1"}, &log, found("123456789012"))
	builds := 0
	e.BuildClients = func(_ context.Context, s awsx.Settings) (discover.Deps, error) {
		builds++
		assert.DeepEqual(t, s, awsx.Settings{Region: "eu-west-1", RoleARN: "arn:aws:iam::123456789012:role/r", BucketOwner: "123456789012"})
		return discover.Deps{}, nil
	}
	var store awsx.Settings
	e.BuildObjects = func(_ context.Context, s awsx.Settings, bucket string) (fingerprint.ObjectStore, error) {
		store = s
		assert.Equal(t, bucket, "cdkd-state-123456789012")
		return nil, nil
	}
	for range 2 {
		_, err := e.Clients(context.Background())
		assert.NilError(t, err)
	}
	assert.Equal(t, builds, 1)
	_, err := e.ObjectStore(context.Background(), e.StateBucket(context.Background()))
	assert.NilError(t, err)
	assert.Equal(t, store.BucketOwner, "123456789012")

	// A named bucket has no owner to expect.
	named := edge(t, config.Config{StateBucket: "mine"}, nil, &log, nil)
	named.BuildClients = func(_ context.Context, s awsx.Settings) (discover.Deps, error) {
		assert.Equal(t, s.BucketOwner, "")
		return discover.Deps{}, errors.New("no credentials")
	}
	_, err = named.Clients(context.Background())
	assert.ErrorContains(t, err, "no credentials")
}
