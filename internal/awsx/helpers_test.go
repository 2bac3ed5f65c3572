package awsx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/sivchari/kumo"
	"gotest.tools/v3/assert"
)

// knownSecrets are the secret values of the sample data; no error message
// may contain one.
var knownSecrets = []string{"hunter2-noecho-v1", "hunter2-noecho-v2", "s3cr3t-pw-from-sm", "securepw1"}

// awsEnvVars are the variables that could point a test at real AWS or at a
// developer's own profile.
var awsEnvVars = []string{
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "AWS_WEB_IDENTITY_TOKEN_FILE",
	"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_SECRETS_MANAGER",
	"AWS_ENDPOINT_URL_SSM", "AWS_ENDPOINT_URL_STS", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
}

// isolateEnv gives the test a clean AWS environment: test credentials,
// region us-east-1, no IMDS, empty shared config files, and no endpoint
// overrides (tests add their own). Cleanup restores the previous values.
func isolateEnv(t *testing.T) {
	t.Helper()
	for _, k := range awsEnvVars {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config"), "")
	writeFile(t, filepath.Join(dir, "credentials"), "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	assert.NilError(t, os.WriteFile(path, []byte(content), 0o600))
}

// unique returns name with a random suffix. kumo keeps its data in
// process-wide storage shared by every server, so each test (and each
// -count repetition) needs names of its own.
func unique(t *testing.T, name string) string {
	t.Helper()
	b := make([]byte, 4)
	_, err := rand.Read(b)
	assert.NilError(t, err)
	return name + "-" + hex.EncodeToString(b)
}

// startKumo starts an in-process AWS emulator on loopback.
func startKumo(t *testing.T) string {
	t.Helper()
	srv := kumo.NewServer()
	t.Cleanup(srv.Close)
	return srv.URL
}

// kumoConfig is an aws.Config for the emulator at url, built through
// LoadConfig and AWS_ENDPOINT_URL, as the action builds it.
func kumoConfig(t *testing.T, url string) aws.Config {
	t.Helper()
	isolateEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", url)
	cfg, err := LoadConfig(context.Background(), Settings{})
	assert.NilError(t, err)
	return cfg
}

// putObject writes an object, creating the bucket first when needed.
func putObject(t *testing.T, client *s3.Client, bucket, key, body string) {
	t.Helper()
	ctx := context.Background()
	_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	if err != nil && !strings.Contains(err.Error(), "BucketAlreadyOwnedByYou") && !strings.Contains(err.Error(), "BucketAlreadyExists") {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	_, err = client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body),
	})
	assert.NilError(t, err)
}

// assertNoSecret fails when msg contains a known secret value.
func assertNoSecret(t *testing.T, msg string) {
	t.Helper()
	for _, s := range knownSecrets {
		assert.Assert(t, !strings.Contains(msg, s), "message leaks %q: %s", s, msg)
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	assert.NilError(t, err)
	return b
}
