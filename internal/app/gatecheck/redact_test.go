package gatecheck

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// deployReportFixture sets every field of a deploy report, one secret in
// each string cdkd or the gate wrote.
func deployReportFixture(secret string) reporters.DeployReport {
	return reporters.DeployReport{
		Label: "prod", Outcome: reporters.OutcomeFailed, Title: "failed " + secret, Message: "cdkd said " + secret,
		Reason: reason.DeployFailed.String(), SHA: "abc123", RunURL: "https://example.com/run", CdkdVersion: "0.284.40",
		CdkdSource: "bundled", Digest: "sha256:d", PR: 7, ReviewedSHA: "def456", ReviewURL: "https://example.com/c", Reviewed: true,
		Warnings:       []string{"warning " + secret},
		Comparison:     &model.Comparison{Items: []model.ItemDelta{{Stack: "App", Name: "Q", Type: "AWS::SQS::Queue"}}, Detailed: true},
		ComparisonNote: "note " + secret,
		Destructive:    []reporters.DestructiveChange{{Stack: "App", LogicalID: "Q", Type: "AWS::SQS::Queue", Action: model.ActionReplace}},
		Lock:           &reporters.DeployLock{Stack: "App", Owner: "owner " + secret, Unlock: "cdkd force-unlock App"},
		Stacks: []reporters.DeployedStack{
			{Stack: "App", Region: "us-east-1", Resources: []reporters.DeployedResource{{LogicalID: "Q", Type: "AWS::SQS::Queue", Result: "failed", Error: "error " + secret}},
				Outputs: []reporters.StackOutput{{Name: "Url", Value: "https://" + secret}, {Name: "Token", Value: "token-value-1", Secret: true}}},
			{Stack: "Empty", Outputs: []reporters.StackOutput{}},
			{Stack: "Unread"},
		},
		StderrTail:     []string{"Error: " + secret},
		FullReportHint: "the job summary",
		Group:          &model.GroupCheck{Branch: "main", PullRequests: []model.GroupPullRequest{{Number: 7, Reason: "stale-review", Problem: "problem " + secret}}},
	}
}

// The deploy's stage keeps every field of its report (a field the typed
// result does not carry would be lost between the deploy and its report),
// redacts cdkd's and the gate's words, hides secret outputs, and takes the
// stack-outputs output from what it redacted: an entry per stack whose
// outputs were read.
func TestDeployRedactStage(t *testing.T) {
	const secret = "deploy-stage-secret-1"
	fixture := deployReportFixture(secret)
	v := reflect.ValueOf(fixture)
	for i := range v.NumField() {
		assert.Assert(t, !v.Field(i).IsZero(), "the fixture sets every field; set %s", v.Type().Field(i).Name)
	}
	run := func(values ...string) *Check {
		o := testOptions(io.Discard, config.Config{})
		for _, v := range values {
			o.Secrets.Set.Add(v, "test")
		}
		d := &Check{Opts: &o, Rep: deployReportFixture(secret)}
		d.Redact()
		return d
	}

	d := run()
	want := deployReportFixture(secret)
	want.Stacks[0].Outputs[1].Value = model.Hidden
	assert.DeepEqual(t, d.Rep, want)
	assert.DeepEqual(t, d.Outputs, map[string]map[string]string{"App": {"Url": "https://" + secret, "Token": model.Hidden}, "Empty": {}})

	d = run(secret)
	b := strings.Join([]string{d.Rep.Title, d.Rep.Message, d.Rep.Warnings[0], d.Rep.ComparisonNote, d.Rep.Lock.Owner,
		d.Rep.Stacks[0].Resources[0].Error, d.Rep.Stacks[0].Outputs[0].Value, d.Rep.StderrTail[0], fmt.Sprint(d.Outputs),
		d.Rep.Group.PullRequests[0].Problem}, "\n")
	assert.Assert(t, !strings.Contains(b, secret), b)
	assert.Equal(t, strings.Count(b, secrets.Replacement), 11, b)
}
