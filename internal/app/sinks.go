package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// cdkdRunner runs cdkd in the working directory with the live renderer off.
func (r *run) cdkdRunner() *cdkd.Runner {
	return &cdkd.Runner{Path: r.cfg.CdkdPath, Dir: r.cfg.WorkingDirectory}
}

// runCdkd streams cdkd's stderr to the log, redacted line by line and inside
// stop-commands, so a template or state value cannot issue workflow commands.
func (r *run) runCdkd(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	stream := secrets.NewLineWriter(r.out, r.set)
	runner.Stderr = stream
	r.runner.Group("cdkd " + strings.Join(args, " "))
	resume := r.runner.StopCommands()
	res, err := runner.Run(ctx, args...)
	stream.Close()
	resume()
	r.runner.EndGroup()
	return res, err
}

// positions gives the redactor the assembly's secret positions, if any.
func (r *run) positions() discover.Positions {
	if r.asm == nil {
		return nil
	}
	return r.asm
}

// fullReportHint says where the unabridged report lives when a channel's
// budget forced a shorter one.
func (r *run) fullReportHint() string {
	if r.gh.RunURL != "" {
		return fmt.Sprintf("the job summary of [this run](%s) and the report JSON file", r.gh.RunURL)
	}
	return "the job summary and the report JSON file"
}

// writeReportJSON writes the redacted, normalized report and returns its path.
func (r *run) writeReportJSON(kind string, v any) (string, error) {
	dir := r.gh.RunnerTemp
	if dir == "" {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "cdkd-action")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	name := kind
	if r.cfg.Label != "" {
		name += "-" + safeFileName(r.cfg.Label)
	}
	path := filepath.Join(dir, name+".json")
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode %s report: %w", kind, err)
	}
	b = append(r.set.RedactBytes(b), '\n')
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

func safeFileName(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			return c
		}
		return '_'
	}, s)
}

// login is the identity our comments and issues are written by, the only
// one whose hidden headers we trust: the bot-login input, else GET /user,
// else github-actions[bot] (the GITHUB_TOKEN cannot read /user). It is asked
// once per run.
func (r *run) login(ctx context.Context) string {
	if r.identity != "" {
		return r.identity
	}
	if r.cfg.BotLogin != "" {
		r.identity = r.cfg.BotLogin
		return r.identity
	}
	r.identity = github.ActionsBotLogin
	switch login, err := r.api.AuthenticatedLogin(ctx); {
	case err == nil && login != "":
		r.identity = login
	case err != nil && !errors.Is(err, github.ErrNoIdentity):
		r.runner.Warning(fmt.Sprintf("could not read the token's identity, assuming %s: %v", github.ActionsBotLogin, err))
	}
	return r.identity
}

// upsertComment writes the sticky comment for the current pull request:
// hidden header first, then a body rendered within what is left of
// GitHub's 65,536-character limit.
func (r *run) upsertComment(ctx context.Context, h github.Header, render func(reporters.Budget) string) (string, error) {
	head := h.String() + "\n"
	// Redacted here too (not only at the API edge) so that "unchanged, skip
	// the write" compares what GitHub holds with what we would write.
	body := r.set.Redact(head + render(reporters.CommentBudget))
	mode := github.ModeUpdate
	if r.cfg.Comment == config.CommentRecreate {
		mode = github.ModeRecreate
	}
	t := github.StickyTarget{Owner: r.gh.Owner, Repo: r.gh.Repo, Number: r.gh.PR.Number, Kind: h.Kind, Label: h.Label, Author: r.login(ctx)}
	res, err := github.Upsert(ctx, r.api, t, body, mode)
	for _, c := range res.Ignored {
		r.runner.Warning(fmt.Sprintf("ignored comment %s by %s: it carries cdkd-action's header but was not written by %s (possible spoof)", c.HTMLURL, c.AuthorLogin, t.Author))
	}
	if err != nil {
		return "", fmt.Errorf("write pull request comment: %w", err)
	}
	return res.URL, nil
}

func (r *run) createCheckRun(ctx context.Context, cr github.CheckRun) (string, error) {
	ref, err := r.api.CreateCheckRun(ctx, r.gh.Owner, r.gh.Repo, cr)
	if err != nil {
		return "", err
	}
	return ref.HTMLURL, nil
}

// cdkJSONStateBucket reads context.cdkd.stateBucket from cdk.json, if any.
func cdkJSONStateBucket(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var f struct {
		Context struct {
			Cdkd struct {
				StateBucket string `json:"stateBucket"`
			} `json:"cdkd"`
		} `json:"context"`
	}
	if json.Unmarshal(b, &f) != nil {
		return ""
	}
	return f.Context.Cdkd.StateBucket
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mdText(s string) string { return reporters.Text(s) }
