package app

import (
	"log/slog"
	"sync"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Env is what every command runs in, built once by App.Run: the validated
// inputs and the GitHub context, and the four parts a command talks
// through — the secret session, the log, the cdkd executor and the
// publisher. A command is a Run(ctx, *Env) Outcome (see command); what it
// keeps for itself lives in its own type (diffRun, driftRun, deployRun).
type Env struct {
	// logMu keeps the log groups of cdkd calls run side by side whole.
	logMu sync.Mutex

	app   *App
	cfg   config.Config
	gh    ghctx.Context
	local bool

	session
	logs
	executor
	publisher
	awsEdge
}

// session is what the run knows is secret: the Set every outgoing byte is
// redacted with, the values registered with ::add-mask::, the cloud
// assembly whose positions hide values fail closed, and the fingerprints
// of secret values.
type session struct {
	set *secrets.Set
	// masked holds what was already registered with ::add-mask::.
	masked map[string]bool
	// warned holds the discovery warnings already printed: discovery runs
	// again for an assembly found late (see lateAssembly).
	warned map[string]bool
	asm    *assembly.Assembly
	// baseAsm is the base-app input's assembly: where secret positions
	// come from when asm is one a pull request's author controls.
	baseAsm *assembly.Assembly
	// lateTried is set once lateAssembly has looked for cdk.out.
	lateTried bool
	// held is cdkd's output held back until discovery finished (hold.go).
	held *heldOutput
	// fps holds the fingerprints of secret values (fingerprints.go).
	fps fpState
}

// logs is the step's log: every line passes the redactor.
type logs struct {
	out    *secrets.LineWriter // redacted log
	log    *slog.Logger
	runner *workflow.Runner // log commands, outputs and summary; text passes the redactor
	raw    *workflow.Runner // add-mask only: must not be redacted
}

// executor is the cdkd this run uses (see executor.go).
type executor struct {
	// cdkd is nil with from-json.
	cdkd *cdkd.Choice
	// lostFiles are the files a local user asked for (--output,
	// --outputs-file) that could not be written: the run fails with bad
	// input, since the path was theirs.
	lostFiles []error
	// cleanups run when the run ends (e.g. an npm-installed cdkd).
	cleanups []func()
	// fromFile is the from-json input, read before the assembly loads.
	fromFile *fromJSONFile
}

// publisher is where reports go: the GitHub API (nil in local mode or
// without a token), the step outputs and the job summary.
type publisher struct {
	api     github.API
	outputs map[string]string
	// summaryWritten tracks that every path, failures included, wrote one.
	summaryWritten bool
	// identity answers who we are, once per run (see ident).
	identity *github.Identity
	// reportBudget is the time a cancelled run's last report was given,
	// 0 while the job's own context is live.
	reportBudget time.Duration
	// reportJSON writes the report JSON; outside a workspace it keeps the
	// run's own folder.
	reportJSON *publish.ReportJSON
}

// newEnv builds the log and the secret session: every line the run prints
// passes the redactor of the Set that discovery fills.
func (a *App) newEnv() *Env {
	logOut := a.logWriter()
	set := secrets.NewSet()
	out := secrets.NewLineWriter(logOut, set)
	r := &Env{app: a}
	r.set = set
	r.outputs = map[string]string{}
	r.out = out
	r.raw = workflow.New(logOut, a.Getenv)
	r.runner = workflow.New(out, a.Getenv)
	r.runner.Redact = set.Redact
	// Outside a runner, print for a terminal: no ::commands:: at all.
	r.runner.Plain = !workflow.IsActions(a.Getenv)
	r.raw.Plain = r.runner.Plain
	r.log = slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return r
}
