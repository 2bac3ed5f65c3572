package cdkd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// The state bucket, read directly. `cdkd state show`, `cdkd events` and
// `cdkd events --run` print objects cdkd keeps in its state bucket; reading
// those objects costs no cdkd process (about a second of Node start-up
// each). Their layout is cdkd's own, not a documented interface, so it is
// read only for the cdkd releases it was verified against, and whatever it
// cannot find or read exactly as cdkd would is left to cdkd (ReadBack).

// bucketLayoutReleases are the cdkd releases whose state-bucket layout the
// direct read was verified against with the real cdkd (the bundled
// 0.284.40 deploying to kumo: TestRealCdkdBucketReadBack compares every
// direct read with cdkd's own state show, events and events --run):
//
//   - {prefix}/{stack}/{region}/state.json: the state record, state
//     show's "state" (schemas 1 to 8 read; cdkd refuses others);
//   - {prefix}/{stack}/{region}/deployments/index.json: {"runs": [...]},
//     the newest first, which `cdkd events` prints as they are;
//   - {prefix}/{stack}/{region}/deployments/{runId}.jsonl: one event a
//     line, which `cdkd events --run` prints in order.
//
// A release is added here only after that test passed against it.
var bucketLayoutReleases = []string{"0.284.40"}

// BucketLayoutKnown reports whether the direct read may be used for what
// cdkd release version wrote.
func BucketLayoutKnown(version string) bool { return slices.Contains(bucketLayoutReleases, version) }

// readableStateSchemas are the state.json schema versions cdkd 0.284.40
// reads (STATE_SCHEMA_VERSIONS_READABLE); it refuses the others, and so
// does the direct read, leaving the refusal to cdkd.
var readableStateSchemas = []int64{1, 2, 3, 4, 5, 6, 7, 8}

// errNotInBucket says the direct read cannot answer as cdkd would: the
// object is not where the layout puts it, or it is not what cdkd writes.
// ReadBack asks cdkd then.
var errNotInBucket = errors.New("not in the state bucket as cdkd 0.284 keeps it")

// Bucket reads a state bucket laid out as bucketLayoutReleases say.
type Bucket struct {
	// Get returns the object at key; nil and no error when there is none.
	Get func(ctx context.Context, key string) ([]byte, error)
	// Prefix is the state-prefix ("" is cdkd's default, "cdkd").
	Prefix string
}

// key is an object's key as cdkd builds it: the prefix as given.
func (b Bucket) key(stack, region, name string) string {
	prefix := b.Prefix
	if prefix == "" {
		prefix = "cdkd"
	}
	return prefix + "/" + stack + "/" + region + "/" + name
}

// segments checks the parts of a key the direct read builds from values it
// was given (a stack name from the diff, a run id from the index): one
// path segment each, as cdkd's own names are. Anything else is left to cdkd.
func segments(parts ...string) error {
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, "/\\\x00") || strings.HasPrefix(p, "-") {
			return fmt.Errorf("%q is not one key segment: %w", p, errNotInBucket)
		}
	}
	return nil
}

// get reads one object; a missing one is errNotInBucket.
func (b Bucket) get(ctx context.Context, key string) ([]byte, error) {
	raw, err := b.Get(ctx, key)
	switch {
	case err != nil:
		return nil, err
	case raw == nil:
		return nil, fmt.Errorf("%s: %w", key, errNotInBucket)
	}
	return raw, nil
}

// State is the "state" `cdkd state show <stack> --stack-region <region>
// --json` prints: the stack's state record as cdkd wrote it. The lock that
// command also prints is not read: nothing read back needs it.
func (b Bucket) State(ctx context.Context, stack, region string) (StackState, error) {
	if err := segments(stack, region); err != nil {
		return StackState{}, err
	}
	key := b.key(stack, region, "state.json")
	raw, err := b.get(ctx, key)
	if err != nil {
		return StackState{}, err
	}
	var schema struct {
		Version *int64 `json:"version"`
	}
	if json.Unmarshal(raw, &schema) != nil || (schema.Version != nil && !slices.Contains(readableStateSchemas, *schema.Version)) {
		return StackState{}, fmt.Errorf("%s: %w", key, errNotInBucket)
	}
	show, err := DecodeStateShow(slices.Concat([]byte(`{"state":`), raw, []byte(`}`)))
	if err != nil {
		return StackState{}, fmt.Errorf("%s: %w", key, err)
	}
	return show.State, nil
}

// Runs is what `cdkd events <stack> --stack-region <region> --json` prints
// when the stack's run index is there: its runs, newest first. Without an
// index cdkd summarizes every run's stream instead, which is left to it.
func (b Bucket) Runs(ctx context.Context, stack, region string) (RunList, error) {
	if err := segments(stack, region); err != nil {
		return RunList{}, err
	}
	raw, err := b.get(ctx, b.key(stack, region, "deployments/index.json"))
	if err != nil {
		return RunList{}, err
	}
	var index struct {
		Runs jsontext.Value `json:"runs"`
	}
	if unmarshal(raw, &index) != nil || index.Runs.Kind() != '[' {
		return RunList{}, fmt.Errorf("%s: %w", b.key(stack, region, "deployments/index.json"), errNotInBucket)
	}
	out, err := json.Marshal(struct {
		StackName string         `json:"stackName"`
		Region    string         `json:"region"`
		Runs      jsontext.Value `json:"runs"`
	}{stack, region, index.Runs})
	if err != nil {
		return RunList{}, err
	}
	return DecodeRuns(out)
}

// RunEvents is what `cdkd events <stack> --stack-region <region> --run <id>
// --json` prints: the run's events, one a line in its stream, in order.
// cdkd skips a line it cannot parse; such a stream is left to it.
func (b Bucket) RunEvents(ctx context.Context, stack, region, runID string) ([]Event, error) {
	if err := segments(stack, region, runID); err != nil {
		return nil, err
	}
	key := b.key(stack, region, "deployments/"+runID+".jsonl")
	raw, err := b.get(ctx, key)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('[')
	n := 0
	for line := range bytes.SplitSeq(raw, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var v jsontext.Value
		if unmarshal(line, &v) != nil {
			return nil, fmt.Errorf("%s: line %d: %w", key, n+1, errNotInBucket)
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(line)
		n++
	}
	out.WriteByte(']')
	return DecodeEvents(out.Bytes())
}
