package awsx

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// maxListPages bounds a listing of the state bucket (1000 keys a page).
const maxListPages = 100

// StackRecord names one stack's state record in the bucket.
type StackRecord struct {
	Stack  string
	Region string
}

// List returns every stack that has a state record under prefix
// ({prefix}/{stack}/{region}/state.json), sorted: a command that names no
// stack (drift with all) learns from it which records may hold secrets
// before cdkd prints anything. A missing bucket lists nothing. Access
// denied names s3:ListBucket. The listing is bounded; past the bound it is
// an error, so that a caller never takes a partial list for all.
func (r StateReader) List(ctx context.Context, bucket, prefix string) ([]StackRecord, error) {
	root := strings.Trim(prefix, "/")
	if root == "" {
		root = DefaultPrefix
	}
	root += "/"
	in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(root)}
	var opts []func(*s3.Options)
	var out []StackRecord
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("list state s3://%s/%s: more than %d pages of objects", bucket, root, maxListPages)
		}
		res, err := r.S3.ListObjectsV2(ctx, in, opts...)
		if region := redirectRegion(err); region != "" && len(opts) == 0 {
			opts = append(opts, func(o *s3.Options) { o.Region = region })
			res, err = r.S3.ListObjectsV2(ctx, in, opts...)
		}
		switch {
		case err != nil && isNotFound(err):
			return nil, nil
		case err != nil && apiErrorCode(err) == "AccessDenied":
			return nil, fmt.Errorf("list state s3://%s/%s: %w", bucket, root, &AccessDeniedError{
				Action: "s3:ListBucket", Resource: "s3://" + bucket, Err: err})
		case err != nil:
			return nil, fmt.Errorf("list state s3://%s/%s: %w", bucket, root, err)
		}
		for _, obj := range res.Contents {
			rest, ok := strings.CutPrefix(aws.ToString(obj.Key), root)
			parts := strings.Split(rest, "/")
			if !ok || len(parts) != 3 || parts[2] != "state.json" || parts[0] == "" || parts[1] == "" || strings.HasPrefix(parts[0], "_") {
				continue
			}
			out = append(out, StackRecord{Stack: parts[0], Region: parts[1]})
		}
		if !aws.ToBool(res.IsTruncated) || res.NextContinuationToken == nil {
			break
		}
		in.ContinuationToken = res.NextContinuationToken
	}
	slices.SortFunc(out, func(a, b StackRecord) int {
		return strings.Compare(a.Stack+"\x00"+a.Region, b.Stack+"\x00"+b.Region)
	})
	return slices.Compact(out), nil
}
