// Package aggregate is the aggregate command: it merges the reports of a
// plan's shard runs and publishes what one run over all the stacks would
// have: a shard that is missing, failed, or belongs to another plan or
// commit makes the whole a failure that names it, while the shards that
// did report still show. The diff's and the drift's own publication end
// it, given in its Options: no command package imports another.
package aggregate

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	sharding "github.com/cdkd-action/cdkd-action/internal/plan"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// shardReport is one shard's report JSON: its header says what it is, and
// the payload is decoded per kind.
type shardReport struct {
	path string
	raw  []byte
	model.ReportInfo
}

// Options are what an aggregate uses, named.
type Options struct {
	Config config.Config
	GitHub ghctx.Context
	// Log is the step's log; Secrets redacts what the shards wrote again.
	Log     *workflow.Runner
	Secrets *secrets.Set
	// Fingerprints keys the hidden-value tokens of values hidden only now.
	Fingerprints *fingerprints.Run
	// FullReportHint says where the unabridged report lives.
	FullReportHint string
	// AsCommand makes the run the merged reports' command: its titles,
	// check runs and comment are that command's own.
	AsCommand func(config.Command)
	// NewDiffReport, ReportDiff and ReportDrift are the diff's and the
	// drift's own report header and publication (diff.NewReport,
	// diff.Report, drift.Report), as the command AsCommand named.
	NewDiffReport func() reporters.DiffReport
	ReportDiff    func(ctx context.Context, rep reporters.DiffReport, d model.Diff) outcome.Outcome
	ReportDrift   func(ctx context.Context, rep reporters.DriftReport) outcome.Outcome
}

// Run merges the shards' reports and publishes the whole.
func Run(ctx context.Context, o Options) outcome.Outcome {
	var m sharding.Matrix
	if err := json.Unmarshal([]byte(o.Config.Matrix), &m); err != nil || len(m.Shard) == 0 || m.Shard[0].Plan == "" {
		return outcome.Failed(reason.BadInput, &config.InputError{Input: "matrix", Msg: `expected the plan job's matrix output ({"shard":[{"id":…,"plan":…}]})`})
	}
	files, err := reportFiles(o.Config.Reports, o.Config.WorkingDirectory)
	if err != nil {
		return outcome.Failed(reason.BadInput, err)
	}
	reports, problems := matchShards(m, files, o.shardCommit())
	kind := model.Kind(o.Config.For)
	for _, rep := range reports {
		if rep.Kind != kind {
			return outcome.Failed(reason.BadInput, &config.InputError{Input: "reports", Msg: fmt.Sprintf("expected %s reports (for: %s), found a %s report in %s", kind, kind, rep.Kind, rep.path)})
		}
	}
	o.AsCommand(config.Command(kind))
	if kind == model.KindDrift {
		return o.drift(ctx, reports, problems)
	}
	return o.diff(ctx, reports, problems)
}

// reportFiles lists the JSON files under dir (recursively: one folder per
// downloaded artifact) or matching a glob.
func reportFiles(spec, workdir string) ([]string, error) {
	if !filepath.IsAbs(spec) {
		spec = filepath.Join(workdir, spec)
	}
	var files []string
	if fi, err := os.Stat(spec); err == nil && fi.IsDir() {
		err := filepath.WalkDir(spec, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return nil, &config.InputError{Input: "reports", Msg: fmt.Sprintf("could not read %s: %v", spec, err)}
		}
	} else {
		matches, err := filepath.Glob(spec)
		if err != nil {
			return nil, &config.InputError{Input: "reports", Msg: fmt.Sprintf("expected a directory or a glob, got %q: %v", spec, err)}
		}
		files = matches
	}
	if len(files) == 0 {
		return nil, &config.InputError{Input: "reports", Msg: fmt.Sprintf("expected the shards' report JSON files, found none in %s", spec)}
	}
	slices.Sort(files)
	return files, nil
}

// shardCommit is the commit every shard's report must be about: a diff's
// pull request head, a drift's checked-out commit ("" when unknown: any).
func (o Options) shardCommit() string {
	if model.Kind(o.Config.For) == model.KindDrift || o.GitHub.HeadSHA == "" {
		return o.GitHub.SHA
	}
	return o.GitHub.HeadSHA
}

// matchShards reads the report files and pairs them with the plan's
// shards, each report about commit want ("": any). Every shard without
// exactly one good report is a problem, named.
func matchShards(m sharding.Matrix, files []string, want string) ([]shardReport, []string) {
	byShard := map[string][]shardReport{}
	var problems []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, fmt.Sprintf("could not read %s: %v", f, err))
			continue
		}
		info, isReport, err := model.ReadReportInfo(b)
		if !isReport {
			continue // not a report of ours: artifacts may hold other files
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s could not be read: %v", f, err))
			continue
		}
		if info.Shard == nil {
			problems = append(problems, fmt.Sprintf("%s is not a shard's report (it has no shard id: set shard on the shard jobs)", f))
			continue
		}
		byShard[info.Shard.ID] = append(byShard[info.Shard.ID], shardReport{path: f, raw: b, ReportInfo: info})
	}
	var out []shardReport
	for _, sh := range m.Shard {
		reps := byShard[sh.ID]
		delete(byShard, sh.ID)
		switch {
		case len(reps) == 0:
			problems = append(problems, fmt.Sprintf("shard %s (%s) has no report: its job failed before writing one, was cancelled, or did not upload it", sh.ID, sh.Stacks))
		case len(reps) > 1:
			problems = append(problems, fmt.Sprintf("shard %s has %d reports (%s): give each shard's artifact its own name", sh.ID, len(reps), reps[0].path))
		case reps[0].Shard.Plan != sh.Plan:
			problems = append(problems, fmt.Sprintf("shard %s's report is from another plan (%s, not %s)", sh.ID, reps[0].Shard.Plan, sh.Plan))
		case want != "" && reps[0].Commit != want:
			problems = append(problems, fmt.Sprintf("shard %s's report is for commit %s, not %s", sh.ID, reporters.ShortSHA(reps[0].Commit), reporters.ShortSHA(want)))
		case reps[0].Error != "":
			problems = append(problems, fmt.Sprintf("shard %s failed: %s", sh.ID, reps[0].Error))
		default:
			out = append(out, reps[0])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(byShard)) {
		problems = append(problems, fmt.Sprintf("a report names shard %s, which the plan does not have", id))
	}
	return out, problems
}

// aggregate merges the shards' change sets into the one a single run
// over every stack would have produced: same report, same digest. The
// shards placed and redacted their own values; the aggregate redacts again
// with the secrets it knows.
func (o Options) diff(ctx context.Context, reports []shardReport, problems []string) outcome.Outcome {
	report := o.NewDiffReport()
	report.Notes = nil
	var d model.Diff
	seen := map[string]bool{}
	results, problems := decodeShards[model.DiffResult](reports, problems)
	for _, res := range results {
		report.CdkdVersion = cmp.Or(report.CdkdVersion, res.CdkdVersion)
		report.CdkdSource = cmp.Or(report.CdkdSource, res.CdkdSource)
		report.Notes = appendNew(report.Notes, res.Notes...)
		for _, s := range res.Stacks {
			// A stack two shards both diffed is one stack of the change set.
			if key := s.Stack + "\x00" + s.Region; !seen[key] {
				seen[key] = true
				d.Stacks = append(d.Stacks, s)
			}
		}
	}
	// The shards' hidden-value tokens travel in their reports; a value hidden only
	// now is fingerprinted here.
	var toks redact.Tokens
	toks.AddAll(redact.Diff(&d, redact.Input{Set: o.Secrets, Placed: true}).Hidden)
	why := o.Fingerprints.FillTokens(ctx, &toks)
	if other := o.otherShardKey(ctx, results); other != "" && why == "" {
		why = o.Fingerprints.Unverifiable(&toks, other)
	}
	if why != "" {
		note := changeset.UnverifiableNote(why)
		o.Log.Warning(note)
		if !slices.Contains(report.Notes, note) { // a shard past the bound said it too
			report.Notes = append(report.Notes, note)
		}
	}
	if len(problems) > 0 {
		report.Missing = o.Secrets.OneLine(strings.Join(problems, "; "))
	}
	return o.ReportDiff(ctx, report, d)
}

// otherShardKey says which shard's hidden-value tokens were made with another key
// than this aggregate's ("" when all agree): the review names one key, and
// a deploy compares every token under it.
func (o Options) otherShardKey(ctx context.Context, results []model.DiffResult) string {
	own := o.Fingerprints.TokenKeyID(ctx)
	for _, res := range results {
		if res.Diff().HiddenTokens().Tokens == 0 || res.FingerprintKeyID == own {
			continue
		}
		shard := "a shard"
		if res.Shard != nil {
			shard = "shard " + res.Shard.ID
		}
		return fmt.Sprintf("%s fingerprinted its hidden values with key %s, and this aggregate's key is %s: give the shards and the aggregate the same fingerprint-key, or none and the same state bucket",
			shard, cmp.Or(res.FingerprintKeyID, "(none)"), cmp.Or(own, "(none)"))
	}
	return ""
}

// decodeShards decodes each shard's report as T; one that cannot be read
// is a problem, named.
func decodeShards[T any](reports []shardReport, problems []string) ([]T, []string) {
	out := make([]T, 0, len(reports))
	for _, sr := range reports {
		var res T
		if err := json.Unmarshal(sr.raw, &res); err != nil {
			problems = append(problems, fmt.Sprintf("shard %s's report could not be read: %v", sr.Shard.ID, err))
			continue
		}
		out = append(out, res)
	}
	return out, problems
}

// aggregate merges the shards' drift reports into the one report a
// single run over every stack would have given: the stacks side by side,
// classified again as one run (drift outranks a partial comparison, which
// outranks clean), with cdkd's exit code as one run would have ended.
func (o Options) drift(ctx context.Context, reports []shardReport, problems []string) outcome.Outcome {
	rep := reporters.DriftReport{Label: o.Config.Label, SHA: o.GitHub.SHA, RunURL: o.GitHub.RunURL, FullReportHint: o.FullReportHint}
	var d model.Drift
	exit := 0
	causes := []string{}
	results, problems := decodeShards[model.DriftResult](reports, problems)
	for _, res := range results {
		rep.CdkdVersion = cmp.Or(rep.CdkdVersion, res.CdkdVersion)
		rep.CdkdSource = cmp.Or(rep.CdkdSource, res.CdkdSource)
		rep.Notes = appendNew(rep.Notes, res.Notes...)
		rep.HiddenStacks = appendNew(rep.HiddenStacks, res.HiddenStacks...)
		if res.CauseNote != "" {
			causes = appendNew(causes, res.CauseNote)
		}
		exit = oneRunExit(exit, res.Verdict.ExitCode)
		d.Stacks = append(d.Stacks, res.Stacks...)
	}
	redact.Drift(&d, redact.Input{Set: o.Secrets, Placed: true})
	rep.Drift = d
	rep.CauseNote = strings.Join(causes, " ")
	rep.Verdict = model.ClassifyRun(&d, exit, cdkd.ReadsCurrentState)
	if len(problems) > 0 {
		rep.Missing = o.Secrets.OneLine(strings.Join(problems, "; "))
	}
	return o.ReportDrift(ctx, rep)
}

// oneRunExit is the exit code one cdkd drift over the stacks of two runs
// would have ended with: drift (1) outranks a refused or failed comparison
// (2), which outranks a run whose exit code is unknown
// (model.ExitCodeUnknown: a shard re-rendered from a bare cdkd JSON),
// which outranks nothing to report (0): an unknown code is never read as 0.
func oneRunExit(a, b int) int {
	rank := func(code int) int {
		switch code {
		case 1:
			return 3
		case 2:
			return 2
		case model.ExitCodeUnknown:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// appendNew appends the items list does not hold yet, in order.
func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}
