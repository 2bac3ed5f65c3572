package awsx

import (
	"context"
	"net/http"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestStateListKumo(t *testing.T) {
	cfg := kumoConfig(t, startKumo(t))
	client := NewS3(cfg)
	bucket := unique(t, "cdkd-state")
	for _, key := range []string{
		"cdkd/StackA/us-east-1/state.json", "cdkd/StackA/eu-west-1/state.json", "cdkd/StackA/us-east-1/lock.json",
		"cdkd/Parent~Child/us-east-1/state.json", "cdkd/_index/us-east-1/exports.json", "cdkd/B/us-east-1/deployments/r1.jsonl",
		"custom/Other/us-east-1/state.json",
	} {
		putObject(t, client, bucket, key, "{}")
	}
	r := StateReader{S3: client}
	tests := []struct {
		name, bucket, prefix string
		want                 []StackRecord
	}{
		{name: "default prefix", bucket: bucket, want: []StackRecord{
			{Stack: "Parent~Child", Region: "us-east-1"}, {Stack: "StackA", Region: "eu-west-1"}, {Stack: "StackA", Region: "us-east-1"}}},
		{name: "custom prefix", bucket: bucket, prefix: "custom/", want: []StackRecord{{Stack: "Other", Region: "us-east-1"}}},
		{name: "missing bucket", bucket: unique(t, "no-such-bucket")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.List(context.Background(), tc.bucket, tc.prefix)
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestStateListDenied(t *testing.T) {
	r := s3Stub(t, func(w http.ResponseWriter, _ *http.Request) { s3Error(w, http.StatusForbidden, "AccessDenied") })
	_, err := r.List(context.Background(), "bucket", "")
	assert.Assert(t, is.ErrorIs(err, ErrAccessDenied))
	assert.Assert(t, is.ErrorContains(err, "list state s3://bucket/cdkd/: access denied: the credentials need s3:ListBucket on s3://bucket"))
}
