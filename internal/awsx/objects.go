package awsx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// ObjectAPI is the part of the S3 client the action's own objects need.
type ObjectAPI interface {
	S3API
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// Objects reads and writes cdkd-action's own objects in the state bucket
// (never cdkd's): conditional writes keyed on the ETag, so two runs that
// write the same object at once do not lose each other's update. It is a
// fingerprint.ObjectStore.
type Objects struct {
	S3     ObjectAPI
	Bucket string
}

var _ fingerprint.ObjectStore = Objects{}

// Get returns the object and its ETag; nil, "", nil when it or the bucket
// does not exist.
func (o Objects) Get(ctx context.Context, key string) ([]byte, string, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(o.Bucket), Key: aws.String(key)}
	out, err := o.S3.GetObject(ctx, in)
	if region := redirectRegion(err); region != "" {
		out, err = o.S3.GetObject(ctx, in, func(opt *s3.Options) { opt.Region = region })
	}
	if err != nil {
		switch {
		case isNotFound(err):
			return nil, "", nil
		case apiErrorCode(err) == "AccessDenied":
			return nil, "", o.denied("s3:GetObject", key, err)
		}
		return nil, "", err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, maxObjectSize+1))
	if err != nil {
		return nil, "", fmt.Errorf("read object body: %w", err)
	}
	if len(b) > maxObjectSize {
		return nil, "", fmt.Errorf("object is larger than %d bytes", maxObjectSize)
	}
	return b, aws.ToString(out.ETag), nil
}

// Put writes the object if its ETag is still ifMatch, or, when ifMatch is
// "", only if it does not exist (If-None-Match: *). A failed condition (412,
// or 409 for a concurrent conditional write) wraps fingerprint.ErrConflict.
func (o Objects) Put(ctx context.Context, key string, body []byte, ifMatch string) error {
	in := &s3.PutObjectInput{
		Bucket:      aws.String(o.Bucket),
		Key:         aws.String(key),
		Body:        bytes.NewReader(body),
		ContentType: aws.String("application/json"),
	}
	if ifMatch != "" {
		in.IfMatch = aws.String(ifMatch)
	} else {
		in.IfNoneMatch = aws.String("*")
	}
	_, err := o.S3.PutObject(ctx, in)
	if region := redirectRegion(err); region != "" {
		in.Body = bytes.NewReader(body)
		_, err = o.S3.PutObject(ctx, in, func(opt *s3.Options) { opt.Region = region })
	}
	if err == nil {
		return nil
	}
	switch {
	case apiErrorCode(err) == "PreconditionFailed" || httpStatus(err) == http.StatusPreconditionFailed,
		apiErrorCode(err) == "ConditionalRequestConflict" || httpStatus(err) == http.StatusConflict:
		return fmt.Errorf("s3://%s/%s: %w", o.Bucket, key, errors.Join(fingerprint.ErrConflict, err))
	case apiErrorCode(err) == "AccessDenied":
		return o.denied("s3:PutObject", key, err)
	}
	return err
}

func (o Objects) denied(action, key string, err error) error {
	return &AccessDeniedError{Action: action, Resource: "s3://" + o.Bucket + "/" + key, Err: err}
}
