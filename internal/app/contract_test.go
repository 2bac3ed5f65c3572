package app

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	cdkdaction "github.com/cdkd-action/cdkd-action"
)

// Every output the code sets is declared in action.yml and the other way
// round: a typo in a name would silently set an output no workflow can read.
func TestOutputsMatchActionYAML(t *testing.T) {
	var f struct {
		Outputs map[string]any `yaml:"outputs"`
	}
	assert.NilError(t, yaml.Unmarshal(cdkdaction.ActionYAML, &f))
	declared := slices.Sorted(func(yield func(string) bool) {
		for k := range f.Outputs {
			if !yield(k) {
				return
			}
		}
	})
	assert.DeepEqual(t, slices.Sorted(slices.Values(outputNames)), declared)

	// And the code names them by constant only.
	files, err := filepath.Glob("*.go")
	assert.NilError(t, err)
	literal := regexp.MustCompile(`setOutput\("`)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		assert.NilError(t, err)
		assert.Assert(t, !literal.Match(b), "%s sets an output by a string literal; use the Output constants", name)
	}
}

// Each failure reason ends the step with its own exit code, and the inputs
// reference (docs/inputs.md) documents every reason a workflow can branch on.
func TestFailureReasonCodes(t *testing.T) {
	want := map[FailureReason]ExitCode{
		ReasonNone: ExitOK, ReasonBadInput: ExitBadInput,
		ReasonChanges: ExitChanges, ReasonDrift: ExitChanges, ReasonIncomplete: ExitChanges,
		ReasonNoReviewedDiff: ExitChanges, ReasonStaleReview: ExitChanges, ReasonDiffChanged: ExitChanges, ReasonDestructiveRefused: ExitChanges,
		ReasonDiffUnverifiable: ExitChanges, ReasonKeyMismatch: ExitChanges, ReasonReviewsContradict: ExitChanges, ReasonApprovalsMissing: ExitChanges, ReasonBroadeningRefused: ExitChanges,
		ReasonCdkdFailed: ExitFailure, ReasonAPIFailed: ExitFailure, ReasonResolutionFailed: ExitFailure,
		ReasonStateLocked: ExitFailure, ReasonDeployFailed: ExitFailure, ReasonPartial: ExitFailure, ReasonCancelled: ExitFailure, ReasonTimeout: ExitFailure, ReasonShardFailed: ExitFailure,
		ReasonReportNotWritten: ExitFailure,
	}
	assert.Equal(t, len(want), len(failureReasons)+1, "a reason is missing from this table or from failureReasons")
	readme, err := os.ReadFile("../../docs/inputs.md")
	assert.NilError(t, err)
	for _, reason := range failureReasons {
		assert.Equal(t, reason.Code(), want[reason], "exit code of %s", reason)
		assert.Assert(t, is.Contains(string(readme), "`"+reason.String()+"`"), "docs/inputs.md does not document failure-reason %s", reason)
	}
	assert.Equal(t, ReasonNone.Code(), ExitOK)
}
