package cdkd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// capture is what TestRealCdkdBucketReadBack (cmd/cdkd-action) wrote with
// CDKD_BUCKET_CAPTURE: the real cdkd 0.284.40 deployed StackA twice to kumo;
// objects/ holds the state bucket's objects by key, cdkd/ what cdkd's state
// show, events and events --run printed of them.
const capture = "testdata/bucket-0.284.40"

// capturedObjects serves the captured bucket, with edits: a key mapped to
// nil is missing.
func capturedObjects(t *testing.T, edits map[string][]byte) (Bucket, *[]string) {
	t.Helper()
	objects := map[string][]byte{}
	root := filepath.Join(capture, "objects")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		objects[filepath.ToSlash(rel)] = b
		return err
	})
	assert.NilError(t, err)
	for k, v := range edits {
		objects[k] = v
	}
	var asked []string
	return Bucket{Get: func(_ context.Context, key string) ([]byte, error) {
		asked = append(asked, key)
		return objects[key], nil
	}}, &asked
}

func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(capture, "cdkd", name))
	assert.NilError(t, err)
	return b
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	return string(b)
}

// The direct read answers as cdkd did, from the objects cdkd read.
func TestBucketReadsAsCdkdPrints(t *testing.T) {
	ctx := context.Background()
	b, _ := capturedObjects(t, nil)
	assert.Assert(t, BucketLayoutKnown(strings.TrimSpace(string(readCapture(t, "version.txt")))))

	show, err := DecodeStateShow(readCapture(t, "state-show.json"))
	assert.NilError(t, err)
	st, err := b.State(ctx, "StackA", "us-east-1")
	assert.NilError(t, err)
	assert.Equal(t, compactJSON(t, st), compactJSON(t, show.State))
	assert.Assert(t, len(st.Outputs) > 0, "the outputs a deploy report lists")

	runs, err := DecodeRuns(readCapture(t, "events.json"))
	assert.NilError(t, err)
	got, err := b.Runs(ctx, "StackA", "us-east-1")
	assert.NilError(t, err)
	assert.DeepEqual(t, got, runs)

	for _, r := range runs.Runs {
		want, err := DecodeEvents(readCapture(t, "events-run-"+r.RunID+".json"))
		assert.NilError(t, err)
		got, err := b.RunEvents(ctx, "StackA", "us-east-1", r.RunID)
		assert.NilError(t, err)
		assert.DeepEqual(t, got, want)
	}
}

// What the direct read cannot answer exactly as cdkd would, it does not
// answer: the read-back then asks cdkd.
func TestBucketLeavesToCdkdWhatItCannotRead(t *testing.T) {
	ctx := context.Background()
	const (
		state = "cdkd/StackA/us-east-1/state.json"
		index = "cdkd/StackA/us-east-1/deployments/index.json"
	)
	runs, err := DecodeRuns(readCapture(t, "events.json"))
	assert.NilError(t, err)
	stream := "cdkd/StackA/us-east-1/deployments/" + runs.Runs[0].RunID + ".jsonl"
	tests := []struct {
		name  string
		edits map[string][]byte
		read  func(b Bucket) error
	}{
		{"no state record (cdkd also reads a legacy key)", map[string][]byte{state: nil},
			func(b Bucket) error { _, err := b.State(ctx, "StackA", "us-east-1"); return err }},
		{"a state schema cdkd refuses", map[string][]byte{state: []byte(`{"version": 9, "stackName": "StackA", "resources": {}}`)},
			func(b Bucket) error { _, err := b.State(ctx, "StackA", "us-east-1"); return err }},
		{"no run index (cdkd summarizes every stream)", map[string][]byte{index: nil},
			func(b Bucket) error { _, err := b.Runs(ctx, "StackA", "us-east-1"); return err }},
		{"an index cdkd cannot parse", map[string][]byte{index: []byte(`{"runs": {}}`)},
			func(b Bucket) error { _, err := b.Runs(ctx, "StackA", "us-east-1"); return err }},
		{"no stream", map[string][]byte{stream: nil},
			func(b Bucket) error {
				_, err := b.RunEvents(ctx, "StackA", "us-east-1", runs.Runs[0].RunID)
				return err
			}},
		{"a line cdkd would skip", map[string][]byte{stream: []byte("{\"eventType\":\"RUN_STARTED\"}\n{\"eventType\":\n")},
			func(b Bucket) error {
				_, err := b.RunEvents(ctx, "StackA", "us-east-1", runs.Runs[0].RunID)
				return err
			}},
		{"a run id that is not one key segment", nil,
			func(b Bucket) error {
				_, err := b.RunEvents(ctx, "StackA", "us-east-1", "../../StackB/us-east-1/x")
				return err
			}},
		{"a region that is not one key segment", nil,
			func(b Bucket) error { _, err := b.State(ctx, "StackA", "us-east-1/x"); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := capturedObjects(t, tc.edits)
			assert.ErrorIs(t, tc.read(b), errNotInBucket)
		})
	}
}

func TestBucketKeysFollowTheStatePrefix(t *testing.T) {
	b, asked := capturedObjects(t, nil)
	b.Prefix = "team/cdkd"
	_, err := b.State(context.Background(), "StackA", "us-east-1")
	assert.ErrorIs(t, err, errNotInBucket)
	assert.DeepEqual(t, *asked, []string{"team/cdkd/StackA/us-east-1/state.json"})
}

// ReadBack asks the bucket first and cdkd for what the bucket cannot
// answer, with the arguments the read-back always gave cdkd.
func TestReadBackFallsBackToCdkd(t *testing.T) {
	ctx := context.Background()
	runs, err := DecodeRuns(readCapture(t, "events.json"))
	assert.NilError(t, err)
	id := runs.Runs[0].RunID
	answers := map[string][]byte{
		"state show StackA --json":                               readCapture(t, "state-show.json"),
		"events StackA --json":                                   readCapture(t, "events.json"),
		"events StackA --json --run " + id:                       readCapture(t, "events-run-"+id+".json"),
		"state show StackA --json --state-bucket b":              readCapture(t, "state-show.json"),
		"events StackA --json --state-bucket b":                  readCapture(t, "events.json"),
		"events StackA --json --run " + id + " --state-bucket b": readCapture(t, "events-run-"+id+".json"),
	}
	readAll := func(t *testing.T, rb ReadBack, region string) {
		t.Helper()
		_, err := rb.State(ctx, "StackA", region)
		assert.NilError(t, err)
		_, err = rb.Runs(ctx, "StackA", region)
		assert.NilError(t, err)
		_, err = rb.RunEvents(ctx, "StackA", region, id)
		assert.NilError(t, err)
	}
	newReadBack := func(b *Bucket) (ReadBack, *[]string, *[]string) {
		var calls, fellBack []string
		return ReadBack{
			Bucket: b,
			Common: Common{StateBucket: "b"},
			Run: func(_ context.Context, args []string) (Result, error) {
				calls = append(calls, strings.Join(args, " "))
				out, ok := answers[strings.Join(args, " ")]
				assert.Assert(t, ok, "unexpected cdkd %q", args)
				return Result{Args: args, Stdout: out}, nil
			},
			Fallback: func(what string, err error) { fellBack = append(fellBack, what) },
		}, &calls, &fellBack
	}

	t.Run("the bucket answers: no cdkd process", func(t *testing.T) {
		b, _ := capturedObjects(t, nil)
		rb, calls, _ := newReadBack(&b)
		readAll(t, rb, "us-east-1")
		assert.Assert(t, is.Len(*calls, 0))
	})
	t.Run("the bucket does not have it: cdkd does", func(t *testing.T) {
		b, _ := capturedObjects(t, map[string][]byte{
			"cdkd/StackA/us-east-1/state.json":                   nil,
			"cdkd/StackA/us-east-1/deployments/index.json":       nil,
			"cdkd/StackA/us-east-1/deployments/" + id + ".jsonl": nil,
		})
		rb, calls, fellBack := newReadBack(&b)
		readAll(t, rb, "us-east-1")
		assert.DeepEqual(t, *calls, []string{
			"state show StackA --json --state-bucket b",
			"events StackA --json --state-bucket b",
			"events StackA --json --run " + id + " --state-bucket b",
		})
		assert.Equal(t, len(*fellBack), 3)
	})
	t.Run("the bucket cannot be read: cdkd reads it", func(t *testing.T) {
		b := Bucket{Get: func(context.Context, string) ([]byte, error) { return nil, errors.New("access denied") }}
		rb, calls, _ := newReadBack(&b)
		readAll(t, rb, "us-east-1")
		assert.Equal(t, len(*calls), 3)
	})
	t.Run("no direct read (another cdkd release), or no region known", func(t *testing.T) {
		rb, calls, _ := newReadBack(nil)
		readAll(t, rb, "us-east-1")
		assert.Equal(t, len(*calls), 3)
		b, asked := capturedObjects(t, nil)
		rb, calls, _ = newReadBack(&b)
		readAll(t, rb, "")
		assert.Equal(t, len(*calls), 3)
		assert.Assert(t, is.Len(*asked, 0))
	})
}

func TestBucketLayoutKnownOnlyForVerifiedReleases(t *testing.T) {
	assert.Assert(t, BucketLayoutKnown("0.284.40"))
	for _, v := range []string{"", "0.284.41", "0.285.0", "0.284.40-rc.1", "v0.284.40"} {
		assert.Assert(t, !BucketLayoutKnown(v), v)
	}
	assert.Assert(t, slices.IsSorted(bucketLayoutReleases))
}
