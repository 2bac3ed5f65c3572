package cdkd

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Private shapes of `cdkd drift --json`, today's and the seeds'. The four
// groups every version prints are required: a renamed group silently read
// as empty would turn "could not tell" into "clean".
type stackDriftJSON struct {
	Stack        *string            `json:"stack"`
	Region       string             `json:"region"`
	Drifted      *[]driftedJSON     `json:"drifted"`
	Clean        *[]resourceJSON    `json:"clean"`
	NotSupported *[]resourceJSON    `json:"notSupported"`
	Skipped      []resourceJSON     `json:"skipped"`
	NotCompared  *[]notComparedJSON `json:"notCompared"`
	// Unknown holds the members under names this version does not know:
	// the arrays of resources among them are kept as groups
	// (unknownGroups).
	Unknown map[string]jsontext.Value `json:",embed"`
}

type resourceJSON struct {
	LogicalID *string `json:"logicalId"`
	Type      string  `json:"type"`
}

type driftedJSON struct {
	resourceJSON
	Changes              []driftChangeJSON `json:"changes"`
	ReferencesUnresolved bool              `json:"referencesUnresolved"`
}

type driftChangeJSON struct {
	Path  *string     `json:"path"`
	State model.Value `json:"stateValue"`
	AWS   model.Value `json:"awsValue"`
}

type notComparedJSON struct {
	resourceJSON
	ReferencesUnresolved bool   `json:"referencesUnresolved"`
	Cause                string `json:"cause"`
}

// DriftRun is a drift run that produced a report. ExitCode keeps cdkd's
// verdict (0 clean, 1 drift, 2 incomplete comparison in detection mode).
type DriftRun struct {
	Drift    model.Drift
	ExitCode int
}

// DecodeDrift parses `cdkd drift --json` stdout. `skipped` and
// `notCompared[].cause` are optional (today's cdkd vs the seeds'); an unknown
// cause is kept verbatim. Stacks are sorted by name and region.
//
// Text cdkd printed after the document (a resolution's plan and summary)
// is not part of it; SplitJSON returns it.
func DecodeDrift(b []byte) (model.Drift, error) {
	doc, _ := SplitJSON(b)
	nodes, err := decodeList[stackDriftJSON](doc, "cdkd drift JSON", "stacks")
	if err != nil {
		return model.Drift{}, err
	}
	d := model.Drift{Stacks: make([]model.StackDrift, 0, len(nodes))}
	for i, n := range nodes {
		s, err := convertStackDrift(n, i)
		if err != nil {
			return model.Drift{}, fmt.Errorf("decode cdkd drift JSON: %w", err)
		}
		d.Stacks = append(d.Stacks, s)
	}
	sortDrift(&d)
	return d, nil
}

func convertStackDrift(n stackDriftJSON, i int) (model.StackDrift, error) {
	if n.Stack == nil || *n.Stack == "" {
		return model.StackDrift{}, fmt.Errorf("stack #%d: missing %q", i+1, "stack")
	}
	name := *n.Stack
	for _, f := range []struct {
		name    string
		present bool
	}{
		{"drifted", n.Drifted != nil},
		{"clean", n.Clean != nil},
		{"notSupported", n.NotSupported != nil},
		{"notCompared", n.NotCompared != nil},
	} {
		if !f.present {
			return model.StackDrift{}, fmt.Errorf("stack %q: missing %q", name, f.name)
		}
	}
	s := model.StackDrift{Stack: name, Region: n.Region, Groups: unknownGroups(n.Unknown)}
	var err error
	for j, r := range *n.Drifted {
		res, e := r.resource(name, "drifted", j)
		if e != nil {
			return s, e
		}
		dr := model.DriftedResource{Resource: res, ReferencesUnresolved: r.ReferencesUnresolved}
		for k, c := range r.Changes {
			if c.Path == nil {
				return s, fmt.Errorf("stack %q: drifted resource %q: change #%d: missing %q", name, res.LogicalID, k+1, "path")
			}
			dr.Changes = append(dr.Changes, model.DriftChange{Path: *c.Path, State: c.State, AWS: c.AWS})
		}
		s.Drifted = append(s.Drifted, dr)
	}
	if s.Clean, err = resources(*n.Clean, name, "clean"); err != nil {
		return s, err
	}
	if s.NotSupported, err = resources(*n.NotSupported, name, "notSupported"); err != nil {
		return s, err
	}
	if s.Skipped, err = resources(n.Skipped, name, "skipped"); err != nil {
		return s, err
	}
	for j, r := range *n.NotCompared {
		res, e := r.resource(name, "notCompared", j)
		if e != nil {
			return s, e
		}
		s.NotCompared = append(s.NotCompared, model.NotCompared{
			Resource:             res,
			ReferencesUnresolved: r.ReferencesUnresolved,
			Cause:                model.NotComparedCause(r.Cause),
		})
	}
	return s, nil
}

func (r resourceJSON) resource(stack, group string, i int) (model.Resource, error) {
	if r.LogicalID == nil || *r.LogicalID == "" {
		return model.Resource{}, fmt.Errorf("stack %q: %s #%d: missing %q", stack, group, i+1, "logicalId")
	}
	return model.Resource{LogicalID: *r.LogicalID, Type: r.Type}, nil
}

func resources(in []resourceJSON, stack, group string) ([]model.Resource, error) {
	var out []model.Resource
	for i, r := range in {
		res, err := r.resource(stack, group, i)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// ClassifyDrift gives a drift run its meaning. Exit 0, 1 or 2 with JSON is a
// report (1 with JSON is drift). Exit 1 without JSON is a crash — today's
// cdkd aborts the whole run on one failed read — and is "could not check",
// never drift and never clean. Errors are *Error.
func ClassifyDrift(res Result) (DriftRun, error) {
	if res.Cancelled {
		return DriftRun{}, newError(res, crashReason(res), nil)
	}
	switch res.ExitCode {
	case 0, 1, 2, model.ExitCodeUnknown: // unknown: a saved report
	default:
		return DriftRun{}, newError(res, crashReason(res), nil)
	}
	d, err := DecodeDrift(res.Stdout)
	if err != nil {
		if res.ExitCode == 0 {
			return DriftRun{}, newError(res, decodeReason(err), err)
		}
		if errors.Is(err, errNoJSON) {
			err = nil
		}
		return DriftRun{}, newError(res, crashReason(res), err)
	}
	return DriftRun{Drift: d, ExitCode: res.ExitCode}, nil
}

// sortDrift orders stacks and each group by id, so reports do not depend on
// cdkd's iteration order.
func sortDrift(d *model.Drift) {
	sortSlice(d.Stacks, func(a, b model.StackDrift) bool {
		if a.Stack != b.Stack {
			return a.Stack < b.Stack
		}
		return a.Region < b.Region
	})
	for i := range d.Stacks {
		s := &d.Stacks[i]
		sortSlice(s.Drifted, func(a, b model.DriftedResource) bool { return a.LogicalID < b.LogicalID })
		for j := range s.Drifted {
			sortSlice(s.Drifted[j].Changes, func(a, b model.DriftChange) bool { return a.Path < b.Path })
		}
		byID := func(a, b model.Resource) bool { return a.LogicalID < b.LogicalID }
		sortSlice(s.Clean, byID)
		sortSlice(s.NotSupported, byID)
		sortSlice(s.Skipped, byID)
		sortSlice(s.NotCompared, func(a, b model.NotCompared) bool { return a.LogicalID < b.LogicalID })
		for j := range s.Groups {
			sortSlice(s.Groups[j].Entries, func(a, b model.GroupEntry) bool { return a.LogicalID < b.LogicalID })
		}
	}
}

func sortSlice[T any](s []T, less func(a, b T) bool) {
	sort.SliceStable(s, func(i, j int) bool { return less(s[i], s[j]) })
}

// TokenLookup answers, from a stack's state record, whether a resource's
// recorded values hold a token. known is false when the record could not be
// read, so nothing can be said from it.
type TokenLookup func(stack, region, logicalID string) (has, known bool)

// DecideNotComparedCauses fills in the causes neither cdkd's JSON nor its
// log (ApplyLogCauses, called first) gave, per resource, from its state
// record first:
//   - the record holds a {{resolve:ssm-secure:...}} token: unresolvedToken
//     (BasisState) — permanent, whatever the exit code;
//   - it holds none and cdkd exited 2: refused (BasisStateAndExit);
//   - it holds none otherwise: the cause stays unreported, and says so.
//
// Only where the record could not be read does it fall back to the exit code
// alone, as InferNotComparedCauses does (BasisExitCode). Reported causes are
// never changed. A nil lookup means no record could be read.
func DecideNotComparedCauses(d *model.Drift, exitCode int, ssmSecure TokenLookup) {
	var unknown []*model.NotCompared
	drifted := false
	set := func(nc *model.NotCompared, c model.NotComparedCause, b model.CauseBasis) {
		nc.Cause, nc.CauseInferred, nc.CauseBasis = c, true, b
	}
	for i := range d.Stacks {
		s := &d.Stacks[i]
		if len(s.Drifted) > 0 {
			drifted = true
		}
		for j := range s.NotCompared {
			nc := &s.NotCompared[j]
			if nc.Cause != model.CauseUnreported {
				continue
			}
			has, known := false, false
			if ssmSecure != nil {
				has, known = ssmSecure(s.Stack, s.Region, nc.LogicalID)
			}
			switch {
			case !known:
				unknown = append(unknown, nc)
			case has:
				set(nc, model.CauseUnresolvedToken, model.BasisState)
			case exitCode == 2:
				set(nc, model.CauseRefused, model.BasisStateAndExit)
			}
		}
	}
	switch {
	case exitCode == 0:
		for _, nc := range unknown {
			set(nc, model.CauseUnresolvedToken, model.BasisExitCode)
		}
	case exitCode == 2 && !drifted && len(unknown) == 1 && !anyRefused(d):
		set(unknown[0], model.CauseRefused, model.BasisExitCode)
	}
}

func anyRefused(d *model.Drift) bool {
	for _, s := range d.Stacks {
		for _, nc := range s.NotCompared {
			if nc.Cause == model.CauseRefused || nc.Cause == model.CauseReadFailed {
				return true
			}
		}
	}
	return false
}

// NeedsCauses reports whether any not-compared entry lacks a cause, so the
// state records are worth reading.
func NeedsCauses(d model.Drift) bool {
	for _, s := range d.Stacks {
		for _, nc := range s.NotCompared {
			if nc.Cause == model.CauseUnreported {
				return true
			}
		}
	}
	return false
}

// DriftResolution is what `cdkd drift --accept|--revert -y --json` did. With
// these flags exit 0 means the run completed, not that everything was
// compared; the detection run keeps that answer.
type DriftResolution struct {
	// Mode is ResolutionAccept or ResolutionRevert.
	Mode     string
	ExitCode int
	// Partial is --revert's exit 2: some resources did not revert.
	Partial bool
	// Failed are the resources cdkd named as not resolved (its ✗ and ⊘ lines).
	Failed []ResolutionFailure
	// Summary are cdkd's own summary lines ("✓ State updated", "Revert
	// summary: ...", "Comparison INCOMPLETE"), ANSI-stripped. Like every
	// cdkd line they may hold a secret: redact before showing.
	Summary []string
	// Output is everything cdkd's text says, per resource: read from the
	// text after the JSON on stdout (today's cdkd) and from stderr (the
	// seed's). Redact before showing.
	Output ResolutionOutput
}

// ResolutionFailure is one resource a resolution left unresolved.
type ResolutionFailure struct {
	// Resource is "Stack/LogicalId" as cdkd printed it ("" when the line
	// names none in that shape).
	Resource string
	// Line is cdkd's line, glyph removed.
	Line string
}

// ClassifyDriftResolution gives a resolution run its meaning: exit 0 done;
// exit 2 under --revert a partial failure (PartialFailureError); anything
// else *Error. What happened to each resource is read from cdkd's lines,
// on stdout after the JSON document and on stderr alike.
func ClassifyDriftResolution(res Result, mode string) (DriftResolution, error) {
	r := DriftResolution{Mode: mode, ExitCode: res.ExitCode}
	if res.Cancelled {
		return r, newError(res, crashReason(res), nil)
	}
	_, text := SplitJSON(res.Stdout)
	r.Output = ParseResolution(append(text, res.StderrTail...), mode)
	r.Summary = r.Output.Summary
	for _, l := range append(text, res.StderrTail...) {
		line := strings.TrimSpace(StripANSI(l))
		if strings.HasPrefix(line, "✗") || strings.HasPrefix(line, "⊘") {
			text := strings.TrimSpace(strings.TrimLeft(line, "✗⊘ "))
			r.Failed = append(r.Failed, ResolutionFailure{Resource: failedResource(text), Line: text})
		}
	}
	switch {
	case res.ExitCode == 0:
		return r, nil
	case res.ExitCode == 2 && mode == ResolutionRevert:
		r.Partial = true
		return r, nil
	}
	return r, newError(res, crashReason(res), nil)
}

// failedResource reads "Stack/LogicalId" from "Stack/LogicalId (Type): ...".
func failedResource(text string) string {
	name, _, ok := strings.Cut(text, " (")
	if !ok {
		name, _, _ = strings.Cut(text, ":")
	}
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t") {
		return ""
	}
	return name
}
