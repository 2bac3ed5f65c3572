package diff

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// savedDiff is real cdkd diff --json output (testdata/fixtures/README.md).
const savedDiff = "../../../testdata/fixtures/diff-v2.json"

// testRun is a diff of cfg, its parts built as App.Run builds them: a
// local run, the report on stdout, unless the test makes it otherwise.
type testRun struct {
	*run
	parts  *parts.Parts
	stdout bytes.Buffer
	log    strings.Builder
}

func newTestRun(t *testing.T, cfg config.Config, gh ghctx.Context) *testRun {
	t.Helper()
	cfg.Command = config.CommandDiff
	cfg.Publish = true // the input's default: shards set it false
	cfg.Comment = cmpOr(cfg.Comment, config.CommentUpdate)
	cfg.WorkingDirectory = cmpOr(cfg.WorkingDirectory, t.TempDir())
	cfg.StatePrefix = cmpOr(cfg.StatePrefix, "cdkd")
	cfg.FingerprintPrefix = cmpOr(cfg.FingerprintPrefix, "cdkd-action")
	x := &testRun{}
	getenv := func(string) string { return "" }
	// Options are values: the parts read the same inputs through pointers.
	c, g := cfg, gh
	x.parts = parts.New(parts.Setup{Getenv: getenv, LogOut: &x.log, Stdout: &x.stdout}, &c, &g)
	x.parts.SetLocal(true)
	x.run = &run{Options: OptionsOf(x.parts, cfg, gh)}
	return x
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// update is one changed resource of stack StackA.
func update(id, value string) model.ResourceChange {
	return model.ResourceChange{LogicalID: id, ChangeType: "UPDATE", ResourceType: "AWS::SSM::Parameter",
		PropertyChanges: []model.PropertyChange{{Path: "Value", Old: model.JSONValue(`"old"`), New: model.JSONValue(`"` + value + `"`)}}}
}

func diffOf(changes ...model.ResourceChange) model.Diff {
	return model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", Changes: changes}}}
}

// How a diff ends: changes fail it only when asked; a report missing a
// shard fails, without a digest a deploy could match.
func TestReportEnds(t *testing.T) {
	changed := diffOf(update("Param", "new"))
	for _, tc := range []struct {
		name          string
		d             model.Diff
		failOnChanges bool
		missing       string
		reason        reason.Reason
		msg           string
		digest        bool
	}{
		{name: "no changes", d: diffOf(), failOnChanges: true, reason: reason.None, digest: true},
		{name: "changes", d: changed, reason: reason.None, digest: true},
		{name: "changes, fail-on-changes", d: changed, failOnChanges: true, reason: reason.Changes, digest: true,
			msg: "cdkd diff found changes (1 to update) and fail-on-changes is true"},
		{name: "a shard missing", d: changed, missing: "shard 2 of 3 did not report", reason: reason.ShardFailed, msg: "shard 2 of 3 did not report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newTestRun(t, config.Config{FailOnChanges: tc.failOnChanges}, ghctx.Context{})
			rep := x.newReport("")
			rep.Missing = tc.missing
			o := x.report(context.Background(), rep, tc.d)
			assert.Equal(t, o.Reason, tc.reason)
			assert.Equal(t, o.Message, tc.msg)
			assert.Equal(t, x.parts.Channels.Output("digest") != "", tc.digest)
			if tc.digest {
				assert.Equal(t, x.parts.Channels.Output("digest"), tc.d.Digest())
			}
			assert.Equal(t, x.parts.Channels.Output(reporters.OutputHasChanges), fmt.Sprint(tc.d.AnyChange()))
			assert.Assert(t, x.stdout.Len() > 0, "the report was shown")
		})
	}
}

// A change set from a file that is not one is bad input: nothing is
// published, the summary and the log say why (App.Run's finish). Without a
// cloud assembly, the report says NoEcho positions are unknown.
func TestDiffOfASavedFile(t *testing.T) {
	t.Run("not a diff", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.json")
		assert.NilError(t, os.WriteFile(bad, []byte(`[{"stack": 3}]`), 0o644))
		x := newTestRun(t, config.Config{FromJSON: bad}, ghctx.Context{})
		o := Run(context.Background(), x.Options)
		assert.Equal(t, o.Reason, reason.BadInput)
		assert.Assert(t, is.Contains(o.Message, "input from-json: expected cdkd diff --json output"))
		assert.Equal(t, x.stdout.String(), "", "nothing published")
		assert.Assert(t, !x.parts.Channels.SummaryWritten())
	})
	t.Run("no assembly", func(t *testing.T) {
		x := newTestRun(t, config.Config{FromJSON: savedDiff}, ghctx.Context{})
		o := Run(context.Background(), x.Options)
		assert.Equal(t, o.Reason, reason.None, o.Message)
		assert.Assert(t, is.Contains(x.stdout.String(), "NoEcho positions are unknown"))
		assert.Assert(t, is.Contains(x.stdout.String(), "TopicBFC7AF6E"))
	})
}

// store is a state bucket in memory; putErr and getErr make it fail.
type store struct {
	objects        map[string][]byte
	putErr, getErr error
}

func (s *store) Get(_ context.Context, key string) ([]byte, string, error) {
	if s.getErr != nil {
		return nil, "", s.getErr
	}
	b, ok := s.objects[key]
	if !ok {
		return nil, "", nil
	}
	return b, "etag", nil
}

func (s *store) Put(_ context.Context, key string, body []byte, _ string) error {
	if s.putErr != nil {
		return s.putErr
	}
	s.objects[key] = body
	return nil
}

// large is a change set whose whole form is longer than the comment's
// hidden line may be, even compressed: each value is a hash of its own.
func large(value string) model.Diff {
	var changes []model.ResourceChange
	for i := range 1000 {
		changes = append(changes, update(fmt.Sprintf("Param%04d", i), fmt.Sprintf("%s-%x", value, sha256.Sum256([]byte{byte(i), byte(i >> 8)}))))
	}
	return diffOf(changes...)
}

// A change set too large for the comment is kept in the state bucket for
// the gate, or the report says why it is not and what a gated deploy of it
// will then do.
func TestStoreChangeSet(t *testing.T) {
	const secret = "the-hidden-value-42"
	denied := fmt.Errorf("put: %w", awsx.ErrAccessDenied)
	for _, tc := range []struct {
		name      string
		d         model.Diff
		local     bool
		bucket    string
		store     *store
		stored    bool
		note, log string // "" for none
	}{
		{name: "fits the comment", d: diffOf(update("Param", "new")), bucket: "bucket"},
		{name: "no review comment", d: large("value"), local: true, bucket: "bucket"},
		{name: "holds a hidden value", d: large(secret), bucket: "bucket", note: "was not stored in the state bucket: it holds a value the redactor hides"},
		{name: "no bucket", d: large("value"), note: "no state bucket is known to keep it in (set state-bucket)"},
		{name: "not allowed to write", d: large("value"), bucket: "bucket", store: &store{putErr: denied},
			note: "could not be stored in the state bucket (store the reviewed change set at cdkd-action/reviews/", log: "the diff job's role needs s3:PutObject and s3:GetObject on bucket/cdkd-action/reviews/*"},
		{name: "stored", d: large("value"), bucket: "bucket", stored: true, log: "stored it in s3://bucket/"},
		{name: "stored, not read back", d: large("value"), bucket: "bucket", store: &store{getErr: errors.New("timeout")}, stored: true,
			log: "could not read it back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newTestRun(t, config.Config{StateBucket: tc.bucket}, ghctx.Context{PR: &ghctx.PullRequest{Number: 1}})
			x.Secrets.Set.Add(secret, "test")
			x.parts.SetLocal(tc.local)
			x.Channels.API = struct{ github.API }{} // the comment is not written here
			st := cmpOr(tc.store, &store{})
			if st.objects == nil {
				st.objects = map[string][]byte{}
			}
			x.AWS.BuildObjects = func(context.Context, awsx.Settings, string) (fingerprint.ObjectStore, error) { return st, nil }
			got, note := x.storeChangeSet(context.Background(), tc.d)
			assert.Equal(t, got != nil, tc.stored)
			if tc.stored {
				assert.Equal(t, got.Digest(), tc.d.Digest(), "the change set as the gate decodes it")
			}
			if tc.note == "" {
				assert.Equal(t, note, "")
			} else {
				assert.Assert(t, is.Contains(note, "The change set is too large for the comment"))
				assert.Assert(t, is.Contains(note, tc.note))
			}
			assert.Assert(t, is.Contains(x.log.String(), tc.log))
			assert.Assert(t, !strings.Contains(x.log.String()+note, secret))
		})
	}
}

// The merge queue's check on a pull request's head passes with its diff
// and fails with it.
func TestQueueCheckOnHead(t *testing.T) {
	x := newTestRun(t, config.Config{Label: "prod"}, ghctx.Context{HeadSHA: "abc"})
	set := secrets.NewSet()
	for _, tc := range []struct {
		name       string
		rep        reporters.DiffReport
		written    publish.Written
		conclusion string
		summary    string
	}{
		{name: "the diff failed", rep: reporters.DiffReport{Error: "cdkd diff failed"}, conclusion: "failure", summary: "The diff of this pull request failed"},
		{name: "a shard missing", rep: reporters.DiffReport{Missing: "shard 2"}, conclusion: "failure", summary: "The diff of this pull request failed"},
		{name: "the diff", conclusion: "success", summary: "The pull request's own diff is its review: this pull request's diff comment."},
		{name: "the diff, its comment linked", written: publish.Written{Comment: github.Comment{HTMLURL: "https://github.com/o/r/pull/1#c"}},
			conclusion: "success", summary: "[this pull request's diff comment](https://github.com/o/r/pull/1#c)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := x.queueCheckOnHead(tc.rep).(*publish.RequiredCheck)
			assert.Equal(t, check.Name, "cdkd merge queue (prod)")
			assert.Equal(t, check.HeadSHA, "abc")
			conclusion, _, summary := check.Conclude(&tc.written, set)
			assert.Equal(t, conclusion, tc.conclusion)
			assert.Assert(t, is.Contains(summary.String(), tc.summary))
		})
	}
}

// stateOf answers a stack's state record.
type stateOf struct {
	st  *awsx.State
	err error
}

func (s stateOf) Read(context.Context, string, string, string, string) (*awsx.State, error) {
	return s.st, s.err
}

// What references a deleted resource is read from its stack's state
// record; without the record, nothing is shown, and the log says why
// when the read failed.
func TestDeletedReferrers(t *testing.T) {
	record := &awsx.State{Resources: map[string]awsx.ResourceState{
		"Reader": {ResourceType: "AWS::Lambda::Function", Dependencies: []string{"Queue", "Bucket", "Queue", "Other"}},
		"Bucket": {ResourceType: "AWS::S3::Bucket", Dependencies: []string{"Bucket"}},
		"Alone":  {ResourceType: "AWS::SNS::Topic"},
	}}
	for _, tc := range []struct {
		name    string
		bucket  string
		clients error
		state   stateOf
		want    []assembly.Referrer
		log     string
	}{
		{name: "no bucket", state: stateOf{st: record}},
		{name: "no AWS", bucket: "bucket", clients: errors.New("no credentials")},
		{name: "no record", bucket: "bucket"},
		{name: "unreadable", bucket: "bucket", state: stateOf{err: errors.New("denied")},
			log: "the state record of StackA could not be read, so what referenced its deleted resources is not shown: denied"},
		{name: "read", bucket: "bucket", state: stateOf{st: record},
			want: []assembly.Referrer{{ID: "Reader", Type: "AWS::Lambda::Function", On: []string{"Bucket", "Queue"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newTestRun(t, config.Config{StateBucket: tc.bucket}, ghctx.Context{})
			x.parts.SetLocal(false)
			x.AWS.BuildClients = func(context.Context, awsx.Settings) (discover.Deps, error) {
				return discover.Deps{State: tc.state}, tc.clients
			}
			var unread []unreadRecord
			got := x.deletedReferrers(context.Background(), &unread)("StackA", "", []string{"Bucket", "Queue"})
			assert.DeepEqual(t, got, tc.want)
			assert.Assert(t, is.Contains(x.log.String(), tc.log))
			want := map[string][]unreadRecord{"unreadable": {{stack: "StackA"}}, "no record": {{stack: "StackA", missing: true}}}[tc.name]
			assert.DeepEqual(t, unread, want, cmp.AllowUnexported(unreadRecord{}))
		})
	}
}

// A failed diff records no change set in its comment; a diff records the
// one it shows, in this release's layout.
func TestCommentRecordsOnlyAWholeDiff(t *testing.T) {
	r := &run{Options: Options{Secrets: &session.Session{Set: secrets.NewSet()}}}
	d := diffOf(update("Param", "new"))
	failed := r.comment(headerOf(d), reporters.DiffReport{Error: "cdkd diff failed"}, nil, false, reporters.CommentBudget)
	assert.Equal(t, failed.ChangeSet, "")
	assert.Assert(t, is.Contains(failed.Report, "cdkd diff failed"))
	missing := r.comment(headerOf(d), reporters.DiffReport{Diff: d, Missing: "shard 2"}, &d, false, reporters.CommentBudget)
	assert.Equal(t, missing.ChangeSet, "")
	ok := r.comment(headerOf(d), reporters.DiffReport{Diff: d, Digest: d.Digest(), RunURL: "https://run", Notes: []string{"a note"}}, &d, false, reporters.CommentBudget)
	assert.Assert(t, ok.ChangeSet != "")
	assert.Equal(t, ok.Header.Run, "https://run")
	assert.DeepEqual(t, ok.Header.Notes, reporters.ShortNotes([]string{"a note"}))
	assert.Assert(t, ok.Header.Render > 0)
}

func headerOf(d model.Diff) marker.Header {
	return marker.Header{V: 1, Kind: prcomment.KindDiff, SHA: "abc", Digest: d.Digest()}
}

// A cdkd that fails is reported on every channel, its stderr's tail
// redacted, and fails the run as cdkd's failure.
func TestDiffWhenCdkdFails(t *testing.T) {
	const secret = "stderr-secret-value-77"
	stub := cdkdtest.New(t, cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, Exit: 1,
		StderrLines: []cdkdtest.Line{{Text: "resolving " + secret}, {Text: "ValidationError: the stack is broken"}}})
	for _, kv := range stub.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	x := newTestRun(t, config.Config{All: true, CdkdPath: stub.Path}, ghctx.Context{})
	x.Secrets.Set.Add(secret, "mask-values line 1")
	o := Run(context.Background(), x.Options)
	x.Cdkd.FlushHeld()
	x.parts.Out.Close()
	assert.Equal(t, o.Reason, reason.CdkdFailed, o.Message)
	report := x.stdout.String()
	assert.Assert(t, is.Contains(report, "the stack is broken"))
	assert.Assert(t, !strings.Contains(report+x.log.String()+o.Message, secret))
	assert.Equal(t, x.parts.Channels.Output("digest"), "", "a failed diff has no digest")
	stub.AssertAllUsed(t)
}
