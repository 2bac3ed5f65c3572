package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// fixture is a cloud assembly whose StackA has a NoEcho parameter with a
// default (testdata/fixtures/README.md).
const fixture = "../../../testdata/fixtures/assembly-v2"

// noEchoDefault is that parameter's default, which discovery masks.
const noEchoDefault = "hunter2-noecho-v2"

// run is one local run's session over cfg inside a runner (so that masks
// are registered), its environment env, its log in log.
func run(t *testing.T, cfg config.Config, env map[string]string, log *strings.Builder) *session.Session {
	t.Helper()
	if cfg.WorkingDirectory == "" {
		cfg.WorkingDirectory = t.TempDir()
	}
	if env == nil {
		env = map[string]string{}
	}
	if _, ok := env["GITHUB_ACTIONS"]; !ok {
		env["GITHUB_ACTIONS"] = "true"
	}
	getenv := func(k string) string { return env[k] }
	environ := func() []string {
		var out []string
		for k, v := range env {
			out = append(out, k+"="+v)
		}
		return out
	}
	var gh ghctx.Context
	p := parts.New(parts.Setup{Getenv: getenv, Environ: environ, LogOut: log}, &cfg, &gh)
	p.SetLocal(true)
	return p.Secrets
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	assert.NilError(t, err)
	return a
}

// assertMasksFirst checks that no line of the log comes before a mask,
// and returns the masked values.
func assertMasksFirst(t *testing.T, log string) []string {
	t.Helper()
	var masks []string
	spoke := false
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		if m, ok := strings.CutPrefix(l, "::add-mask::"); ok {
			assert.Assert(t, !spoke, "a mask after the log spoke:\n%s", log)
			masks = append(masks, m)
		} else if l != "" {
			spoke = true
		}
	}
	return masks
}

// Discovery masks the assembly's NoEcho defaults and the mask inputs
// before it prints anything, and says that a local run read no state.
func TestDiscoverMasksBeforeItSpeaks(t *testing.T) {
	var log strings.Builder
	learned := false
	s := run(t, config.Config{App: abs(t, fixture), MaskValues: []string{"mask-value-one"}, MaskEnv: []string{"MY_VALUE"}},
		map[string]string{"MY_VALUE": "env-value-one"}, &log)
	s.LearnKey = func(context.Context) { learned = true }
	assert.NilError(t, s.Discover(context.Background()))
	masks := assertMasksFirst(t, log.String())
	for _, v := range []string{noEchoDefault, "mask-value-one", "env-value-one"} {
		assert.Assert(t, is.Contains(masks, v))
		assert.Equal(t, s.Set.Redact("x "+v+" y"), "x *** y")
	}
	assert.Assert(t, learned, "the fingerprint key is learnt with the other secrets")
	assert.Assert(t, is.Contains(log.String(), "cdkd's output is not redacted against its state"))
	assert.Assert(t, s.Assembly != nil && s.SecretAssembly() == s.Assembly)
	assert.Assert(t, s.Positions() != nil)
}

// An assembly that cannot be read is bad input, but the mask inputs are
// registered before the error is said.
func TestDiscoverRefusesAnUnreadableAssembly(t *testing.T) {
	broken := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(broken, "manifest.json"), []byte("{not json"), 0o644))
	for _, tc := range []struct {
		name string
		cfg  config.Config
		msg  string
	}{
		{name: "app", cfg: config.Config{App: broken}, msg: "input app: " + broken + " looks like a cloud assembly but could not be read"},
		{name: "base-app", cfg: config.Config{App: abs(t, fixture), BaseApp: broken}, msg: "input base-app: " + broken + " could not be read as a cloud assembly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			tc.cfg.MaskValues = []string{"mask-value-one"}
			err := run(t, tc.cfg, nil, &log).Discover(context.Background())
			assert.ErrorContains(t, err, tc.msg)
			assert.Assert(t, is.Contains(assertMasksFirst(t, log.String()), "mask-value-one"))
		})
	}
}

// With base-app, secret positions come from the base branch's assembly,
// never from the pull request's.
func TestSecretAssembly(t *testing.T) {
	app, base := &assembly.Assembly{}, &assembly.Assembly{}
	s := &session.Session{Config: &config.Config{}, Assembly: app, BaseAssembly: base}
	assert.Assert(t, s.SecretAssembly() == app)
	s.Config.BaseApp = "base.out"
	assert.Assert(t, s.SecretAssembly() == base)
	s.BaseAssembly = nil // unreadable: nothing is taken from app instead
	assert.Assert(t, s.SecretAssembly() == nil)
	assert.Assert(t, s.Positions() == nil)
}

// The environment's credentials and the raw mask inputs are masked before
// the inputs are even validated, each registered once, and only inside a
// runner.
func TestEarlyMasks(t *testing.T) {
	env := map[string]string{
		"AWS_SECRET_ACCESS_KEY": "aws-secret-value", "DEPLOY_TOKEN": "deploy-token-value", "CACHE_KEY": "v1",
		"INPUT_FINGERPRINT-KEY": "fingerprint-key-value", "INPUT_MASK-VALUES": "line-one-value\r\nline-two-value",
		"INPUT_MASK-ENV": "OTHER", "OTHER": "other-value",
	}
	var log strings.Builder
	s := run(t, config.Config{}, env, &log)
	s.EarlyMasks()
	s.RegisterMasks()
	masks := assertMasksFirst(t, log.String())
	for _, v := range []string{"aws-secret-value", "deploy-token-value", "fingerprint-key-value", "line-one-value", "line-two-value", "other-value"} {
		assert.Equal(t, s.Set.Redact(v), "***", v)
		assert.Equal(t, strings.Count(strings.Join(masks, "\n")+"\n", v+"\n"), 1, "%s registered once", v)
	}
	assert.Equal(t, s.Set.Redact("v1"), "v1", "a short value of a variable named like a credential is not one")

	env["GITHUB_ACTIONS"] = "false"
	log.Reset()
	local := run(t, config.Config{}, env, &log)
	local.EarlyMasks()
	assert.Equal(t, local.Set.Redact("aws-secret-value"), "***")
	assert.Assert(t, !strings.Contains(log.String(), "::add-mask::"), "a terminal is given no mask command: it would print the value")
}

func TestAssemblyDir(t *testing.T) {
	wd := t.TempDir()
	assert.NilError(t, os.CopyFS(filepath.Join(wd, "cdk.out"), os.DirFS(fixture)))
	for _, tc := range []struct {
		name, app, want string
	}{
		{name: "no app", app: ""},
		{name: "a command", app: "npx ts-node app.ts"},
		{name: "relative to the working directory", app: "cdk.out", want: filepath.Join(wd, "cdk.out")},
		{name: "absolute", app: abs(t, fixture), want: abs(t, fixture)},
		{name: "a directory that is no assembly", app: ".", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session.Session{Config: &config.Config{App: tc.app, WorkingDirectory: wd}}
			assert.Equal(t, s.AssemblyDir(), tc.want)
		})
	}
}

// A stack's region: the one named, else the assembly's, else AWS_REGION.
func TestRegion(t *testing.T) {
	asm, err := assembly.Load(fixture)
	assert.NilError(t, err)
	st, ok := asm.Stack("StackA")
	assert.Assert(t, ok && st.Region != "")
	getenv := func(k string) string { return map[string]string{"AWS_REGION": "ap-south-1"}[k] }
	s := &session.Session{Assembly: asm, Getenv: getenv}
	assert.Equal(t, s.Region("StackA", "eu-north-1"), "eu-north-1")
	assert.Equal(t, s.Region("StackA", ""), st.Region)
	assert.Equal(t, s.Region("Unknown", ""), "ap-south-1")
	assert.Equal(t, (&session.Session{Getenv: getenv}).Region("StackA", ""), "ap-south-1")
}

// resolver answers each reference with a value, secret or not.
type resolver map[string]struct {
	v      string
	secret bool
	err    error
}

func (r resolver) Resolve(_ context.Context, ref dynref.Ref) (string, bool, error) {
	a := r[ref.Raw]
	return a.v, a.secret, a.err
}

// Only a secret reference that resolved is remembered, to be
// fingerprinted without a second read.
func TestRecordRefs(t *testing.T) {
	s := &session.Session{}
	assert.Assert(t, s.RecordRefs(nil) == nil)
	_, ok := s.RefValue("{{resolve:secretsmanager:a}}")
	assert.Assert(t, !ok)
	r := s.RecordRefs(resolver{
		"{{resolve:secretsmanager:a}}": {v: "a-value", secret: true},
		"{{resolve:ssm:b}}":            {v: "b-value"},
		"{{resolve:secretsmanager:c}}": {v: "c-value", secret: true, err: errors.New("throttled")},
	})
	for _, raw := range []string{"{{resolve:secretsmanager:a}}", "{{resolve:ssm:b}}", "{{resolve:secretsmanager:c}}"} {
		_, _, _ = r.Resolve(context.Background(), dynref.Ref{Raw: raw})
	}
	v, ok := s.RefValue("{{resolve:secretsmanager:a}}")
	assert.Assert(t, ok)
	assert.Equal(t, v, "a-value")
	for _, raw := range []string{"{{resolve:ssm:b}}", "{{resolve:secretsmanager:c}}"} {
		_, ok := s.RefValue(raw)
		assert.Assert(t, !ok, raw)
	}
}

// Without an assembly in app, the one cdkd synthesized into cdk.out is
// read once, and its secrets are masked before the diff renders.
func TestLateAssembly(t *testing.T) {
	t.Run("cdk.out", func(t *testing.T) {
		wd := t.TempDir()
		assert.NilError(t, os.CopyFS(filepath.Join(wd, session.SynthesizedDir), os.DirFS(fixture)))
		var log strings.Builder
		s := run(t, config.Config{App: "npx cdk", WorkingDirectory: wd}, nil, &log)
		assert.NilError(t, s.Discover(context.Background()))
		assert.Assert(t, s.Assembly == nil)
		assert.Equal(t, s.Set.Redact(noEchoDefault), noEchoDefault)
		s.LateAssembly(context.Background())
		assert.Assert(t, s.Assembly != nil)
		assert.Equal(t, s.Set.Redact(noEchoDefault), "***")
		assert.Assert(t, is.Contains(log.String(), "::add-mask::"+noEchoDefault))
	})
	t.Run("none", func(t *testing.T) {
		wd := t.TempDir()
		var log strings.Builder
		s := run(t, config.Config{App: "npx cdk", WorkingDirectory: wd}, nil, &log)
		s.LateAssembly(context.Background())
		assert.Assert(t, s.Assembly == nil)
		// Looked for once: a cdk.out written later is not read.
		assert.NilError(t, os.CopyFS(filepath.Join(wd, session.SynthesizedDir), os.DirFS(fixture)))
		s.LateAssembly(context.Background())
		assert.Assert(t, s.Assembly == nil)
	})
	t.Run("unreadable", func(t *testing.T) {
		wd := t.TempDir()
		out := filepath.Join(wd, session.SynthesizedDir)
		assert.NilError(t, os.MkdirAll(out, 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(out, "manifest.json"), []byte("{not json"), 0o644))
		var log strings.Builder
		s := run(t, config.Config{App: "npx cdk", WorkingDirectory: wd}, nil, &log)
		s.LateAssembly(context.Background())
		assert.Assert(t, s.Assembly == nil)
		assert.Assert(t, is.Contains(log.String(), "read the cloud assembly in "+out+" to find secret positions"))
	})
	t.Run("app's own", func(t *testing.T) {
		s := &session.Session{Config: &config.Config{}, Assembly: &assembly.Assembly{}}
		before := s.Assembly
		s.LateAssembly(context.Background()) // reads nothing: no Log, no working directory needed
		assert.Assert(t, s.Assembly == before)
	})
}
