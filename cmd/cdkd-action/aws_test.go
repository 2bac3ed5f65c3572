package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/sivchari/kumo"
	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/app"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// awsEmulator is the e2e tests' AWS: kumo (S3, Secrets Manager, SSM) in
// the test process, behind a proxy that records the region and service of
// each signed request and can run a hook before one. kumo keeps one
// storage for the whole process, so a test names what it seeds uniquely
// (unique) or tolerates finding it there.
type awsEmulator struct {
	url  string
	test string // the test's name, for the IAM record (iam_record_test.go)
	// handler serves the emulator's front (the proxy to kumo), for another
	// listener (serveSQSQuirk).
	handler http.Handler

	mu     sync.Mutex
	n      int      // requests served
	scopes []string // "service/region" of each signed request
	before func(*http.Request)
	// instead, when set, may answer a request itself (a fault kumo cannot
	// make); it reports whether it did.
	instead func(http.ResponseWriter, *http.Request) bool
	secrets []string // the values seeded as secrets
	// account, when set, is the account STS GetCallerIdentity answers
	// (kumo's is one fixed account for the whole process, whose default
	// state bucket no test may create); foreign are buckets another
	// account owns: S3 refuses a request to one that expects an owner, as
	// S3 does (kumo ignores ExpectedBucketOwner).
	account string
	foreign map[string]bool
}

var credentialScope = regexp.MustCompile(`Credential=[^/]+/\d+/([^/]+)/([^/]+)/aws4_request`)

// startAWS starts the emulator for one test.
func startAWS(t *testing.T) *awsEmulator {
	t.Helper()
	srv := kumo.NewServer()
	t.Cleanup(srv.Close)
	target, err := url.Parse(srv.URL)
	assert.NilError(t, err)
	e := &awsEmulator{test: t.Name()}
	proxy := httputil.NewSingleHostReverseProxy(target)
	e.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.n++
		if m := credentialScope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
			e.scopes = append(e.scopes, m[2]+"/"+m[1])
		}
		before, instead := e.before, e.instead
		e.mu.Unlock()
		e.record(r)
		if before != nil {
			before(r)
		}
		if instead != nil && instead(w, r) {
			return
		}
		if e.answer(w, r) {
			return
		}
		proxy.ServeHTTP(w, r)
	})
	front := httptest.NewServer(e.handler)
	t.Cleanup(front.Close)
	e.url = front.URL
	return e
}

// useAWS points the workspace's steps at the emulator, and checks them
// for the secrets it holds.
func (w *workspace) useAWS(e *awsEmulator) {
	delete(w.vars, "INPUT_FINGERPRINT-KEY") // the key in the state bucket, by default
	for _, kv := range e.env() {
		k, v, _ := strings.Cut(kv, "=")
		w.vars[k] = v
	}
	w.aws = e
}

// env is what a step needs to reach the emulator, as cdkd would.
func (e *awsEmulator) env() []string {
	return []string{
		"AWS_ENDPOINT_URL=" + e.url,
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
	}
}

func (e *awsEmulator) config() aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(e.url),
		AppID:        fixtureAppID, // not the action's: not recorded
	}
}

func (e *awsEmulator) s3() *s3.Client {
	return s3.NewFromConfig(e.config(), func(o *s3.Options) { o.UsePathStyle = true })
}

// requests counts the requests the emulator served.
func (e *awsEmulator) requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

// ownAccount makes STS name an account of the test's own, and returns it:
// cdkd's default state bucket is named after it.
func (e *awsEmulator) ownAccount() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	var acct strings.Builder
	for _, c := range b {
		fmt.Fprintf(&acct, "%02d", int(c)%100)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.account = acct.String()
	return e.account
}

// squat makes bucket another account's: a request that expects an owner
// is refused with 403, one that does not reaches it.
func (e *awsEmulator) squat(bucket string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.foreign == nil {
		e.foreign = map[string]bool{}
	}
	e.foreign[bucket] = true
}

// answer serves what kumo cannot: GetCallerIdentity for the test's own
// account, and S3's refusal of a request to a bucket another account owns
// that expects an owner. The body was put back by record.
func (e *awsEmulator) answer(w http.ResponseWriter, r *http.Request) bool {
	e.mu.Lock()
	account, foreign := e.account, e.foreign
	e.mu.Unlock()
	service := ""
	if m := credentialScope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
		service = m[2]
	}
	switch {
	case service == "sts" && account != "":
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if q, _ := url.ParseQuery(string(body)); q.Get("Action") != "GetCallerIdentity" {
			return false
		}
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:iam::%[1]s:root</Arn><UserId>%[1]s</UserId><Account>%[1]s</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>e2e</RequestId></ResponseMetadata></GetCallerIdentityResponse>`, account)
		return true
	case service == "s3" && r.Header.Get("X-Amz-Expected-Bucket-Owner") != "":
		bucket, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if !foreign[bucket] {
			return false
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
		return true
	}
	return false
}

func (e *awsEmulator) sawScope(scope string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Contains(e.scopes, scope)
}

// beforeRequest runs f before each request reaches kumo (nil: none).
// answerInstead lets f answer the requests it chooses instead of kumo
// (f reports whether it answered): S3's faults kumo does not make.
func (e *awsEmulator) answerInstead(f func(http.ResponseWriter, *http.Request) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.instead = f
}

// s3Error answers as S3 does when it refuses a request.
func s3Error(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+code+`</Code><Message>`+message+`</Message><RequestId>emulated</RequestId></Error>`)
}

// cutAfterHeaders answers 200 with the headers of an object of size bytes
// and closes the connection after half of them: a read cut off by the
// network.
func cutAfterHeaders(w http.ResponseWriter, size int) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("the emulator's response cannot be hijacked")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nETag: \"cut\"\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n")
	_, _ = buf.Write(make([]byte, size/2))
	_ = buf.Flush()
}

func (e *awsEmulator) beforeRequest(f func(*http.Request)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.before = f
}

func (e *awsEmulator) secretValues() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.secrets)
}

func (e *awsEmulator) isSecret(v string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.secrets = append(e.secrets, v)
}

// createBucket creates a bucket holding objects (key: body).
func (e *awsEmulator) createBucket(t *testing.T, name string, objects map[string]string) {
	t.Helper()
	_, err := e.s3().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)})
	assert.NilError(t, err)
	for key, body := range objects {
		e.putObject(t, name, key, body)
	}
}

func (e *awsEmulator) putObject(t *testing.T, bucket, key, body string) {
	t.Helper()
	_, err := e.s3().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)})
	assert.NilError(t, err)
}

// object reads an object; ok is false when there is none.
func (e *awsEmulator) object(t *testing.T, bucket, key string) (body string, ok bool) {
	t.Helper()
	out, err := e.s3().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return "", false
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	assert.NilError(t, err)
	return string(b), true
}

// secret stores a Secrets Manager secret, or a new current value of one
// that exists (kumo's storage outlives a test), and returns the version id.
func (e *awsEmulator) secret(t *testing.T, name, value string) string {
	t.Helper()
	e.isSecret(value)
	sm := secretsmanager.NewFromConfig(e.config())
	ctx := context.Background()
	out, err := sm.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: aws.String(value)})
	if err == nil {
		return aws.ToString(out.VersionId)
	}
	assert.Assert(t, strings.Contains(err.Error(), "ResourceExists"), "create secret %s: %v", name, err)
	put, err := sm.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String(name), SecretString: aws.String(value)})
	assert.NilError(t, err)
	return aws.ToString(put.VersionId)
}

// parameter stores an SSM parameter; a SecureString's value is a secret.
func (e *awsEmulator) parameter(t *testing.T, name, value string, secure bool) {
	t.Helper()
	typ := ssmtypes.ParameterTypeString
	if secure {
		typ = ssmtypes.ParameterTypeSecureString
		e.isSecret(value)
	}
	_, err := ssm.NewFromConfig(e.config()).PutParameter(context.Background(), &ssm.PutParameterInput{
		Name: aws.String(name), Value: aws.String(value), Type: typ, Overwrite: aws.Bool(true)})
	assert.NilError(t, err)
}

// stepDeps are the App's AWS edges for an in-process step, built from the
// step's own environment (getenv) as awsx.LoadConfig builds them from the
// process's: the region, static keys, AWS_ENDPOINT_URL and
// AWS_MAX_ATTEMPTS. The process's environment is never read, and a step
// with credentials but no endpoint is refused: the tests never call AWS.
// The clients carry the step's tag, so that the emulator records its calls
// under its role (iam_record_test.go).
func stepDeps(dir string, getenv func(string) string, args []string) app.Deps {
	tag := sync.OnceValue(func() string { return tagStep(dir, getenv, args) })
	return app.Deps{
		AWS: func(ctx context.Context, s awsx.Settings) (discover.Deps, error) {
			cfg, err := stepAWSConfig(getenv, s, tag())
			if err != nil {
				return discover.Deps{}, err
			}
			return discover.Deps{State: awsx.StateReader{S3: awsx.NewS3(cfg, awsx.ExpectBucketOwner(s.BucketOwner))}, Resolver: awsx.NewResolver(cfg)}, nil
		},
		Objects: func(ctx context.Context, s awsx.Settings, bucket string) (fingerprint.ObjectStore, error) {
			cfg, err := stepAWSConfig(getenv, s, tag())
			if err != nil {
				return nil, err
			}
			return awsx.Objects{S3: awsx.NewS3(cfg, awsx.ExpectBucketOwner(s.BucketOwner)), Bucket: bucket}, nil
		},
		BucketProbe: func(ctx context.Context, s awsx.Settings) (awsx.BucketProbeAPI, error) {
			cfg, err := stepAWSConfig(getenv, s, tag())
			if err != nil {
				return awsx.BucketProbeAPI{}, err
			}
			return awsx.NewBucketProbe(cfg), nil
		},
		FingerprintParams: e2eFingerprintParams,
		CdkdKillGrace:     e2eKillGrace,
		GitHub: func(token, apiURL string, opts ...github.Option) (github.API, error) {
			return github.NewClient(token, apiURL, append(opts, github.WithSleeper(e2eSleep))...)
		},
	}
}

// e2eKillGrace is how long an in-process step's cdkd gets after SIGINT. The
// stubs exit at once on SIGINT or ignore it, so a second shows the same.
const e2eKillGrace = time.Second

// e2eSleep is the GitHub client's wait between retries, a hundredth of the
// real one: the retry policy (attempts, what is retried, what the log says
// it waits) is the real one, only the clock runs faster, so the tests of a
// GitHub outage fit the one-minute budget of go test.
func e2eSleep(ctx context.Context, d time.Duration) error { return github.Sleep(ctx, d/100) }

func stepAWSConfig(getenv func(string) string, s awsx.Settings, appID string) (aws.Config, error) {
	cfg := aws.Config{Region: cmp.Or(s.Region, getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION")), AppID: appID}
	if cfg.Region == "" {
		return aws.Config{}, awsx.ErrNoRegion
	}
	key, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	endpoint := getenv("AWS_ENDPOINT_URL")
	switch {
	case key != "" && endpoint == "":
		return aws.Config{}, errors.New("the test step has AWS credentials but no AWS_ENDPOINT_URL: e2e tests never call AWS")
	case key != "":
		cfg.Credentials = credentials.NewStaticCredentialsProvider(key, secret, getenv("AWS_SESSION_TOKEN"))
	default:
		cfg.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{}, errors.New("no AWS credentials in the test step's environment")
		})
	}
	if endpoint == "" {
		// Nothing may reach AWS, whatever the SDK would try first.
		endpoint = "http://127.0.0.1:9"
	}
	cfg.BaseEndpoint = aws.String(endpoint)
	if n, err := strconv.Atoi(getenv("AWS_MAX_ATTEMPTS")); err == nil {
		cfg.RetryMaxAttempts = n
	}
	return cfg, nil
}
