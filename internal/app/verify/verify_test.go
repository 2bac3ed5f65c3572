package verify

import (
	"bytes"
	"context"
	"io"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// group is a merge group's event: pull request 7 queued onto main.
var group = &ghctx.MergeGroup{HeadSHA: "0123456789abcdef0123456789abcdef01234567", BaseRef: "refs/heads/main",
	HeadRef: "refs/heads/gh-readonly-queue/main/pr-7-fedcba9876543210fedcba9876543210fedcba98"}

// verify runs only on a merge group's event, whose payload names the
// group's head and the branch it merges into.
func TestCheckEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		gh   ghctx.Context
		msg  string // "" when verify runs
	}{
		{name: "a merge group", gh: ghctx.Context{EventName: "merge_group", MergeGroup: group}},
		{name: "a push", gh: ghctx.Context{EventName: "push"}, msg: "this run was started by push"},
		{name: "no event", msg: "this run was started by no event"},
		{name: "a group without its head", gh: ghctx.Context{EventName: "merge_group", MergeGroup: &ghctx.MergeGroup{BaseRef: "refs/heads/main"}},
			msg: "this run was started by merge_group"},
		{name: "a group into no branch", gh: ghctx.Context{EventName: "merge_group", MergeGroup: &ghctx.MergeGroup{HeadSHA: group.HeadSHA, BaseRef: "main"}},
			msg: "this run was started by merge_group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckEvent(config.Config{}, tc.gh)
			if tc.msg == "" {
				assert.NilError(t, err)
				return
			}
			assert.Assert(t, config.IsInputError(err))
			assert.ErrorContains(t, err, "input command: verify checks a merge queue's group and runs on a merge_group event (on: merge_group)")
			assert.ErrorContains(t, err, tc.msg)
		})
	}
}

// A group none of whose pull requests has a review is refused, before
// any cdkd runs, and the report says so of the group: its head and
// branch, no pull request of its own.
func TestGroupWithoutAReviewIsRefused(t *testing.T) {
	cfg := config.Config{RequireReviewedDiff: true, TrustedApp: config.DefaultTrustedApp, DestructiveLabel: "allow-destroy", Comment: config.CommentUpdate}
	gh := ghctx.Context{EventName: "merge_group", SHA: group.HeadSHA, MergeGroup: group}
	getenv := func(string) string { return "" }
	var stdout bytes.Buffer
	p := parts.New(parts.Setup{Getenv: getenv, LogOut: io.Discard, Stdout: &stdout}, &cfg, &gh)
	p.SetLocal(true)
	o := Run(context.Background(), gatecheck.OptionsOf(p, cfg, gh, true))
	assert.Equal(t, o.Reason, reason.NoReviewedDiff, o.Message)
	for _, want := range []string{"### cdkd merge queue", "**Group refused: No reviewed diff** at `0123456`", "Pull requests in the group (into `main`)"} {
		assert.Assert(t, is.Contains(stdout.String(), want))
	}
	assert.Equal(t, p.Channels.Output("digest"), "") // no change set was computed
}
