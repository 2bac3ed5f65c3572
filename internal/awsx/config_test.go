package awsx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestLoadConfigRegion(t *testing.T) {
	const profiles = "[profile ci]\nregion = eu-central-1\n\n[profile noregion]\noutput = json\n"
	tests := []struct {
		name     string
		env      map[string]string
		settings Settings
		want     string
		wantErr  string
	}{
		{name: "AWS_REGION", env: map[string]string{"AWS_REGION": "ap-northeast-1"}, want: "ap-northeast-1"},
		{name: "settings win over env", env: map[string]string{"AWS_REGION": "ap-northeast-1"},
			settings: Settings{Region: "us-west-2"}, want: "us-west-2"},
		{name: "profile region", env: map[string]string{"AWS_REGION": ""}, settings: Settings{Profile: "ci"}, want: "eu-central-1"},
		{name: "AWS_PROFILE region", env: map[string]string{"AWS_REGION": "", "AWS_PROFILE": "ci"}, want: "eu-central-1"},
		{name: "no region", env: map[string]string{"AWS_REGION": ""},
			wantErr: "AWS region is not set: set AWS_REGION or a profile with a region"},
		{name: "profile without region", env: map[string]string{"AWS_REGION": ""}, settings: Settings{Profile: "noregion"},
			wantErr: "AWS region is not set: set AWS_REGION or a profile with a region"},
		{name: "unknown profile", settings: Settings{Profile: "nope"}, wantErr: "load AWS configuration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolateEnv(t)
			writeFile(t, os.Getenv("AWS_CONFIG_FILE"), profiles)
			for k, v := range tc.env {
				t.Setenv(k, v)
				if v == "" {
					os.Unsetenv(k)
				}
			}
			cfg, err := LoadConfig(context.Background(), tc.settings)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				if strings.HasPrefix(tc.wantErr, "AWS region") {
					assert.Assert(t, errors.Is(err, ErrNoRegion))
				}
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, cfg.Region, tc.want)
		})
	}
}

// TestEndpointOverrides checks that the SDK version in go.mod applies the
// same endpoint settings cdkd honours, per service, and that S3 switches to
// path-style whenever an endpoint is overridden.
func TestEndpointOverrides(t *testing.T) {
	const (
		global = "http://127.0.0.1:1"
		s3URL  = "http://127.0.0.1:2"
		smURL  = "http://127.0.0.1:3"
		ssmURL = "http://127.0.0.1:4"
		stsURL = "http://127.0.0.1:5"
	)
	tests := []struct {
		name                             string
		env                              map[string]string
		wantS3, wantSM, wantSSM, wantSTS string
		wantPathStyle                    bool
	}{
		{name: "none"},
		{
			name: "AWS_ENDPOINT_URL", env: map[string]string{"AWS_ENDPOINT_URL": global},
			wantS3: global, wantSM: global, wantSSM: global, wantSTS: global, wantPathStyle: true,
		},
		{
			name: "per service over global",
			env: map[string]string{
				"AWS_ENDPOINT_URL": global, "AWS_ENDPOINT_URL_S3": s3URL,
				"AWS_ENDPOINT_URL_SECRETS_MANAGER": smURL, "AWS_ENDPOINT_URL_SSM": ssmURL, "AWS_ENDPOINT_URL_STS": stsURL,
			},
			wantS3: s3URL, wantSM: smURL, wantSSM: ssmURL, wantSTS: stsURL, wantPathStyle: true,
		},
		{
			name: "S3 only", env: map[string]string{"AWS_ENDPOINT_URL_S3": s3URL},
			wantS3: s3URL, wantPathStyle: true,
		},
		{
			name: "Secrets Manager only", env: map[string]string{"AWS_ENDPOINT_URL_SECRETS_MANAGER": smURL},
			wantSM: smURL,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolateEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, err := LoadConfig(context.Background(), Settings{})
			assert.NilError(t, err)

			s3o := NewS3(cfg).Options()
			assert.Equal(t, aws.ToString(s3o.BaseEndpoint), tc.wantS3)
			assert.Equal(t, s3o.UsePathStyle, tc.wantPathStyle)
			assert.Equal(t, aws.ToString(secretsmanager.NewFromConfig(cfg).Options().BaseEndpoint), tc.wantSM)
			assert.Equal(t, aws.ToString(ssm.NewFromConfig(cfg).Options().BaseEndpoint), tc.wantSSM)
			assert.Equal(t, aws.ToString(sts.NewFromConfig(cfg).Options().BaseEndpoint), tc.wantSTS)
		})
	}
}

func TestNewS3PathStyleFromClientOption(t *testing.T) {
	isolateEnv(t)
	cfg, err := LoadConfig(context.Background(), Settings{})
	assert.NilError(t, err)

	o := NewS3(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String("http://127.0.0.1:9") }).Options()
	assert.Assert(t, o.UsePathStyle)

	o = NewS3(cfg).Options()
	assert.Assert(t, !o.UsePathStyle, "virtual-hosted style against real S3")
}

func TestLoadConfigAssumesRole(t *testing.T) {
	url := startKumo(t)
	isolateEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", url)

	cfg, err := LoadConfig(context.Background(), Settings{RoleARN: "arn:aws:iam::000000000000:role/deployer"})
	assert.NilError(t, err)
	creds, err := cfg.Credentials.Retrieve(context.Background())
	assert.NilError(t, err)
	assert.Assert(t, creds.AccessKeyID != "test", "still the base credentials")
	assert.Assert(t, creds.SessionToken != "")
	assert.Assert(t, is.Contains(creds.Source, "AssumeRoleProvider"))
}

// TestLoadConfigWebIdentityFromEnv checks that GitHub OIDC credentials
// (AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN) are exchanged at the
// overridden endpoint, not at real STS. kumo cannot route the unsigned
// AssumeRoleWithWebIdentity call, so a hand-written STS answers it.
func TestLoadConfigWebIdentityFromEnv(t *testing.T) {
	var got url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got = r.PostForm
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprint(w, `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
<AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIAOIDC</AccessKeyId>
<SecretAccessKey>oidc-secret</SecretAccessKey><SessionToken>oidc-token</SessionToken>
<Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult>
</AssumeRoleWithWebIdentityResponse>`)
	}))
	t.Cleanup(srv.Close)

	isolateEnv(t)
	os.Unsetenv("AWS_ACCESS_KEY_ID")
	os.Unsetenv("AWS_SECRET_ACCESS_KEY")
	token := filepath.Join(t.TempDir(), "token")
	writeFile(t, token, "oidc-jwt")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", token)
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::000000000000:role/github-oidc")
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)

	cfg, err := LoadConfig(context.Background(), Settings{})
	assert.NilError(t, err)
	creds, err := cfg.Credentials.Retrieve(context.Background())
	assert.NilError(t, err)
	assert.Equal(t, creds.AccessKeyID, "ASIAOIDC")
	assert.Equal(t, got.Get("Action"), "AssumeRoleWithWebIdentity")
	assert.Equal(t, got.Get("RoleArn"), "arn:aws:iam::000000000000:role/github-oidc")
	assert.Equal(t, got.Get("WebIdentityToken"), "oidc-jwt")
}

// KnownRegion finds a region where the SDK (and cdkd) would: the two
// variables, then the profile's region in the shared config file.
func TestKnownRegion(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "config")
	writeFile(t, cfgFile, "[default]\nregion = eu-west-1\n[profile ci]\nregion = ap-south-1\n[profile none]\noutput = json\n")
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"AWS_REGION": "us-east-2", "AWS_DEFAULT_REGION": "us-west-1"}, "us-east-2"},
		{map[string]string{"AWS_DEFAULT_REGION": "us-west-1"}, "us-west-1"},
		{map[string]string{"AWS_CONFIG_FILE": cfgFile}, "eu-west-1"},
		{map[string]string{"AWS_CONFIG_FILE": cfgFile, "AWS_PROFILE": "ci"}, "ap-south-1"},
		{map[string]string{"AWS_CONFIG_FILE": cfgFile, "AWS_PROFILE": "none"}, ""},
		{map[string]string{"HOME": t.TempDir()}, ""},
		{map[string]string{}, ""},
	} {
		got := KnownRegion(context.Background(), func(k string) string { return tc.env[k] })
		assert.Equal(t, got, tc.want, "%v", tc.env)
	}
}
