package awsx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestNamedStateBucketFollowsCdkdsOrder(t *testing.T) {
	dir := t.TempDir()
	cdkJSON := filepath.Join(dir, "cdk.json")
	assert.NilError(t, os.WriteFile(cdkJSON, []byte(`{"context":{"cdkd":{"stateBucket":"from-cdk-json"}}}`), 0o644))
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CDKD_STATE_BUCKET" {
				return v
			}
			return ""
		}
	}
	b, ok := NamedStateBucket("from-input", env("from-env"), cdkJSON)
	assert.Assert(t, ok)
	assert.DeepEqual(t, b, StateBucket{Name: "from-input", Source: BucketFromInput})
	b, _ = NamedStateBucket("", env("from-env"), cdkJSON)
	assert.DeepEqual(t, b, StateBucket{Name: "from-env", Source: BucketFromEnv})
	b, _ = NamedStateBucket("", env(""), cdkJSON)
	assert.DeepEqual(t, b, StateBucket{Name: "from-cdk-json", Source: BucketFromCdkJSON})
	assert.Equal(t, b.Why(), "state bucket from-cdk-json, from cdk.json's context.cdkd.stateBucket")
	_, ok = NamedStateBucket("", env(""), filepath.Join(dir, "none.json"))
	assert.Assert(t, !ok, "nothing names a bucket: cdkd's default decides")
}

// fakeProbe answers as S3 and STS would for a set of buckets.
type fakeProbe struct {
	account string
	stsErr  error
	status  map[string]int  // HeadBucket's status per bucket; absent: 404
	state   map[string]bool // a bucket holding an object under cdkd/
	listErr map[string]bool

	owners []string // ExpectedBucketOwner of every S3 call, in order
	calls  []string
}

func (f *fakeProbe) GetCallerIdentity(context.Context, *sts.GetCallerIdentityInput, ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error) {
	if f.stsErr != nil {
		return nil, f.stsErr
	}
	return &sts.GetCallerIdentityOutput{Account: aws.String(f.account)}, nil
}

func (f *fakeProbe) note(op, bucket string, owner *string) {
	f.calls = append(f.calls, op+" "+bucket)
	f.owners = append(f.owners, aws.ToString(owner))
}

func (f *fakeProbe) HeadBucket(_ context.Context, in *s3.HeadBucketInput, _ ...func(*s3.Options)) (*s3.HeadBucketOutput, error) {
	f.note("HeadBucket", *in.Bucket, in.ExpectedBucketOwner)
	code, ok := f.status[*in.Bucket]
	switch {
	case !ok:
		code = http.StatusNotFound
	case code == http.StatusOK:
		return &s3.HeadBucketOutput{}, nil
	}
	return nil, &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code, Header: http.Header{}}}, Err: errors.New(http.StatusText(code))}}
}

func (f *fakeProbe) ListObjectsV2(_ context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	f.note("ListObjectsV2 "+aws.ToString(in.Prefix), *in.Bucket, in.ExpectedBucketOwner)
	if f.listErr[*in.Bucket] {
		return nil, errors.New("list failed")
	}
	n := int32(0)
	if f.state[*in.Bucket] {
		n = 1
	}
	return &s3.ListObjectsV2Output{KeyCount: aws.Int32(n)}, nil
}

// cdkd 0.284's resolveStateBucketWithDefaultAndSource, case by case: the
// new default unless only the legacy one exists, or both do and only the
// legacy one holds state; 301 and 403 count as existing; neither is an
// error. Every S3 call expects the account as the bucket's owner.
func TestDefaultStateBucketFollowsCdkd(t *testing.T) {
	const acct, current, legacy = "123456789012", "cdkd-state-123456789012", "cdkd-state-123456789012-eu-west-1"
	for _, tc := range []struct {
		name    string
		probe   *fakeProbe
		want    string
		source  BucketSource
		note    string
		wantErr string
	}{
		{name: "only the default", probe: &fakeProbe{status: map[string]int{current: 200}}, want: current, source: BucketDefault},
		{name: "only the legacy", probe: &fakeProbe{status: map[string]int{legacy: 200}}, want: legacy, source: BucketLegacyDefault, note: current + " does not exist"},
		{name: "both, the default holds state", probe: &fakeProbe{status: map[string]int{current: 200, legacy: 200}, state: map[string]bool{current: true, legacy: true}}, want: current, source: BucketDefault},
		{name: "both, only the legacy holds state", probe: &fakeProbe{status: map[string]int{current: 200, legacy: 200}, state: map[string]bool{legacy: true}}, want: legacy, source: BucketLegacyDefault, note: "holds no state"},
		{name: "both, neither holds state", probe: &fakeProbe{status: map[string]int{current: 200, legacy: 200}}, want: current, source: BucketDefault},
		{name: "both, the default's listing fails", probe: &fakeProbe{status: map[string]int{current: 200, legacy: 200}, state: map[string]bool{legacy: true}, listErr: map[string]bool{current: true}}, want: current, source: BucketDefault},
		{name: "the default in another region", probe: &fakeProbe{status: map[string]int{current: 301}}, want: current, source: BucketDefault},
		{name: "the default refused", probe: &fakeProbe{status: map[string]int{current: 403}}, want: current, source: BucketDefault, note: "another account owns it"},
		{name: "neither", probe: &fakeProbe{}, wantErr: "neither " + current + " nor the legacy " + legacy + " exists (cdkd bootstrap creates the first)"},
		{name: "S3 fails", probe: &fakeProbe{status: map[string]int{current: 500}}, wantErr: "see whether " + current + " exists (s3:HeadBucket)"},
		{name: "STS fails", probe: &fakeProbe{stsErr: errors.New("no credentials")}, wantErr: "find the account (sts:GetCallerIdentity): no credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.probe
			f.account = acct
			b, err := DefaultStateBucket(context.Background(), BucketProbeAPI{STS: f, S3: f, Region: "eu-west-1"})
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, b.Name, tc.want)
			assert.Equal(t, b.Source, tc.source)
			assert.Equal(t, b.Owner, acct)
			assert.Assert(t, is.Contains(b.Note, tc.note))
			assert.Assert(t, is.Contains(b.Why(), "state bucket "+tc.want+", from cdkd's"))
			assert.Assert(t, is.Contains(b.Why(), acct+"; every S3 call to it expects it owned by that account"))
			for i, o := range f.owners {
				assert.Equal(t, o, acct, "%s sends ExpectedBucketOwner", f.calls[i])
			}
			for _, c := range f.calls {
				if strings.HasPrefix(c, "ListObjectsV2") {
					assert.Assert(t, strings.HasPrefix(c, "ListObjectsV2 cdkd/ "), "cdkd's fixed prefix: %s", c)
				}
			}
		})
	}
}

// recordingTransport answers every request with 200 and keeps it.
type recordingTransport struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recordingTransport) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	body := ""
	if req.Method == http.MethodGet && req.URL.Query().Get("list-type") == "2" {
		body = `<ListBucketResult><KeyCount>0</KeyCount></ListBucketResult>`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

// kumo ignores ExpectedBucketOwner, so the requests themselves are
// checked: every call a client with an expected owner makes carries the
// header S3 checks, the region retry included, and a call of a kind that
// cannot carry it is not made at all.
func TestExpectBucketOwnerOnEveryCall(t *testing.T) {
	rec := &recordingTransport{}
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), HTTPClient: rec, BaseEndpoint: aws.String("http://s3.test")}
	client := NewS3(cfg, ExpectBucketOwner("123456789012"))
	ctx := context.Background()
	bucket := aws.String("cdkd-state-123456789012")
	_, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: aws.String("cdkd-action/key")})
	assert.NilError(t, err)
	_, err = client.GetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: aws.String("x")}, func(o *s3.Options) { o.Region = "eu-west-1" })
	assert.NilError(t, err)
	_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String("cdkd-action/reviews/d.json.gz"), Body: strings.NewReader("{}")})
	assert.NilError(t, err)
	_, err = client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bucket, Prefix: aws.String("cdkd/")})
	assert.NilError(t, err)
	_, err = client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: bucket})
	assert.NilError(t, err)
	assert.Equal(t, len(rec.reqs), 5)
	for _, r := range rec.reqs {
		assert.Equal(t, r.Header.Get("X-Amz-Expected-Bucket-Owner"), "123456789012", "%s %s", r.Method, r.URL)
	}

	_, err = client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bucket, Key: aws.String("x")})
	assert.ErrorContains(t, err, "cannot say which account must own the bucket")
	assert.Equal(t, len(rec.reqs), 5, "the call was not made")

	// Without an owner (a bucket the run names), nothing is added.
	plain := NewS3(cfg, ExpectBucketOwner(""))
	_, err = plain.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("named"), Key: aws.String("k")})
	assert.NilError(t, err)
	assert.Equal(t, rec.reqs[5].Header.Get("X-Amz-Expected-Bucket-Owner"), "")
}
