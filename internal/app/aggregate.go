package app

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

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/plan"
)

// shardReport is what the aggregate reads of a shard's report JSON: who
// wrote it (shard, plan, commit) and whether it worked; the payload is
// decoded per kind.
type shardReport struct {
	path        string
	Kind        string          `json:"kind"`
	Label       string          `json:"label"`
	HeadSHA     string          `json:"headSha"`
	SHA         string          `json:"sha"`
	CdkdVersion string          `json:"cdkdVersion"`
	Error       string          `json:"error"`
	Notes       []string        `json:"notes"`
	Shard       *config.Shard   `json:"shard"`
	Stacks      json.RawMessage `json:"stacks"`
}

// commit is the commit the report is about: a diff's pull request head, a
// drift's checked-out commit.
func (s shardReport) commit() string { return s.HeadSHA + s.SHA }

// aggregate merges the reports of a plan's shard runs and publishes what
// one run over all the stacks would have: a shard that is missing, failed,
// or belongs to another plan or commit makes the whole a failure that names
// it, while the shards that did report still show.
func (r *run) aggregate(ctx context.Context) ExitCode {
	var m plan.Matrix
	if err := json.Unmarshal([]byte(r.cfg.Matrix), &m); err != nil || len(m.Shard) == 0 || m.Shard[0].Plan == "" {
		return r.fail("bad-input", &config.InputError{Input: "matrix", Msg: "expected the plan job's matrix output ({\"shard\":[{\"id\":…,\"plan\":…}]})"}, ExitBadInput, nil)
	}
	files, err := reportFiles(r.cfg.Reports, r.cfg.WorkingDirectory)
	if err != nil {
		return r.fail("bad-input", err, ExitBadInput, nil)
	}
	reports, problems := r.matchShards(m, files)
	kind := ""
	for _, rep := range reports {
		if kind != "" && rep.Kind != kind {
			return r.fail("bad-input", &config.InputError{Input: "reports", Msg: fmt.Sprintf("expected the reports of one plan, found both %s and %s reports", kind, rep.Kind)}, ExitBadInput, nil)
		}
		kind = rep.Kind
	}
	if kind == "" {
		kind = string(r.cfg.For)
	}
	r.cfg.Command = config.Command(kind) // titles, check runs and the comment are the command's own
	switch kind {
	case "diff":
		return r.aggregateDiff(ctx, reports, problems)
	}
	return r.fail("bad-input", &config.InputError{Input: "reports", Msg: fmt.Sprintf("aggregating %s reports is not supported; expected diff reports", kind)}, ExitBadInput, nil)
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

// matchShards reads the report files and pairs them with the plan's
// shards. Every shard without exactly one good report is a problem, named.
func (r *run) matchShards(m plan.Matrix, files []string) ([]shardReport, []string) {
	byShard := map[string][]shardReport{}
	var problems []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, fmt.Sprintf("could not read %s: %v", f, err))
			continue
		}
		rep := shardReport{path: f}
		if json.Unmarshal(b, &rep) != nil || (rep.Kind != "diff" && rep.Kind != "drift") {
			continue // not a report of ours: artifacts may hold other files
		}
		if rep.Shard == nil {
			problems = append(problems, fmt.Sprintf("%s is not a shard's report (it has no shard id: set shard on the shard jobs)", f))
			continue
		}
		byShard[rep.Shard.ID] = append(byShard[rep.Shard.ID], rep)
	}
	want := r.gh.HeadSHA
	if want == "" {
		want = r.gh.SHA
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
		case want != "" && reps[0].commit() != want:
			problems = append(problems, fmt.Sprintf("shard %s's report is for commit %s, not %s", sh.ID, shortSHA(reps[0].commit()), shortSHA(want)))
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

// aggregateDiff merges the shards' change sets into the one a single run
// over every stack would have produced: same report, same digest.
func (r *run) aggregateDiff(ctx context.Context, reports []shardReport, problems []string) ExitCode {
	report := r.newDiffReport("")
	var d model.Diff
	seen := map[string]bool{}
	for _, rep := range reports {
		report.CdkdVersion = cmp.Or(report.CdkdVersion, rep.CdkdVersion)
		for _, n := range rep.Notes {
			if !slices.Contains(report.Notes, n) {
				report.Notes = append(report.Notes, n)
			}
		}
		var stacks []model.StackDiff
		if err := json.Unmarshal(rep.Stacks, &stacks); err != nil {
			problems = append(problems, fmt.Sprintf("shard %s's report could not be read: %v", rep.Shard.ID, err))
			continue
		}
		for _, s := range stacks {
			// A stack two shards both diffed (a dependency, say) is one
			// stack of the change set.
			if key := s.Stack + "\x00" + s.Region; !seen[key] {
				seen[key] = true
				d.Stacks = append(d.Stacks, s)
			}
		}
	}
	if len(problems) > 0 {
		report.Missing = strings.Join(problems, "; ")
	}
	return r.reportDiff(ctx, report, d)
}
