package review

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// records reads what the diff command's check runs on commit sha recorded
// (gate.DiffRecord in their external IDs), newest first. A comment can be
// edited by anyone with write access (GitHub keeps its author), a check run
// cannot be edited in GitHub's UI. Empty when there is none; an error when
// the check runs could not be read, which is not "no record".
func (s *Finder) records(ctx context.Context, sha string) ([]gate.Record, error) {
	name := s.Where.DiffCheck
	runs, err := s.trustedRuns(ctx, sha, name)
	if err != nil {
		return nil, fmt.Errorf("read the diff check runs on %s to verify the review: %w", reporters.ShortSHA(sha), err)
	}
	out := make([]gate.Record, 0, len(runs))
	for _, cr := range runs {
		rec, _ := gate.ParseDiffRecord(cr.ExternalID)
		rec.Name, rec.URL, rec.CompletedAt = name, cr.HTMLURL, cr.CompletedAt
		out = append(out, rec)
	}
	return out, nil
}

// trustedRuns are the check runs named name on commit sha created by the
// trusted app (input trusted-app), newest first; check runs of any other
// app, or of none, are named in the log and never count.
func (s *Finder) trustedRuns(ctx context.Context, sha, name string) ([]CheckRun, error) {
	if sha == "" {
		return nil, nil
	}
	runs, err := s.API.ListCheckRunsForRef(ctx, sha, name)
	if err != nil {
		return nil, err
	}
	app := s.Where.TrustedApp
	if app == "" {
		app = config.DefaultTrustedApp
	}
	var out []CheckRun
	for _, cr := range runs {
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
		out = append(out, cr)
	}
	slices.SortStableFunc(out, func(a, b CheckRun) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

// deploySection checks the deploy section of review comment c, the one
// part written after the review: only a deploy of this commit writes one,
// and it records the section in its check run before it writes it (see
// the deploy's publication), so every section a deploy of this commit
// wrote — or may have written, its answer lost — is vouched for by one of
// them. "" when a record vouches for it, else why not; an error when the
// deploy check runs could not be read.
func (s *Finder) deploySection(ctx context.Context, c *Comment, section string) (string, error) {
	sha := s.Where.SHA
	runs, err := s.trustedRuns(ctx, sha, s.Where.DeployCheck)
	if err != nil {
		return "", fmt.Errorf("read the deploy check runs on %s to verify the review comment's deploy section: %w", reporters.ShortSHA(sha), err)
	}
	hash := prcomment.ReportHash(section)
	for _, cr := range runs {
		if id, h, ok := gate.ParseDeployRecord(cr.ExternalID); ok && id == c.ID && h == hash {
			return "", nil
		}
	}
	return fmt.Sprintf("it carries a deploy section that no deploy of %s wrote (no \"%s\" check run of the trusted app records it)", reporters.ShortSHA(sha), s.Where.DeployCheck), nil
}
