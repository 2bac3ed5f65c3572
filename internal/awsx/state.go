package awsx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// DefaultPrefix is cdkd's default --state-prefix, used when prefix is "".
const DefaultPrefix = "cdkd"

// maxObjectSize bounds how much of a state or lock object is read: the
// bucket is untrusted input and a runner has finite memory.
const maxObjectSize = 256 << 20

// ErrAccessDenied is wrapped by every error caused by a missing IAM
// permission, so callers can say "grant X" instead of "AWS failed".
var ErrAccessDenied = errors.New("access denied")

// AccessDeniedError names the permission the credentials lack.
type AccessDeniedError struct {
	// Action is the IAM action, e.g. "s3:GetObject".
	Action string
	// Resource is what the action was attempted on.
	Resource string
	// Hint is an optional second sentence.
	Hint string
	// Err is the SDK's error.
	Err error
}

func (e *AccessDeniedError) Error() string {
	msg := fmt.Sprintf("access denied: the credentials need %s on %s", e.Action, e.Resource)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// Is makes errors.Is(err, ErrAccessDenied) true.
func (e *AccessDeniedError) Is(target error) bool { return target == ErrAccessDenied }

// Unwrap keeps the SDK's error (request id, code) reachable.
func (e *AccessDeniedError) Unwrap() error { return e.Err }

// S3API is the part of the S3 client the state reader uses.
type S3API interface {
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

// StateReader reads cdkd's state and lock records from the state bucket.
// It never writes: cdkd owns the bucket.
type StateReader struct {
	S3 S3API
}

// State is one stack's state record (cdkd's state.json). Every value is
// untrusted and possibly secret.
type State struct {
	Version   int
	StackName string
	Region    string
	Resources map[string]ResourceState
	// Outputs keep their JSON: an output can be any JSON value.
	Outputs map[string]json.RawMessage
	// LastModified is zero when the record has none or it is unreadable.
	LastModified time.Time
	// Raw is the object exactly as read.
	Raw []byte
}

// ResourceState is one resource in a state record. Property bags are
// decoded with json.Number for numbers, so values survive unchanged.
type ResourceState struct {
	PhysicalID   string `json:"physicalId"`
	ResourceType string `json:"resourceType"`
	// Properties are the template values cdkd deployed (dynamic references
	// unresolved).
	Properties map[string]any `json:"properties"`
	// ObservedProperties are what AWS returned after the deploy.
	ObservedProperties map[string]any `json:"observedProperties"`
	// Attributes are the Fn::GetAtt values.
	Attributes          map[string]any `json:"attributes"`
	Dependencies        []string       `json:"dependencies"`
	DeletionPolicy      string         `json:"deletionPolicy"`
	UpdateReplacePolicy string         `json:"updateReplacePolicy"`
	ProvisionedBy       string         `json:"provisionedBy"`
}

// Lock is a stack's lock record (cdkd's lock.json): who holds the stack.
type Lock struct {
	Owner     string
	Operation string
	// Timestamp and ExpiresAt are zero when absent or unreadable.
	Timestamp time.Time
	ExpiresAt time.Time
	Raw       []byte
}

// StateKey is the object key of a stack's state record.
func StateKey(prefix, stack, region string) string {
	return recordKey(prefix, stack, region, "state.json")
}

// LockKey is the object key of a stack's lock record.
func LockKey(prefix, stack, region string) string {
	return recordKey(prefix, stack, region, "lock.json")
}

func recordKey(prefix, stack, region, name string) string {
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return prefix + "/" + stack + "/" + region + "/" + name
}

// Read returns the stack's state record at {prefix}/{stack}/{region}/state.json.
// A missing object or bucket returns (nil, nil): the stack was never
// deployed. Access denied returns an error wrapping ErrAccessDenied that
// names the missing permission.
func (r StateReader) Read(ctx context.Context, bucket, prefix, stack, region string) (*State, error) {
	key := StateKey(prefix, stack, region)
	raw, err := r.get(ctx, bucket, key)
	if err != nil {
		return nil, fmt.Errorf("read state s3://%s/%s: %w", bucket, key, err)
	}
	if raw == nil {
		return nil, nil
	}
	st, err := DecodeState(raw)
	if err != nil {
		return nil, fmt.Errorf("read state s3://%s/%s: %w", bucket, key, err)
	}
	return st, nil
}

// ReadLock returns the stack's lock record, or nil when the stack is not
// locked.
func (r StateReader) ReadLock(ctx context.Context, bucket, prefix, stack, region string) (*Lock, error) {
	key := LockKey(prefix, stack, region)
	raw, err := r.get(ctx, bucket, key)
	if err != nil {
		return nil, fmt.Errorf("read lock s3://%s/%s: %w", bucket, key, err)
	}
	if raw == nil {
		return nil, nil
	}
	l, err := DecodeLock(raw)
	if err != nil {
		return nil, fmt.Errorf("read lock s3://%s/%s: %w", bucket, key, err)
	}
	return l, nil
}

// Object reads any object of the state bucket as it is, for a reader that
// knows cdkd's layout (cdkd.Bucket); nil and no error when it or the
// bucket does not exist. Access denied names the permission, as Read does.
func (r StateReader) Object(ctx context.Context, bucket, key string) ([]byte, error) {
	raw, err := r.get(ctx, bucket, key)
	if err != nil {
		return nil, fmt.Errorf("read s3://%s/%s: %w", bucket, key, err)
	}
	return raw, nil
}

// get reads an object; (nil, nil) when it or its bucket does not exist.
// A bucket in another region than the client's is retried once in the
// region S3 names, as cdkd does for a cross-region state bucket.
func (r StateReader) get(ctx context.Context, bucket, key string) ([]byte, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	out, err := r.S3.GetObject(ctx, in)
	if region := redirectRegion(err); region != "" {
		out, err = r.S3.GetObject(ctx, in, func(o *s3.Options) { o.Region = region })
	}
	if err != nil {
		switch {
		case isNotFound(err):
			return nil, nil
		case apiErrorCode(err) == "AccessDenied":
			return nil, &AccessDeniedError{
				Action:   "s3:GetObject",
				Resource: "s3://" + bucket + "/" + key,
				Hint:     "without s3:ListBucket on the bucket, a missing object is reported as access denied too",
				Err:      err,
			}
		}
		return nil, err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, maxObjectSize+1))
	if err != nil {
		return nil, fmt.Errorf("read object body: %w", err)
	}
	if len(b) > maxObjectSize {
		return nil, fmt.Errorf("object is larger than %d bytes", maxObjectSize)
	}
	return b, nil
}

func apiErrorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func isNotFound(err error) bool {
	switch apiErrorCode(err) {
	case "NoSuchKey", "NoSuchBucket", "NotFound":
		return true
	}
	return httpStatus(err) == http.StatusNotFound
}

// redirectRegion returns the bucket's region when S3 refused the request
// because it was sent to the wrong region.
func redirectRegion(err error) string {
	var re *awshttp.ResponseError
	if err == nil || !errors.As(err, &re) || re.Response == nil {
		return ""
	}
	switch re.HTTPStatusCode() {
	case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusBadRequest:
		return re.Response.Header.Get("X-Amz-Bucket-Region")
	}
	return ""
}

// stateJSON is the wire shape of state.json; unknown fields are ignored.
type stateJSON struct {
	Version      *json.Number               `json:"version"`
	StackName    string                     `json:"stackName"`
	Region       string                     `json:"region"`
	Resources    map[string]ResourceState   `json:"resources"`
	Outputs      map[string]json.RawMessage `json:"outputs"`
	LastModified json.RawMessage            `json:"lastModified"`
}

// DecodeState parses a state.json object. It is strict on the shape it
// relies on (an object whose resources are objects) and tolerant of fields
// it does not know.
func DecodeState(raw []byte) (*State, error) {
	var w stateJSON
	if err := decodeObject(raw, &w); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	st := &State{
		StackName:    w.StackName,
		Region:       w.Region,
		Resources:    w.Resources,
		Outputs:      w.Outputs,
		LastModified: decodeMillis(w.LastModified),
		Raw:          raw,
	}
	if w.Version != nil {
		v, err := w.Version.Int64()
		if err != nil {
			return nil, fmt.Errorf("decode state: version %q is not an integer", w.Version.String())
		}
		st.Version = int(v)
	}
	if st.Resources == nil {
		st.Resources = map[string]ResourceState{}
	}
	return st, nil
}

type lockJSON struct {
	Owner     string          `json:"owner"`
	Operation string          `json:"operation"`
	Timestamp json.RawMessage `json:"timestamp"`
	ExpiresAt json.RawMessage `json:"expiresAt"`
}

// DecodeLock parses a lock.json object.
func DecodeLock(raw []byte) (*Lock, error) {
	var w lockJSON
	if err := decodeObject(raw, &w); err != nil {
		return nil, fmt.Errorf("decode lock: %w", err)
	}
	return &Lock{
		Owner:     w.Owner,
		Operation: w.Operation,
		Timestamp: decodeMillis(w.Timestamp),
		ExpiresAt: decodeMillis(w.ExpiresAt),
		Raw:       raw,
	}, nil
}

// decodeObject decodes one JSON object, numbers as json.Number. Decoder
// errors are reduced to their offset so no byte of a value is echoed.
func decodeObject(raw []byte, v any) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("invalid JSON at offset %d", se.Offset)
		case errors.As(err, &te):
			// te.Value is "number 12" for numbers: keep only the kind.
			kind, _, _ := strings.Cut(te.Value, " ")
			return fmt.Errorf("field %s: unexpected JSON %s", te.Field, kind)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("truncated JSON")
		}
		return errors.New("invalid JSON")
	}
	return nil
}

// decodeMillis reads a Unix-milliseconds number (cdkd's encoding) or an
// RFC 3339 string; anything else is the zero time.
func decodeMillis(raw json.RawMessage) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if ms, err := n.Int64(); err == nil {
			return time.UnixMilli(ms).UTC()
		}
		if f, err := n.Float64(); err == nil {
			return time.UnixMilli(int64(f)).UTC()
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
