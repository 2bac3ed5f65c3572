package discover

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// fakeState serves state records by key; a key mapped to an error fails.
type fakeState struct {
	mu      sync.Mutex
	records map[string]*awsx.State
	errs    map[string]error
	reads   []string
}

func (f *fakeState) Read(_ context.Context, bucket, prefix, stack, region string) (*awsx.State, error) {
	key := bucket + "/" + awsx.StateKey(prefix, stack, region)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, key)
	if err := f.errs[key]; err != nil {
		return nil, err
	}
	return f.records[key], nil
}

type resolution struct {
	value  string
	secret bool
	err    error
}

// fakeResolver answers by spelling; an unknown reference fails as the real
// resolver does, naming the reference.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string]resolution
	calls   []string
}

func (f *fakeResolver) Resolve(_ context.Context, ref dynref.Ref) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, ref.Raw)
	a, ok := f.answers[ref.Raw]
	if !ok {
		return "", false, fmt.Errorf("resolve %s: get secret value: ResourceNotFoundException: no such secret", ref.Raw)
	}
	if a.err != nil {
		return "", false, fmt.Errorf("resolve %s: %w", ref.Raw, a.err)
	}
	return a.value, a.secret, nil
}

const genRef = "{{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:000000000000:secret:gen-AbCdEf:SecretString:password::}}"

func newResolver() *fakeResolver {
	return &fakeResolver{answers: map[string]resolution{
		"{{resolve:secretsmanager:db-creds}}":                         {value: `{"username":"db-user-name","password":"db-pass-word","port":5432,"x":"ab"}`, secret: true},
		"{{resolve:secretsmanager:api:SecretString:key:AWSPREVIOUS}}": {value: "api-key-previous", secret: true},
		"{{resolve:ssm-secure:/secure/p}}":                            {value: "secure-string-value", secret: true},
		"{{resolve:ssm:/plain/p}}":                                    {value: "plain-visible-value", secret: false},
		"{{resolve:ssm:/secure/via-plain}}":                           {value: "via-plain-secret", secret: true},
		"{{resolve:secretsmanager:gone-secret}}":                      {value: "gone-secret-value", secret: true},
		genRef:                                                        {value: "generated-db-password", secret: true},
	}}
}

func loadAssembly(t *testing.T) *assembly.Assembly {
	t.Helper()
	asm, err := assembly.Load("testdata/asm")
	assert.NilError(t, err)
	return asm
}

func readState(t *testing.T, name string) *awsx.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	assert.NilError(t, err)
	st, err := awsx.DecodeState(b)
	assert.NilError(t, err)
	return st
}

func newState(t *testing.T) *fakeState {
	t.Helper()
	return &fakeState{records: map[string]*awsx.State{
		"bucket/cdkd/App/us-east-1/state.json":            readState(t, "state-App.json"),
		"bucket/cdkd/App~ChildStack/us-east-1/state.json": readState(t, "state-Child.json"),
	}, errs: map[string]error{}}
}

func baseInput(asm *assembly.Assembly) Input {
	return Input{
		Assembly:       asm,
		DefaultRegion:  "us-east-1",
		StateBucket:    "bucket",
		StatePrefix:    "cdkd",
		ResolveSecrets: true,
		Getenv:         func(string) string { return "" },
	}
}

// sources maps each registered value's sources, for assertions that do
// not depend on the order of discovery.
func registered(set *secrets.Set) map[string]bool {
	out := map[string]bool{}
	for _, m := range set.MaskCommands() {
		out[m] = true
	}
	return out
}

func TestDiscoverFindsEverySource(t *testing.T) {
	asm := loadAssembly(t)
	set := secrets.NewSet()
	in := baseInput(asm)
	in.Stacks = []string{"App"}
	in.MaskValues = []string{"mask-value-one", "mask-value-two"}
	in.MaskEnv = []string{"DEPLOY_TOKEN"}
	in.Getenv = func(k string) string {
		if k == "DEPLOY_TOKEN" {
			return "env-token-value"
		}
		return ""
	}
	warnings := Discover(context.Background(), set, in, Deps{State: newState(t), Resolver: newResolver()})

	got := registered(set)
	tests := []struct {
		source string
		value  string
	}{
		{"mask-values", "mask-value-one"},
		{"mask-values", "mask-value-two"},
		{"mask-env", "env-token-value"},
		{"NoEcho default", "noecho-default-pw"},
		{"NoEcho default, short", "ab1"},
		{"NoEcho default used as a name", "queue-name-v1"},
		{"Secrets Manager, whole JSON", `{"username":"db-user-name","password":"db-pass-word","port":5432,"x":"ab"}`},
		{"JSON field username", "db-user-name"},
		{"JSON field password", "db-pass-word"},
		{"json-key and version-stage", "api-key-previous"},
		{"ssm-secure", "secure-string-value"},
		{"plain ssm that is a SecureString", "via-plain-secret"},
		{"templated reference spelled from state", "generated-db-password"},
		{"reference only in state (resource being deleted)", "gone-secret-value"},
		{"state properties at a NoEcho position", "old-pw-in-properties"},
		{"state observedProperties at a NoEcho position", "old-pw-observed"},
		{"state observedProperties at a SecureString position", "via-plain-observed-secret"},
		{"state at an embedding position", "postgres://app:old-pw-in-properties@db/prod"},
		{"state output at a NoEcho position", "old-pw-output"},
		{"nested stack state at a parent's NoEcho position", "nested-old-value"},
		{"physical id of a resource named after a NoEcho value", "queue-name-v0"},
	}
	for _, tc := range tests {
		t.Run(tc.source, func(t *testing.T) {
			assert.Assert(t, got[tc.value], "not registered: %s", tc.source)
		})
	}
	// A structured secret's leaves under 4 characters and its structural
	// fields are not registered on their own (secrets.Set.Add).
	for _, notSecret := range []string{"plain-visible-value", "prod", "***", "plain-topic", "ab", "5432"} {
		assert.Assert(t, !got[notSecret], "%q is not a secret of this run", notSecret)
	}
	// Only the short values escape value redaction, and each is warned about.
	for _, w := range warnings {
		assert.Assert(t, !set.Contains(w), "warning holds a secret: %s", w)
		for _, short := range []string{"ab1", `"ab"`} {
			assert.Assert(t, !strings.Contains(w, short), "warning holds a short secret: %s", w)
		}
	}
	assertWarning(t, warnings, "NoEcho parameter App/Tiny", "shorter than 4 characters")
	assertWarning(t, warnings, "{{resolve:secretsmanager:missing-secret}}", "could not resolve")

	// The plain ssm reference confirmed to be a SecureString now hides its
	// position; the plain String one does not.
	app, ok := asm.Stack("App")
	assert.Assert(t, ok)
	assert.Equal(t, app.SecretAt("ViaPlainParam", "Value"), model.SecretReference)
	assert.Equal(t, app.SecretAt("PlainParam", "Value"), model.SecretNone)
}

func assertWarning(t *testing.T, warnings []string, parts ...string) {
	t.Helper()
	for _, w := range warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return
		}
	}
	t.Errorf("no warning contains %q; warnings:\n%s", parts, strings.Join(warnings, "\n"))
}

func TestDiscoverWarnings(t *testing.T) {
	denied := &awsx.AccessDeniedError{Action: "s3:GetObject", Resource: "s3://bucket/cdkd/App/us-east-1/state.json", Err: errors.New("AccessDenied")}
	tests := []struct {
		name   string
		setup  func(*Input, *fakeState, *fakeResolver)
		want   [][]string // each: parts one warning must hold
		absent []string   // no warning may hold these
	}{
		{
			name: "denied state read names the permission",
			setup: func(_ *Input, s *fakeState, _ *fakeResolver) {
				s.errs["bucket/cdkd/App/us-east-1/state.json"] = fmt.Errorf("read state s3://bucket/cdkd/App/us-east-1/state.json: %w", denied)
			},
			want: [][]string{{"could not read the state of App", "s3:GetObject", "access denied"}},
		},
		{
			name: "other state errors are warnings too",
			setup: func(_ *Input, s *fakeState, _ *fakeResolver) {
				s.errs["bucket/cdkd/App/us-east-1/state.json"] = errors.New("read state: decode state: invalid JSON at offset 3")
			},
			want: [][]string{{"could not read the state of App", "invalid JSON at offset 3"}},
		},
		{
			name: "missing record is not an error",
			setup: func(_ *Input, s *fakeState, _ *fakeResolver) {
				delete(s.records, "bucket/cdkd/App/us-east-1/state.json")
			},
			absent: []string{"could not read the state"},
		},
		{
			name: "failed resolution names the reference, not the value",
			setup: func(_ *Input, _ *fakeState, r *fakeResolver) {
				r.answers["{{resolve:ssm-secure:/secure/p}}"] = resolution{err: errors.New(`access denied: the credentials need ssm:GetParameter on /secure/p`)}
			},
			want:   [][]string{{"could not resolve {{resolve:ssm-secure:/secure/p}}", "ssm:GetParameter"}},
			absent: []string{"secure-string-value", "resolve {{resolve:ssm-secure:/secure/p}}: "},
		},
		{
			name:  "mask-env naming an unset variable",
			setup: func(in *Input, _ *fakeState, _ *fakeResolver) { in.MaskEnv = []string{"NOT_SET"} },
			want:  [][]string{{"mask-env", "NOT_SET", "not set"}},
		},
		{
			name:  "no state bucket",
			setup: func(in *Input, _ *fakeState, _ *fakeResolver) { in.StateBucket = "" },
			want:  [][]string{{"no state bucket is known"}},
		},
		{
			name: "unknown region of an environment-agnostic stack",
			setup: func(in *Input, _ *fakeState, _ *fakeResolver) {
				in.DefaultRegion = ""
				in.Stacks = []string{"Other"}
			},
			want: [][]string{{"could not read the state of Other", "AWS_REGION"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asm := loadAssembly(t)
			in := baseInput(asm)
			st, res := newState(t), newResolver()
			tc.setup(&in, st, res)
			set := secrets.NewSet()
			warnings := Discover(context.Background(), set, in, Deps{State: st, Resolver: res})
			for _, parts := range tc.want {
				assertWarning(t, warnings, parts...)
			}
			for _, w := range warnings {
				assert.Assert(t, !set.Contains(w), "warning holds a secret: %s", w)
				for _, a := range tc.absent {
					assert.Assert(t, !strings.Contains(w, a), "warning holds %q: %s", a, w)
				}
			}
		})
	}
}

// A failed resolution is never a failed run: everything else is still found.
func TestDiscoverKeepsGoingAfterFailures(t *testing.T) {
	asm := loadAssembly(t)
	st := newState(t)
	st.errs["bucket/cdkd/App~ChildStack/us-east-1/state.json"] = errors.New("boom")
	res := newResolver()
	res.answers["{{resolve:secretsmanager:db-creds}}"] = resolution{err: errors.New("throttled")}
	set := secrets.NewSet()
	Discover(context.Background(), set, baseInput(asm), Deps{State: st, Resolver: res})
	got := registered(set)
	for _, v := range []string{"old-pw-in-properties", "api-key-previous", "noecho-default-pw"} {
		assert.Assert(t, got[v], "lost %q after another source failed", v)
	}
}

func TestDiscoverSelection(t *testing.T) {
	tests := []struct {
		name      string
		stacks    []string
		wantReads []string
		want      []string
		notWant   []string
	}{
		{
			name:      "a parent selects its nested stacks",
			stacks:    []string{"App"},
			wantReads: []string{"bucket/cdkd/App/us-east-1/state.json", "bucket/cdkd/App~ChildStack/us-east-1/state.json"},
			// What a template says is learned from every stack.
			want: []string{"noecho-default-pw", "nested-old-value", "other-stack-default"},
		},
		{
			name:      "a nested stack reads its parent's NoEcho parameter",
			stacks:    []string{"App~ChildStack"},
			wantReads: []string{"bucket/cdkd/App~ChildStack/us-east-1/state.json"},
			want:      []string{"noecho-default-pw", "nested-old-value", "other-stack-default"},
			notWant:   []string{"old-pw-in-properties"},
		},
		{
			name:      "a wildcard selects every stack",
			stacks:    []string{"A*"},
			wantReads: []string{"bucket/cdkd/App/us-east-1/state.json", "bucket/cdkd/App~ChildStack/us-east-1/state.json", "bucket/cdkd/Other/eu-west-3/state.json"},
			want:      []string{"other-stack-default", "noecho-default-pw"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asm := loadAssembly(t)
			in := baseInput(asm)
			in.DefaultRegion = "eu-west-3"
			in.Stacks = tc.stacks
			st := newState(t)
			set := secrets.NewSet()
			Discover(context.Background(), set, in, Deps{State: st, Resolver: newResolver()})
			slices.Sort(st.reads)
			assert.DeepEqual(t, st.reads, tc.wantReads)
			got := registered(set)
			for _, v := range tc.want {
				assert.Assert(t, got[v], "missing %q", v)
			}
			for _, v := range tc.notWant {
				assert.Assert(t, !got[v], "unexpected %q", v)
			}
		})
	}
}

// resolve-secrets: false reads no secret, and a plain ssm reference nobody
// could check stays hidden at its position.
func TestDiscoverWithoutResolution(t *testing.T) {
	asm := loadAssembly(t)
	in := baseInput(asm)
	in.ResolveSecrets = false
	res := newResolver()
	set := secrets.NewSet()
	Discover(context.Background(), set, in, Deps{State: newState(t), Resolver: res})
	assert.Assert(t, is.Len(res.calls, 0))
	app, _ := asm.Stack("App")
	assert.Equal(t, app.SecretAt("PlainParam", "Value"), model.SecretReference)
	got := registered(set)
	assert.Assert(t, got["old-pw-in-properties"], "state is still read")
	assert.Assert(t, !got["api-key-previous"])
}

// Without an assembly only the inputs are known, and AWS is not called.
func TestDiscoverWithoutAssembly(t *testing.T) {
	st, res := newState(t), newResolver()
	set := secrets.NewSet()
	in := baseInput(nil)
	in.MaskValues = []string{"only-this-one"}
	warnings := Discover(context.Background(), set, in, Deps{State: st, Resolver: res})
	assert.Assert(t, is.Len(warnings, 0))
	assert.DeepEqual(t, set.MaskCommands(), []string{"only-this-one"})
	assert.Assert(t, is.Len(st.reads, 0))
	assert.Assert(t, is.Len(res.calls, 0))
}

// Each reference is read once however many positions and stacks name it.
func TestDiscoverResolvesOnce(t *testing.T) {
	res := newResolver()
	Discover(context.Background(), secrets.NewSet(), baseInput(loadAssembly(t)), Deps{State: newState(t), Resolver: res})
	seen := map[string]int{}
	for _, c := range res.calls {
		seen[c]++
	}
	for ref, n := range seen {
		assert.Equal(t, n, 1, "%s resolved %d times", ref, n)
	}
	assert.Equal(t, seen[genRef], 1, "the templated reference is spelled from state and resolved")
}

func TestSpell(t *testing.T) {
	state := readState(t, "state-App.json")
	state.Resources["Secret"] = awsx.ResourceState{PhysicalID: "arn:aws:secretsmanager:us-east-1:1:secret:s-1", Attributes: map[string]any{"Name": "s"}}
	tests := []struct {
		raw    string
		region string
		want   string
		ok     bool
	}{
		{raw: "{{resolve:secretsmanager:${Secret}:SecretString:password::}}", region: "us-east-1",
			want: "{{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:1:secret:s-1:SecretString:password::}}", ok: true},
		{raw: "{{resolve:secretsmanager:${Secret.Name}}}", want: "{{resolve:secretsmanager:s}}", ok: true},
		{raw: "{{resolve:ssm-secure:/${AWS::Region}/token}}", region: "eu-west-1", want: "{{resolve:ssm-secure:/eu-west-1/token}}", ok: true},
		{raw: "{{resolve:ssm-secure:/${AWS::Region}/token}}", region: "", ok: false},
		{raw: "{{resolve:secretsmanager:${NotDeployed}}}", ok: false},
		{raw: "{{resolve:secretsmanager:${AWS::AccountId}}}", region: "us-east-1", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			ref := dynref.Ref{Raw: tc.raw}
			got, ok := spell(ref, state, tc.region)
			assert.Equal(t, ok, tc.ok)
			if tc.ok {
				assert.Equal(t, got.Raw, tc.want)
			}
		})
	}
}

// A mask-values line with no letter or digit is not given to the runner
// (it would mask that punctuation all over the log): a warning names the
// line, never the value.
func TestDiscoverWarnsPunctuationOnlyMaskValue(t *testing.T) {
	set := secrets.NewSet()
	in := baseInput(nil)
	in.MaskValues = []string{"good-value-1", "}", "!#%&*+=?"}
	warnings := Discover(context.Background(), set, in, Deps{})
	assertWarning(t, warnings, "mask-values line 2", "no letter or digit", "shorter than 4 characters")
	assertWarning(t, warnings, "mask-values line 3", "no letter or digit")
	assert.Assert(t, is.Len(warnings, 2))
	for _, w := range warnings {
		assert.Assert(t, !strings.Contains(w, "!#%&*+=?"), w)
		assert.Assert(t, !strings.Contains(w, "}"), w)
	}
	assert.DeepEqual(t, set.MaskCommands(), []string{"good-value-1"})
}

// A value learned after discovery (by the redaction stage, at a secret
// position) that is too short to find by value is warned of by its source.
func TestShortWarnings(t *testing.T) {
	set := secrets.NewSet()
	set.Add("long-enough-1", "mask-values line 1")
	set.Add("ab", "value at the NoEcho position App/TinyParam.Value")
	warnings := ShortWarnings(set)
	assert.Assert(t, is.Len(warnings, 1))
	assertWarning(t, warnings, "value at the NoEcho position App/TinyParam.Value", "shorter than 4 characters")
	assert.Assert(t, !strings.Contains(warnings[0], `"ab"`), warnings[0])
}
