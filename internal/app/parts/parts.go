// Package parts builds the parts a run talks through, wired to one
// another: the step's log, the secret session, the cdkd executor, the
// publisher's channels and the AWS edge. App.Run builds them once per run;
// a command's tests build them the same way.
package parts

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/awsedge"
	"github.com/cdkd-action/cdkd-action/internal/app/cdkdexec"
	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/app/fromjson"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Setup is what the parts are built from: the process's edges (App's).
type Setup struct {
	Getenv func(string) string
	// Environ lists the environment as NAME=value; nil means only the
	// names Getenv is asked for.
	Environ func() []string
	// LogOut is where the log goes; Stdout where a local run's report
	// goes (nil: the log).
	LogOut io.Writer
	Stdout io.Writer
	// Deps are the edges tests replace; nil or zero: the real ones.
	Deps Deps
	// LearnKey reads the fingerprint key during discovery (see
	// session.Session.LearnKey); nil: never.
	LearnKey func(ctx context.Context)
}

// Deps are the edges a run talks to, injected so tests can use fakes
// (app.Deps).
type Deps struct {
	// GitHub builds the API client with the run's options (its log, its
	// rate-limit budget); nil means github.NewClient.
	GitHub func(token, apiURL string, opts ...github.Option) (github.API, error)
	// AWS builds the state reader and secret resolver; nil means the SDK's.
	AWS func(ctx context.Context, s awsx.Settings) (discover.Deps, error)
	// Objects builds the store of the action's own objects in the state
	// bucket (fingerprints); nil means the SDK's S3 client.
	Objects func(ctx context.Context, s awsx.Settings, bucket string) (fingerprint.ObjectStore, error)
	// BucketProbe builds the clients that find cdkd's default state
	// bucket when none is named (STS for the account, S3 to see which
	// default name exists); nil means the SDK's.
	BucketProbe func(ctx context.Context, s awsx.Settings) (awsx.BucketProbeAPI, error)
	// FingerprintParams are the Argon2id parameters of new fingerprints;
	// zero means fingerprint.DefaultParams. In-process end-to-end tests
	// make them cheap here instead of through a global.
	FingerprintParams fingerprint.Params
	// CdkdVersionTimeout bounds `cdkd --version`; zero means
	// cdkd.VersionTimeout. The real-cdkd end-to-end tests raise it: on a
	// shared CI machine Node can take longer than that to start.
	CdkdVersionTimeout time.Duration
	// CdkdKillGrace replaces how long cdkd gets after SIGINT before it is
	// killed (cdkd.DefaultKillGrace, or deployKillGrace for a deploy);
	// zero keeps them. End-to-end tests shorten it: their stubs either exit
	// at once on SIGINT or ignore it, so the wait proves nothing more.
	CdkdKillGrace time.Duration
	// ReportFiles is where the report JSON is written; nil is the OS's
	// file system. Tests inject a failing one (a full disk).
	ReportFiles publish.Files
}

// Parts are one run's parts. Each reads the inputs and the GitHub context
// through the pointers it was built with, as they are when it is used.
type Parts struct {
	// Out is the redacted log; Log writes structured lines to it.
	Out *secrets.LineWriter
	Log *slog.Logger
	// Runner writes log commands, outputs and the summary; its text passes
	// the redactor. Raw registers masks only: it must not be redacted.
	Runner *workflow.Runner
	Raw    *workflow.Runner

	Secrets  *session.Session
	Cdkd     *cdkdexec.Executor
	Channels *publisher.Channels
	AWS      *awsedge.Edge

	cfg    *config.Config
	params fingerprint.Params
	// fps and fromFile are built on first use, once the inputs are loaded.
	fps      *fingerprints.Run
	fromFile *fromjson.File
}

// New builds the log and the secret session: every line the run prints
// passes the redactor of the Set that discovery fills.
func New(s Setup, cfg *config.Config, gh *ghctx.Context) *Parts {
	set := secrets.NewSet()
	out := secrets.NewLineWriter(s.LogOut, set)
	p := &Parts{Out: out, cfg: cfg, params: s.Deps.FingerprintParams}
	p.Raw = workflow.New(s.LogOut, s.Getenv)
	p.Runner = workflow.New(out, s.Getenv)
	p.Runner.Redact = set.Redact
	// Outside a runner, print for a terminal: no ::commands:: at all.
	p.Runner.Plain = !workflow.IsActions(s.Getenv)
	p.Raw.Plain = p.Runner.Plain
	p.Log = slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	p.AWS = &awsedge.Edge{Config: cfg, Getenv: s.Getenv, BuildClients: s.Deps.AWS, BuildObjects: s.Deps.Objects, BuildBucketProbe: s.Deps.BucketProbe, Log: p.Runner}
	p.Secrets = &session.Session{Set: set, Config: cfg, AWS: p.AWS, Getenv: s.Getenv, Environ: s.Environ, Raw: p.Raw, Log: p.Runner,
		LearnKey: s.LearnKey}
	var environ []string
	if s.Environ != nil {
		environ = s.Environ()
	}
	p.Cdkd = &cdkdexec.Executor{Config: cfg, VersionTimeout: s.Deps.CdkdVersionTimeout, KillGrace: s.Deps.CdkdKillGrace, Environ: environ,
		Secrets: set, Out: out, Log: p.Runner, BeforeFlush: p.Secrets.RegisterMasks,
		StateObjects: p.stateObjects, AssemblyRegion: p.assemblyRegion}
	p.Channels = &publisher.Channels{Config: cfg, GitHub: gh, Log: p.Runner, Secrets: set, Stdout: s.Stdout, Fallback: out,
		Getenv: s.Getenv, ReportFiles: s.Deps.ReportFiles}
	return p
}

// SetLocal makes the run local (or not) in every part that asks.
func (p *Parts) SetLocal(local bool) {
	p.AWS.Local = local
	p.Channels.Local = local
}

// Fingerprints is the run's fingerprints (see package fingerprints), built
// on first use, once the inputs are loaded.
func (p *Parts) Fingerprints() *fingerprints.Run {
	if p.fps == nil {
		cfg := p.cfg
		p.fps = &fingerprints.Run{
			On: cfg.Fingerprints, KeyInput: cfg.FingerprintKey, Prefix: cfg.FingerprintPrefix,
			Bucket: p.AWS.StateBucket, BaseApp: cfg.BaseApp != "", Offline: p.AWS.Offline(),
			Assembly: func() *assembly.Assembly { return p.Secrets.Assembly }, RefValue: p.Secrets.RefValue,
			Objects: p.AWS.ObjectStore, Params: p.params,
			Secrets: p.Secrets.Set, RegisterMasks: p.Secrets.RegisterMasks,
			Info:   func(msg string) { p.Runner.Info(msg) },
			Notice: func(msg string) { p.Runner.Notice(msg) }, Warn: func(msg string) { p.Runner.Warning(msg) },
		}
	}
	return p.fps
}

// FromJSON is the from-json input, read on first use: App.Run starts it
// before the assembly loads.
func (p *Parts) FromJSON() *fromjson.File {
	if p.fromFile == nil {
		p.fromFile = fromjson.Open(p.cfg.FromJSON, p.cfg.Command)
	}
	return p.fromFile
}

// ChangeSets is the change-set stage (see package changeset), wired to
// the run's parts.
func (p *Parts) ChangeSets() *changeset.Stage {
	return &changeset.Stage{Config: p.cfg, Secrets: p.Secrets, Cdkd: p.Cdkd, Fingerprints: p.Fingerprints(), Log: p.Runner, FromJSON: p.FromJSON}
}

// objectSource is the state reader's raw read (awsx.StateReader.Object).
type objectSource interface {
	Object(ctx context.Context, bucket, key string) ([]byte, error)
}

// stateObjects is the run's state bucket and a raw reader of its objects,
// for a read-back that starts no cdkd process; a nil reader when no bucket
// is known or AWS is not configured.
func (p *Parts) stateObjects(ctx context.Context) (string, func(ctx context.Context, bucket, key string) ([]byte, error)) {
	bucket := p.AWS.StateBucket(ctx)
	if bucket == "" {
		return "", nil
	}
	deps, err := p.AWS.Clients(ctx)
	src, ok := deps.State.(objectSource)
	if err != nil || !ok {
		return "", nil
	}
	return bucket, src.Object
}

// assemblyRegion is a stack's region in the cloud assembly, "" when the
// assembly or the stack is unknown.
func (p *Parts) assemblyRegion(stack string) string {
	if p.Secrets.Assembly == nil {
		return ""
	}
	if st, ok := p.Secrets.Assembly.Stack(stack); ok {
		return st.Region
	}
	return ""
}
