package awsx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestStateReaderKumo(t *testing.T) {
	cfg := kumoConfig(t, startKumo(t))
	client := NewS3(cfg)
	state := string(readTestdata(t, "state-stackA.json"))
	bucket := unique(t, "cdkd-state")
	putObject(t, client, bucket, "cdkd/StackA/us-east-1/state.json", state)
	putObject(t, client, bucket, "custom/StackA/us-east-1/state.json", state)
	putObject(t, client, bucket, "cdkd/Parent~Child/us-east-1/state.json", state)
	r := StateReader{S3: client}

	tests := []struct {
		name                          string
		bucket, prefix, stack, region string
		wantNil                       bool
	}{
		{name: "present", bucket: bucket, prefix: "cdkd", stack: "StackA", region: "us-east-1"},
		{name: "default prefix", bucket: bucket, stack: "StackA", region: "us-east-1"},
		{name: "custom prefix with slash", bucket: bucket, prefix: "custom/", stack: "StackA", region: "us-east-1"},
		{name: "nested stack", bucket: bucket, stack: "Parent~Child", region: "us-east-1"},
		{name: "missing key", bucket: bucket, stack: "StackA", region: "eu-west-1", wantNil: true},
		{name: "missing stack", bucket: bucket, stack: "Nope", region: "us-east-1", wantNil: true},
		{name: "missing bucket", bucket: unique(t, "no-such-bucket"), stack: "StackA", region: "us-east-1", wantNil: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := r.Read(context.Background(), tc.bucket, tc.prefix, tc.stack, tc.region)
			assert.NilError(t, err)
			if tc.wantNil {
				assert.Assert(t, st == nil)
				return
			}
			assert.Assert(t, st != nil)
			assert.Equal(t, st.Version, 8)
			assert.Equal(t, st.StackName, "StackA")
			assert.Equal(t, st.Region, "us-east-1")
			assert.Equal(t, len(st.Resources), 7)
			assert.Equal(t, string(st.Raw), state)
		})
	}
}

func TestReadLockKumo(t *testing.T) {
	cfg := kumoConfig(t, startKumo(t))
	client := NewS3(cfg)
	bucket := unique(t, "cdkd-state")
	putObject(t, client, bucket, "cdkd/StackA/us-east-1/lock.json",
		`{"owner":"runner@host:42","timestamp":1795957158637,"expiresAt":1795958958637,"operation":"deploy"}`)
	r := StateReader{S3: client}

	l, err := r.ReadLock(context.Background(), bucket, "cdkd", "StackA", "us-east-1")
	assert.NilError(t, err)
	assert.Equal(t, l.Owner, "runner@host:42")
	assert.Equal(t, l.Operation, "deploy")
	assert.Equal(t, l.Timestamp, time.UnixMilli(1795957158637).UTC())
	assert.Equal(t, l.ExpiresAt.Sub(l.Timestamp), 30*time.Minute)

	l, err = r.ReadLock(context.Background(), bucket, "cdkd", "StackB", "us-east-1")
	assert.NilError(t, err)
	assert.Assert(t, l == nil, "no lock.json means unlocked")
}

// s3Stub answers GetObject like S3 would, from a handler per test.
func s3Stub(t *testing.T, h http.HandlerFunc) StateReader {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	isolateEnv(t)
	cfg, err := LoadConfig(context.Background(), Settings{})
	assert.NilError(t, err)
	return StateReader{S3: NewS3(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
		o.RetryMaxAttempts = 1
	})}
}

func s3Error(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>stub</Message><RequestId>r1</RequestId></Error>`, code)
}

func TestStateReaderErrors(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		code       string
		wantDenied bool
		wantErr    string
	}{
		{name: "access denied", status: http.StatusForbidden, code: "AccessDenied", wantDenied: true,
			wantErr: "read state s3://bucket/cdkd/StackA/us-east-1/state.json: access denied: the credentials need s3:GetObject on s3://bucket/cdkd/StackA/us-east-1/state.json"},
		{name: "bad credentials", status: http.StatusForbidden, code: "InvalidAccessKeyId",
			wantErr: "InvalidAccessKeyId"},
		{name: "server error", status: http.StatusInternalServerError, code: "InternalError",
			wantErr: "InternalError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			r := s3Stub(t, func(w http.ResponseWriter, req *http.Request) {
				paths = append(paths, req.URL.Path)
				s3Error(w, tc.status, tc.code)
			})
			st, err := r.Read(context.Background(), "bucket", "cdkd", "StackA", "us-east-1")
			assert.Assert(t, st == nil)
			assert.ErrorContains(t, err, tc.wantErr)
			assert.Equal(t, errors.Is(err, ErrAccessDenied), tc.wantDenied)
			assert.DeepEqual(t, paths, []string{"/bucket/cdkd/StackA/us-east-1/state.json"})
		})
	}
}

// TestStateReaderFollowsBucketRegion: a state bucket in another region than
// AWS_REGION answers 301 with its region; the read is retried there once.
func TestStateReaderFollowsBucketRegion(t *testing.T) {
	var regions []string
	r := s3Stub(t, func(w http.ResponseWriter, req *http.Request) {
		region := signingRegion(req.Header.Get("Authorization"))
		regions = append(regions, region)
		if region != "eu-west-1" {
			w.Header().Set("X-Amz-Bucket-Region", "eu-west-1")
			s3Error(w, http.StatusMovedPermanently, "PermanentRedirect")
			return
		}
		fmt.Fprint(w, `{"version":8,"stackName":"StackA","region":"us-east-1","resources":{}}`)
	})
	st, err := r.Read(context.Background(), "bucket", "cdkd", "StackA", "us-east-1")
	assert.NilError(t, err)
	assert.Equal(t, st.StackName, "StackA")
	assert.DeepEqual(t, regions, []string{"us-east-1", "eu-west-1"})
}

// signingRegion reads the region from a SigV4 Authorization header
// (Credential=AKID/date/region/service/aws4_request).
func signingRegion(auth string) string {
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	parts := strings.Split(cred, "/")
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

func TestDecodeState(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		check   func(t *testing.T, st *State)
	}{
		{
			name: "sample",
			in:   string(readTestdata(t, "state-stackA.json")),
			check: func(t *testing.T, st *State) {
				assert.Equal(t, st.LastModified, time.UnixMilli(1795957158637).UTC())
				b := st.Resources["Bucket83908E77"]
				assert.Equal(t, b.PhysicalID, "stacka-bucket83908e77")
				assert.Equal(t, b.ResourceType, "AWS::S3::Bucket")
				assert.Equal(t, b.DeletionPolicy, "Retain")
				assert.Equal(t, b.UpdateReplacePolicy, "Retain")
				assert.Equal(t, b.ProvisionedBy, "sdk")
				q := st.Resources["Queue4A7E3555"]
				assert.Equal(t, q.Properties["VisibilityTimeout"], json.Number("30"))
				v, ok := st.OutputString("BucketName")
				assert.Assert(t, ok)
				assert.Equal(t, v, "stacka-bucket83908e77")
			},
		},
		{
			name: "unknown fields and no resources",
			in:   `{"version":11,"stackName":"S","future":{"x":1},"lastModified":"2026-01-02T03:04:05Z"}`,
			check: func(t *testing.T, st *State) {
				assert.Equal(t, st.Version, 11)
				assert.Equal(t, len(st.Resources), 0)
				assert.Equal(t, st.LastModified, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			},
		},
		{
			name: "dependencies",
			in:   `{"resources":{"A":{"physicalId":"a","resourceType":"T","properties":{},"dependencies":["B"]}}}`,
			check: func(t *testing.T, st *State) {
				assert.DeepEqual(t, st.Resources["A"].Dependencies, []string{"B"})
			},
		},
		{name: "not an object", in: `["hunter2-noecho-v1"]`, wantErr: "decode state: not a JSON object"},
		{name: "empty", in: ``, wantErr: "decode state: not a JSON object"},
		{name: "syntax", in: `{"resources":{"A":{"physicalId":"hunter2-noecho-v1"x}}}`, wantErr: "decode state: invalid JSON at offset"},
		{name: "truncated", in: `{"resources":{"A":{"physicalId":"hunter2-noecho-v1`, wantErr: "decode state: truncated JSON"},
		{name: "version not a number", in: `{"version":"hunter2-noecho-v1"}`, wantErr: "decode state: invalid JSON"},
		{name: "version not an integer", in: `{"version":8.5}`, wantErr: `decode state: version "8.5" is not an integer`},
		{name: "resource not an object", in: `{"resources":{"A":"hunter2-noecho-v1"}}`,
			wantErr: "decode state: field resources: unexpected JSON string"},
		{name: "properties not an object", in: `{"resources":{"A":{"properties":12345}}}`,
			wantErr: "decode state: field resources.properties: unexpected JSON number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := DecodeState([]byte(tc.in))
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				assertNoSecret(t, err.Error())
				assert.Assert(t, !strings.Contains(err.Error(), "12345"))
				return
			}
			assert.NilError(t, err)
			tc.check(t, st)
		})
	}
}

func TestDecodeLock(t *testing.T) {
	l, err := DecodeLock([]byte(`{"owner":"me","timestamp":"soon"}`))
	assert.NilError(t, err)
	assert.Equal(t, l.Owner, "me")
	assert.Assert(t, l.Timestamp.IsZero(), "unreadable time is zero, not an error")
	assert.Assert(t, l.ExpiresAt.IsZero())

	_, err = DecodeLock([]byte(`null`))
	assert.Assert(t, is.ErrorContains(err, "decode lock: not a JSON object"))
}

func TestKeys(t *testing.T) {
	assert.Equal(t, StateKey("", "S", "r"), "cdkd/S/r/state.json")
	assert.Equal(t, StateKey("/p/q/", "S", "r"), "p/q/S/r/state.json")
	assert.Equal(t, LockKey("cdkd", "P~C", "r"), "cdkd/P~C/r/lock.json")
}

// Object reads any object of the bucket as it is: cdkd's deploy-run index
// and event streams, read by cdkd.Bucket.
func TestStateReaderObjectKumo(t *testing.T) {
	cfg := kumoConfig(t, startKumo(t))
	client := NewS3(cfg)
	bucket := unique(t, "cdkd-state")
	index := `{"indexVersion": 1, "runs": []}`
	putObject(t, client, bucket, "cdkd/StackA/us-east-1/deployments/index.json", index)
	r := StateReader{S3: client}

	raw, err := r.Object(context.Background(), bucket, "cdkd/StackA/us-east-1/deployments/index.json")
	assert.NilError(t, err)
	assert.Equal(t, string(raw), index)
	for _, missing := range []struct{ bucket, key string }{
		{bucket, "cdkd/StackA/us-east-1/deployments/nope.jsonl"},
		{unique(t, "no-such-bucket"), "cdkd/StackA/us-east-1/deployments/index.json"},
	} {
		raw, err := r.Object(context.Background(), missing.bucket, missing.key)
		assert.NilError(t, err)
		assert.Assert(t, raw == nil, "%s/%s", missing.bucket, missing.key)
	}
}
