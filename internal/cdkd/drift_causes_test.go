package cdkd

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// state is a fake set of state records: stack → logical ids holding an
// ssm-secure token; a stack missing from it could not be read.
type state map[string][]string

func (s state) lookup(stack, _, id string) (bool, bool) {
	ids, ok := s[stack]
	if !ok {
		return false, false
	}
	for _, x := range ids {
		if x == id {
			return true, true
		}
	}
	return false, true
}

func TestDecideNotComparedCauses(t *testing.T) {
	unreported := func(id string) model.NotCompared {
		return model.NotCompared{Resource: model.Resource{LogicalID: id}, ReferencesUnresolved: true}
	}
	type got struct {
		Cause model.NotComparedCause
		Basis model.CauseBasis
	}
	tests := []struct {
		name   string
		stacks []model.StackDrift
		exit   int
		state  state // nil: no state could be read at all
		want   []got
	}{
		{
			name:   "exit 2, both shapes in one run: the state record tells them apart",
			stacks: []model.StackDrift{{Stack: "S", NotCompared: []model.NotCompared{unreported("Refused"), unreported("Secure")}}},
			exit:   2,
			state:  state{"S": {"Secure"}},
			want:   []got{{model.CauseRefused, model.BasisStateAndExit}, {model.CauseUnresolvedToken, model.BasisState}},
		},
		{
			name:   "exit 0, ssm-secure in state",
			stacks: []model.StackDrift{{Stack: "S", NotCompared: []model.NotCompared{unreported("Secure")}}},
			exit:   0,
			state:  state{"S": {"Secure"}},
			want:   []got{{model.CauseUnresolvedToken, model.BasisState}},
		},
		{
			name:   "exit 0, no token in state: the cause stays unreported",
			stacks: []model.StackDrift{{Stack: "S", NotCompared: []model.NotCompared{unreported("Odd")}}},
			exit:   0,
			state:  state{"S": nil},
			want:   []got{{model.CauseUnreported, model.BasisReported}},
		},
		{
			name:   "exit 1 (drift outranks): no token in state says nothing about refusal",
			stacks: []model.StackDrift{{Stack: "S", Drifted: []model.DriftedResource{{}}, NotCompared: []model.NotCompared{unreported("Odd")}}},
			exit:   1,
			state:  state{"S": nil},
			want:   []got{{model.CauseUnreported, model.BasisReported}},
		},
		{
			name:   "state unreadable, exit 0: exit-code fallback",
			stacks: []model.StackDrift{{Stack: "S", NotCompared: []model.NotCompared{unreported("A"), unreported("B")}}},
			exit:   0,
			want:   []got{{model.CauseUnresolvedToken, model.BasisExitCode}, {model.CauseUnresolvedToken, model.BasisExitCode}},
		},
		{
			name:   "state unreadable, exit 2, one entry: refused from the exit code",
			stacks: []model.StackDrift{{Stack: "S", NotCompared: []model.NotCompared{unreported("A")}}},
			exit:   2,
			want:   []got{{model.CauseRefused, model.BasisExitCode}},
		},
		{
			name:   "state unreadable, exit 2, two entries: unknown which",
			stacks: []model.StackDrift{{Stack: "S", NotCompared: []model.NotCompared{unreported("A"), unreported("B")}}},
			exit:   2,
			want:   []got{{model.CauseUnreported, model.BasisReported}, {model.CauseUnreported, model.BasisReported}},
		},
		{
			name: "one stack readable, one not: the refusal found in state explains exit 2",
			stacks: []model.StackDrift{
				{Stack: "Known", NotCompared: []model.NotCompared{unreported("R")}},
				{Stack: "Unknown", NotCompared: []model.NotCompared{unreported("X")}},
			},
			exit:  2,
			state: state{"Known": nil},
			want:  []got{{model.CauseRefused, model.BasisStateAndExit}, {model.CauseUnreported, model.BasisReported}},
		},
		{
			name: "reported causes are kept, unknown ones verbatim",
			stacks: []model.StackDrift{{Stack: "S", NotCompared: []model.NotCompared{
				{Resource: model.Resource{LogicalID: "A"}, Cause: model.CauseReadFailed},
				{Resource: model.Resource{LogicalID: "B"}, Cause: "brandNew"},
			}}},
			exit:  2,
			state: state{"S": {"A", "B"}},
			want:  []got{{model.CauseReadFailed, model.BasisReported}, {"brandNew", model.BasisReported}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := model.Drift{Stacks: tc.stacks}
			var lookup TokenLookup
			if tc.state != nil {
				lookup = tc.state.lookup
			}
			DecideNotComparedCauses(&d, tc.exit, lookup)
			var out []got
			for _, s := range d.Stacks {
				for _, nc := range s.NotCompared {
					out = append(out, got{nc.Cause, nc.CauseBasis})
					assert.Equal(t, nc.CauseInferred, nc.CauseBasis != model.BasisReported)
				}
			}
			assert.DeepEqual(t, out, tc.want)
		})
	}
}

func TestNeedsCauses(t *testing.T) {
	assert.Check(t, !NeedsCauses(model.Drift{Stacks: []model.StackDrift{{}}}))
	assert.Check(t, NeedsCauses(model.Drift{Stacks: []model.StackDrift{{NotCompared: []model.NotCompared{{}}}}}))
	assert.Check(t, !NeedsCauses(model.Drift{Stacks: []model.StackDrift{{NotCompared: []model.NotCompared{{Cause: model.CauseRefused}}}}}))
}

func TestClassifyDriftResolution(t *testing.T) {
	stderr := []string{
		"Revert plan for StackA:",
		"  ~ Queue4A7E3555 (AWS::SQS::Queue): QueueName",
		"\x1b[31m✗ StackA/Queue4A7E3555 (AWS::SQS::Queue): AWS update failed — AccessDenied\x1b[0m",
		"⊘ StackA/Lb (AWS::ElasticLoadBalancingV2::LoadBalancer): could not revert — ResourceUpdateNotSupportedError",
		"Revert summary: 1 reverted, 1 failed, 1 update-not-supported",
		"PartialFailureError: 2 resource(s) did not revert",
	}
	tests := []struct {
		name    string
		res     Result
		mode    string
		partial bool
		failed  []ResolutionFailure
		summary []string
		err     string
	}{
		{name: "accept done", mode: ResolutionAccept, res: Result{StderrTail: []string{"✓ State updated for StackA (1 resource)"}},
			summary: []string{"✓ State updated for StackA (1 resource)"}},
		{name: "revert partial failure", mode: ResolutionRevert, res: Result{ExitCode: 2, StderrTail: stderr}, partial: true,
			failed: []ResolutionFailure{
				{Resource: "StackA/Queue4A7E3555", Line: "StackA/Queue4A7E3555 (AWS::SQS::Queue): AWS update failed — AccessDenied"},
				{Resource: "StackA/Lb", Line: "StackA/Lb (AWS::ElasticLoadBalancingV2::LoadBalancer): could not revert — ResourceUpdateNotSupportedError"},
			},
			summary: []string{"Revert summary: 1 reverted, 1 failed, 1 update-not-supported"}},
		{name: "accept exit 2 is not a partial failure", mode: ResolutionAccept, res: Result{ExitCode: 2, StderrTail: []string{"Error: lock held"}}, err: "Error: lock held"},
		{name: "crash", mode: ResolutionRevert, res: Result{ExitCode: 1, StderrTail: []string{"Error: connect ECONNREFUSED"}}, err: "ECONNREFUSED"},
		{name: "cancelled", mode: ResolutionRevert, res: Result{ExitCode: -1, Cancelled: true}, err: "cancelled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.Args = []string{"drift", "--all", "--json", "--" + tc.mode, "-y"}
			r, err := ClassifyDriftResolution(tc.res, tc.mode)
			if tc.err != "" {
				var e *Error
				assert.Assert(t, errors.As(err, &e), "got %v", err)
				assert.Check(t, is.Contains(e.Reason, tc.err))
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, r.Partial, tc.partial)
			assert.DeepEqual(t, r.Failed, tc.failed)
			assert.DeepEqual(t, r.Summary, tc.summary)
		})
	}
}
