package awsx

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
)

func mustRef(t *testing.T, s string) dynref.Ref {
	t.Helper()
	ref, ok := dynref.Parse(s)
	assert.Assert(t, ok, "not a dynamic reference: %s", s)
	return ref
}

// seedKumo stores the sample data set's secrets in the emulator under
// names made unique by names, and returns the version id of my-secret's
// first (now AWSPREVIOUS) version.
func seedKumo(t *testing.T, cfg aws.Config, names *strings.Replacer) string {
	t.Helper()
	ctx := context.Background()
	sm := secretsmanager.NewFromConfig(cfg)
	first, err := sm.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name:         aws.String(names.Replace("my-secret")),
		SecretString: aws.String(`{"password":"hunter2-noecho-v1","port":5432,"nested":{"a": 1}}`),
	})
	assert.NilError(t, err)
	_, err = sm.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{
		SecretId:     aws.String(names.Replace("my-secret")),
		SecretString: aws.String(`{"password":"s3cr3t-pw-from-sm","port":5432,"nested":{"a": 1}}`),
	})
	assert.NilError(t, err)
	_, err = sm.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String(names.Replace("plain-secret")), SecretString: aws.String("hunter2-noecho-v2"),
	})
	assert.NilError(t, err)

	p := ssm.NewFromConfig(cfg)
	for _, in := range []*ssm.PutParameterInput{
		{Name: aws.String(names.Replace("/fixture/secure-value")), Value: aws.String("securepw1"), Type: ssmtypes.ParameterTypeSecureString},
		{Name: aws.String(names.Replace("/fixture/plain")), Value: aws.String("not-secret"), Type: ssmtypes.ParameterTypeString},
	} {
		_, err := p.PutParameter(ctx, in)
		assert.NilError(t, err)
	}
	return aws.ToString(first.VersionId)
}

func TestResolverKumo(t *testing.T) {
	cfg := kumoConfig(t, startKumo(t))
	// kumo's storage outlives the server: give this run names of its own.
	suffix := unique(t, "")
	names := strings.NewReplacer("my-secret", "my-secret"+suffix, "plain-secret", "plain-secret"+suffix,
		"/fixture/", "/fixture"+suffix+"/")
	firstVersion := seedKumo(t, cfg, names)
	r := NewResolver(cfg)

	tests := []struct {
		ref        string
		want       string
		wantSecret bool
		wantErr    string
	}{
		{ref: "{{resolve:secretsmanager:my-secret:SecretString:password}}", want: "s3cr3t-pw-from-sm", wantSecret: true},
		{ref: "{{resolve:secretsmanager:my-secret:SecretString:port}}", want: "5432", wantSecret: true},
		{ref: `{{resolve:secretsmanager:my-secret:SecretString:nested}}`, want: `{"a":1}`, wantSecret: true},
		{ref: "{{resolve:secretsmanager:my-secret:SecretString:password:AWSPREVIOUS}}", want: "hunter2-noecho-v1", wantSecret: true},
		{ref: "{{resolve:secretsmanager:my-secret:SecretString:password:AWSCURRENT}}", want: "s3cr3t-pw-from-sm", wantSecret: true},
		{ref: "{{resolve:secretsmanager:my-secret:SecretString:password::" + firstVersion + "}}", want: "hunter2-noecho-v1", wantSecret: true},
		{ref: "{{resolve:secretsmanager:plain-secret}}", want: "hunter2-noecho-v2", wantSecret: true},
		{ref: "{{resolve:ssm-secure:/fixture/secure-value}}", want: "securepw1", wantSecret: true},
		{ref: "{{resolve:ssm:/fixture/secure-value}}", want: "securepw1", wantSecret: true},
		{ref: "{{resolve:ssm:/fixture/plain}}", want: "not-secret", wantSecret: false},
		{
			ref:     "{{resolve:secretsmanager:my-secret:SecretString:username}}",
			wantErr: `resolve {{resolve:secretsmanager:my-secret:SecretString:username}}: json key "username": not found in the SecretString`,
		},
		{
			ref:     "{{resolve:secretsmanager:plain-secret:SecretString:password}}",
			wantErr: `resolve {{resolve:secretsmanager:plain-secret:SecretString:password}}: json key "password": the SecretString is not a JSON object`,
		},
		{ref: "{{resolve:secretsmanager:missing}}", wantErr: "resolve {{resolve:secretsmanager:missing}}: get secret value:"},
		{ref: "{{resolve:ssm:/fixture/missing}}", wantErr: "resolve {{resolve:ssm:/fixture/missing}}: get parameter:"},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			got, secret, err := r.Resolve(context.Background(), mustRef(t, names.Replace(tc.ref)))
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, names.Replace(tc.wantErr))
				assertNoSecret(t, err.Error())
				assert.Equal(t, got, "")
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, got, tc.want)
			assert.Equal(t, secret, tc.wantSecret)
		})
	}
}

// TestResolverClientOptions points per-region clients at the emulator with
// client options instead of AWS_ENDPOINT_URL.
func TestResolverClientOptions(t *testing.T) {
	url := startKumo(t)
	isolateEnv(t)
	cfg, err := LoadConfig(context.Background(), Settings{Region: "eu-west-1"})
	assert.NilError(t, err)
	withEndpoint := func(o *secretsmanager.Options) { o.BaseEndpoint = aws.String(url) }
	name := unique(t, "db")
	_, err = secretsmanager.NewFromConfig(cfg, withEndpoint).CreateSecret(context.Background(),
		&secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: aws.String(`{"pw":"s3cr3t-pw-from-sm"}`)})
	assert.NilError(t, err)

	r := NewResolver(cfg)
	var regions []string
	r.NewSecretsManager = func(region string) SecretsManagerAPI {
		regions = append(regions, region)
		return secretsmanager.NewFromConfig(cfg, func(o *secretsmanager.Options) { o.Region = region }, withEndpoint)
	}
	got, secret, err := r.Resolve(context.Background(), mustRef(t, "{{resolve:secretsmanager:"+name+":SecretString:pw}}"))
	assert.NilError(t, err)
	assert.Equal(t, got, "s3cr3t-pw-from-sm")
	assert.Assert(t, secret)
	assert.DeepEqual(t, regions, []string{"eu-west-1"})
}

// fakeSM and fakeSSM record the region they were built for and the
// requests they received.
type fakeSM struct {
	region string
	calls  *[]string
	err    error
}

func (f fakeSM) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	*f.calls = append(*f.calls, "sm "+f.region+" "+aws.ToString(in.SecretId))
	if f.err != nil {
		return nil, f.err
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(`{"k":"value-from-` + f.region + `"}`)}, nil
}

type fakeSSM struct {
	region string
	calls  *[]string
	err    error
}

func (f fakeSSM) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	*f.calls = append(*f.calls, "ssm "+f.region+" "+aws.ToString(in.Name))
	if f.err != nil {
		return nil, f.err
	}
	if !aws.ToBool(in.WithDecryption) {
		return nil, errors.New("WithDecryption not set")
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{
		Value: aws.String("value-from-" + f.region), Type: ssmtypes.ParameterTypeString,
	}}, nil
}

func fakeResolver(err error) (*Resolver, *[]string, *[]string) {
	var calls, built []string
	var mu sync.Mutex
	r := &Resolver{
		Region: "us-east-1",
		NewSecretsManager: func(region string) SecretsManagerAPI {
			mu.Lock()
			defer mu.Unlock()
			built = append(built, "sm "+region)
			return fakeSM{region: region, calls: &calls, err: err}
		},
		NewSSM: func(region string) SSMAPI {
			mu.Lock()
			defer mu.Unlock()
			built = append(built, "ssm "+region)
			return fakeSSM{region: region, calls: &calls, err: err}
		},
	}
	return r, &calls, &built
}

func TestResolverRoutesARNRegion(t *testing.T) {
	r, calls, built := fakeResolver(nil)
	refs := []struct{ ref, want string }{
		{"{{resolve:secretsmanager:arn:aws:secretsmanager:us-west-2:123456789012:secret:prod/db-AbCdEf:SecretString:k}}", "value-from-us-west-2"},
		{"{{resolve:secretsmanager:local:SecretString:k}}", "value-from-us-east-1"},
		{"{{resolve:secretsmanager:arn:aws:secretsmanager:us-west-2:123456789012:secret:other:SecretString:k}}", "value-from-us-west-2"},
		{"{{resolve:ssm:arn:aws:ssm:eu-west-1:123456789012:parameter/app/name:2}}", "value-from-eu-west-1"},
		{"{{resolve:ssm:/app/name:3}}", "value-from-us-east-1"},
	}
	for _, tc := range refs {
		got, _, err := r.Resolve(context.Background(), mustRef(t, tc.ref))
		assert.NilError(t, err)
		assert.Equal(t, got, tc.want, tc.ref)
	}
	assert.DeepEqual(t, *calls, []string{
		"sm us-west-2 arn:aws:secretsmanager:us-west-2:123456789012:secret:prod/db-AbCdEf",
		"sm us-east-1 local",
		"sm us-west-2 arn:aws:secretsmanager:us-west-2:123456789012:secret:other",
		"ssm eu-west-1 arn:aws:ssm:eu-west-1:123456789012:parameter/app/name:2",
		"ssm us-east-1 /app/name:3",
	})
	got := append([]string(nil), *built...)
	sort.Strings(got)
	// One client per service and region, reused.
	assert.DeepEqual(t, got, []string{"sm us-east-1", "sm us-west-2", "ssm eu-west-1", "ssm us-east-1"})
}

func TestResolverAccessDenied(t *testing.T) {
	denied := &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized"}
	tests := []struct {
		ref     string
		wantErr string
	}{
		{"{{resolve:secretsmanager:my-secret:SecretString:password}}",
			"resolve {{resolve:secretsmanager:my-secret:SecretString:password}}: access denied: the credentials need secretsmanager:GetSecretValue on my-secret"},
		{"{{resolve:ssm-secure:/fixture/secure-value}}",
			"resolve {{resolve:ssm-secure:/fixture/secure-value}}: access denied: the credentials need ssm:GetParameter on /fixture/secure-value"},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			r, _, _ := fakeResolver(denied)
			_, _, err := r.Resolve(context.Background(), mustRef(t, tc.ref))
			assert.ErrorContains(t, err, tc.wantErr)
			assert.Assert(t, errors.Is(err, ErrAccessDenied))
			var ae smithy.APIError
			assert.Assert(t, errors.As(err, &ae), "the SDK error stays reachable")
		})
	}
}

func TestResolverHandBuiltRef(t *testing.T) {
	r, _, _ := fakeResolver(errors.New("boom"))
	_, _, err := r.Resolve(context.Background(), dynref.Ref{Service: dynref.SSM, Parameter: "/x"})
	assert.ErrorContains(t, err, "resolve {{resolve:ssm:/x}}: get parameter: boom")
	_, _, err = r.Resolve(context.Background(), dynref.Ref{Service: "other"})
	assert.Assert(t, strings.Contains(err.Error(), `unsupported service "other"`))
}
