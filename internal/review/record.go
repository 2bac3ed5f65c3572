package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// record reads what the diff command's check run on commit sha recorded
// (gate.DiffMarker in its external ID). A comment can be edited by anyone
// with write access (GitHub keeps its author), a check run cannot be edited
// in GitHub's UI. Nil when there is none.
func (s *Finder) record(ctx context.Context, sha string) (*gate.Record, error) {
	name := s.Where.DiffCheck
	newest, err := s.newestCheckRun(ctx, sha, name)
	if err != nil {
		return nil, fmt.Errorf("read the diff check runs on %s to verify the review: %w", reporters.ShortSHA(sha), err)
	}
	if newest == nil {
		return nil, nil
	}
	rec, _ := gate.ParseDiffMarker(newest.ExternalID)
	rec.Name, rec.URL = name, newest.HTMLURL
	return &rec, nil
}

// newestCheckRun is the newest check run named name on commit sha created
// by the trusted app (input trusted-app); check runs of any other app, or
// of none, are named in the log and never count. Nil when there is none.
func (s *Finder) newestCheckRun(ctx context.Context, sha, name string) (*github.CheckRunInfo, error) {
	if sha == "" {
		return nil, nil
	}
	runs, err := s.API.ListCheckRunsForRef(ctx, s.Where.Owner, s.Where.Repo, sha, name)
	if err != nil {
		return nil, err
	}
	app := s.Where.TrustedApp
	if app == "" {
		app = config.DefaultTrustedApp
	}
	var newest *github.CheckRunInfo
	for i, cr := range runs {
		if cr.Name != name || cr.HeadSHA != "" && cr.HeadSHA != sha {
			continue
		}
		if !strings.EqualFold(cr.AppSlug, app) {
			by := "by the app " + cr.AppSlug
			if cr.AppSlug == "" {
				by = "by no app"
			}
			s.Warn(fmt.Sprintf("ignored check run %s: it is named %q but was created %s, not %s (input trusted-app); it is not trusted as a record of the review",
				cr.HTMLURL, name, by, app))
			continue
		}
		if newest == nil || cr.ID > newest.ID {
			newest = &runs[i]
		}
	}
	return newest, nil
}

// deploySection checks the deploy section of review comment c, the one
// part written after the review: only a deploy of this commit writes one,
// and its check run records which. "" when that record vouches for it,
// else why not.
func (s *Finder) deploySection(ctx context.Context, c *github.Comment, section string) string {
	sha := s.Where.SHA
	newest, err := s.newestCheckRun(ctx, sha, s.Where.DeployCheck)
	if err != nil {
		return fmt.Sprintf("its deploy section cannot be verified (reading the deploy check runs on %s failed: %v)", reporters.ShortSHA(sha), err)
	}
	if newest != nil {
		if id, hash, ok := gate.ParseDeployMarker(newest.ExternalID); ok && id == c.ID && hash == prcomment.ReportHash(section) {
			return ""
		}
	}
	return fmt.Sprintf("it carries a deploy section that no deploy of %s wrote (the newest \"cdkd deploy\" check run of the trusted app does not record it)", reporters.ShortSHA(sha))
}
