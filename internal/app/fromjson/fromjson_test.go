package fromjson

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// savedDiff is real cdkd diff --json output (testdata/fixtures/README.md).
const savedDiff = "../../../testdata/fixtures/diff-v2.json"

// write puts content in a file of its own and returns its path.
func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "from.json")
	assert.NilError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// diffReport is the report JSON a diff of the saved cdkd diff writes.
func diffReport(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(savedDiff)
	assert.NilError(t, err)
	d, err := cdkd.DecodeDiff(b)
	assert.NilError(t, err)
	out, err := json.Marshal(model.NewDiffResult(model.Origin{Label: "prod"}, "abc123", d.Digest(), d))
	assert.NilError(t, err)
	return write(t, string(out))
}

// localChannels are a local run's channels, the report on stdout.
func localChannels(set *secrets.Set, stdout io.Writer) *publisher.Channels {
	getenv := func(string) string { return "" }
	return &publisher.Channels{Config: &config.Config{}, GitHub: &ghctx.Context{}, Local: true, Log: workflow.New(io.Discard, getenv),
		Secrets: set, Stdout: stdout, Fallback: io.Discard, Getenv: getenv}
}

func TestFileReadsTheSavedDiff(t *testing.T) {
	for _, command := range []config.Command{config.CommandDiff, config.CommandDrift} {
		t.Run(string(command), func(t *testing.T) {
			// diff decodes while the assembly loads, any other command
			// when it asks: both give the same diff.
			d, err := Open(savedDiff, command).Diff()
			assert.NilError(t, err)
			assert.Assert(t, len(d.Stacks) > 0)
			assert.Equal(t, d.Stacks[0].Stack, "StackA")
		})
	}
}

func TestFileRefusals(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing.json")
	for _, tc := range []struct {
		name, path string
		input, msg string // "" input: not an input error
	}{
		{name: "no such file", path: missing, msg: "read from-json " + missing},
		{name: "not cdkd's diff", path: write(t, `[{"stack": 3}]`), input: "from-json", msg: "expected cdkd diff --json output in"},
		{name: "not JSON", path: write(t, `nope`), input: "from-json", msg: "expected cdkd diff --json output in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.path, config.CommandDiff).Diff()
			assert.ErrorContains(t, err, tc.msg)
			assert.Equal(t, config.IsInputError(err), tc.input != "")
		})
	}
}

// A report JSON is rendered again, whole, as the command that wrote it;
// cdkd's own JSON is left to the command; anything else is bad input.
func TestRender(t *testing.T) {
	report := diffReport(t)
	for _, tc := range []struct {
		name    string
		path    string
		command config.Command
		stacks  []string
		done    bool
		input   string // the input an error names; "" for none
		msg     string
	}{
		{name: "cdkd's diff, for the diff to read", path: savedDiff, command: config.CommandDiff},
		{name: "cdkd's drift, for the drift to read", path: write(t, `[]`), command: config.CommandDrift},
		{name: "cdkd's diff given to deploy", path: savedDiff, command: config.CommandDeploy, done: true, input: "from-json", msg: "deploy always runs cdkd"},
		{name: "a report with stacks", path: report, command: config.CommandDiff, stacks: []string{"StackA"}, done: true, input: "stacks", msg: "rendered whole"},
		{name: "a report of another command", path: report, command: config.CommandDrift, done: true, input: "from-json", msg: "it holds a diff report; run with command: diff"},
		{name: "a newer report", path: write(t, `{"schemaVersion": 99, "kind": "diff"}`), command: config.CommandDiff, done: true, input: "from-json", msg: "is newer than this cdkd-action reads"},
		{name: "a report of no kind known", path: write(t, `{"schemaVersion": 1, "kind": "plan"}`), command: config.CommandDiff, done: true, input: "from-json", msg: `report kind "plan" is not`},
		{name: "a report that does not decode", path: write(t, `{"schemaVersion": 1, "kind": "drift", "stacks": 3}`), command: config.CommandDrift, done: true, input: "from-json", msg: "cannot render"},
		{name: "a diff report", path: report, command: config.CommandDiff, done: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done, err := Open(tc.path, tc.command).Render(tc.command, tc.stacks, secrets.NewSet(), localChannels(secrets.NewSet(), io.Discard))
			assert.Equal(t, done, tc.done)
			if tc.input == "" {
				assert.NilError(t, err)
				return
			}
			assert.ErrorContains(t, err, "input "+tc.input+": ")
			assert.ErrorContains(t, err, tc.msg)
		})
	}
}

// A report is redacted again with this run's secrets before it is shown,
// and sets the outputs the run that wrote it set.
func TestRenderRedactsWithThisRunsSecrets(t *testing.T) {
	set := secrets.NewSet()
	set.Add("fixture-topic-v2", "mask-values line 1")
	var stdout bytes.Buffer
	channels := localChannels(set, &stdout)
	done, err := Open(diffReport(t), config.CommandDiff).Render(config.CommandDiff, nil, set, channels)
	assert.NilError(t, err)
	assert.Assert(t, done)
	assert.Assert(t, is.Contains(stdout.String(), "TopicBFC7AF6E"))
	assert.Assert(t, !strings.Contains(stdout.String(), "fixture-topic-v2"), stdout.String())
	assert.Equal(t, channels.Output(reporters.OutputHasChanges), "true")
}

func TestSelectSaved(t *testing.T) {
	diff := func(names ...string) *model.Diff {
		d := &model.Diff{}
		for _, n := range names {
			d.Stacks = append(d.Stacks, model.StackDiff{Stack: n})
		}
		return d
	}
	stacks := func(d *model.Diff) []string {
		var out []string
		for _, s := range d.Stacks {
			out = append(out, s.Stack)
		}
		return out
	}
	d := diff("B", "A", "C")
	assert.NilError(t, SelectDiff("saved.json", nil, d))
	assert.DeepEqual(t, stacks(d), []string{"B", "A", "C"}) // none named: every stack

	d = diff("B", "A", "C")
	assert.NilError(t, SelectDiff("saved.json", []string{"C", "B"}, d))
	assert.DeepEqual(t, stacks(d), []string{"B", "C"}) // the report's order

	err := SelectDiff("saved.json", []string{"Nope"}, diff("A"))
	assert.ErrorContains(t, err, "input stacks: with from-json saved.json: ")

	drift := &model.Drift{Stacks: []model.StackDrift{{Stack: "A"}, {Stack: "B"}}}
	assert.NilError(t, SelectDrift("saved.json", []string{"B"}, drift))
	assert.Equal(t, len(drift.Stacks), 1)
	assert.Equal(t, drift.Stacks[0].Stack, "B")
}
