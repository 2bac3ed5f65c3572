// Package securitystage fills a redacted diff's security rows (package
// security) with the values they compare: an update's from the diff
// itself, a created resource's from the cloud assembly, a deleted one's
// from cdkd's state. What it reads outside the diff is redacted before it
// is read. The diff and the deploy gate run it alike, so the rows are the
// same on both sides of the digest.
package securitystage

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/par"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// Stage is what the security stage reads, named: the cloud assembly (nil
// without one), the redactor, and cdkd's state of a stack, read for the
// resources a deploy deletes (why says why it could not be).
type Stage struct {
	Assembly *assembly.Assembly
	Secrets  *secrets.Set
	State    func(ctx context.Context, name, region string) (state *cdkd.StackState, why string)
}

// Changes fills each stack's Security rows of d, a redacted diff.
//
// Stacks are independent (each reads its own template and state), so they
// are worked on one per core: the stage is a large part of a diff of
// thousands of policies.
func (st Stage) Changes(ctx context.Context, d *model.Diff) {
	type job struct {
		s          *model.StackDiff
		name, path string
	}
	var jobs []job
	var walk func(stacks []model.StackDiff, parent, shown string)
	walk = func(stacks []model.StackDiff, parent, shown string) {
		for i := range stacks {
			s := &stacks[i]
			name, path := s.Stack, s.Stack
			if parent != "" {
				// A nested stack is named after its parent in the assembly
				// and the state, unless cdkd already names it so.
				path = shown + "/" + s.Stack
				if _, known := st.asmStack(s.Stack, s.Region); !known {
					name = parent + "~" + s.Stack
				}
			}
			jobs = append(jobs, job{s, name, path})
			walk(s.Children, name, path)
		}
	}
	walk(d.Stacks, "", "")
	// Every stack gets its rows, even once ctx is done: a missing row would
	// read as "no security change" (a state read then says why it failed).
	par.Each(len(jobs), func(i int) {
		j := jobs[i]
		j.s.Security = st.rows(ctx, j.s, j.name, j.path)
	})
}

// rows is one stack's security rows, each resource compared as soon as
// its values are gathered.
func (st Stage) rows(ctx context.Context, s *model.StackDiff, name, path string) []security.Change {
	var rows []security.Change
	st.resources(ctx, s, name, path, func(res security.Resource) { rows = security.AppendChanges(rows, res) })
	return rows
}

// resources gathers the values of one stack's scrutinized changes, handing
// each resource to add.
func (st Stage) resources(ctx context.Context, s *model.StackDiff, name, path string, add func(security.Resource)) {
	var (
		tmpl      map[string]assembly.Resource
		tmplWhy   string
		tmplRead  bool
		state     *cdkd.StackState
		stateWhy  string
		stateRead bool
		account   string
	)
	template := func() (map[string]assembly.Resource, string) {
		if !tmplRead {
			tmplRead = true
			tmpl, tmplWhy = st.templateResources(name, s.Region)
		}
		return tmpl, tmplWhy
	}
	if stack, ok := st.asmStack(name, s.Region); ok {
		account = stack.Account // for a role's trust
	}
	// The maps a change's values are gathered in serve every change of
	// the stack, emptied each time: add keeps none of them
	// (security.AppendChanges), and a map is mostly its first allocation.
	oldVals, newVals := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	emptied := func(m map[string]json.RawMessage) map[string]json.RawMessage {
		clear(m)
		return m
	}
	for _, ch := range s.Changes {
		if !security.Scrutinized(ch.ResourceType) {
			continue
		}
		// A resource none of whose properties security reads has no rows
		// (security.Reads): it is skipped before its values are gathered,
		// redacted or decoded. A side that cannot be read is never
		// skipped: it is a row of its own.
		reads := security.ReadsOf(ch.ResourceType)
		res := security.Resource{Stack: path, Region: s.Region, Account: account, LogicalID: ch.LogicalID, Type: ch.ResourceType}
		switch ch.ChangeType {
		case model.ChangeCreate:
			if len(ch.PropertyChanges) > 0 {
				if reads.NoneChanged(ch.PropertyChanges) {
					continue
				}
				// The change set binds its properties (redacted, hidden
				// values hidden): read them from there, as for an update.
				res.New = emptied(newVals)
				res.FromChanges(ch.PropertyChanges)
				break
			}
			t, why := template()
			if tr, ok := t[ch.LogicalID]; ok && why == "" {
				if reads.None(tr.Properties) {
					continue
				}
				res.New = st.redactProps(emptied(newVals), tr.Properties)
			} else {
				res.NewUnknown = firstOf(why, "the cloud assembly has no resource "+ch.LogicalID)
			}
		case model.ChangeDelete:
			if !security.NeedsOldValues(ch.ResourceType) {
				// Deleting it only takes away: its rows would show what the
				// resource list already says, at the cost of a state read.
				continue
			}
			if !stateRead {
				stateRead = true
				state, stateWhy = st.State(ctx, name, s.Region)
			}
			if sr, ok := stateResource(state, ch.LogicalID); ok {
				if reads.None(sr) {
					continue
				}
				res.Old = st.redactProps(emptied(oldVals), sr)
			} else {
				res.OldUnknown = firstOf(stateWhy, "cdkd's state has no resource "+ch.LogicalID)
			}
		case model.ChangeUpdate:
			if reads.NoneChanged(ch.PropertyChanges) {
				continue // a whole-resource type reads every property: never skipped
			}
			res.Old, res.New = emptied(oldVals), emptied(newVals)
			if security.WholeResource(ch.ResourceType) {
				// Its elements are built from every property: the
				// unchanged ones are the template's, on both sides.
				t, why := template()
				if tr, ok := t[ch.LogicalID]; ok && why == "" {
					maps.Copy(res.New, st.redactProps(res.Old, tr.Properties))
				} else {
					res.Partial = "its unchanged properties are not known (" + firstOf(why, "not in the cloud assembly") + ")"
				}
			}
			res.FromChanges(ch.PropertyChanges)
		default:
			res.NewUnknown = "cdkd's change type " + string(ch.ChangeType) + " is not one cdkd-action knows"
		}
		add(res)
	}
}

// templateResources reads a stack's template from the cloud assembly; why
// says why it could not.
func (st Stage) templateResources(name, region string) (map[string]assembly.Resource, string) {
	if st.Assembly == nil {
		return nil, "no cloud assembly was given (set app to a synthesized cdk.out)"
	}
	stack, ok := st.asmStack(name, region)
	if !ok {
		return nil, "the cloud assembly has no stack " + name
	}
	if stack.Unknown != "" {
		return nil, stack.Unknown
	}
	res, err := stack.ReadResources()
	if err != nil {
		return nil, err.Error()
	}
	return res, ""
}

// asmStack finds a stack in the cloud assembly, if there is one.
func (st Stage) asmStack(name, region string) (assembly.Stack, bool) {
	if st.Assembly == nil {
		return assembly.Stack{}, false
	}
	return st.Assembly.StackIn(name, region)
}

func stateResource(s *cdkd.StackState, id string) (map[string]json.RawMessage, bool) {
	if s == nil {
		return nil, false
	}
	sr, ok := s.Resources[id]
	if !ok {
		return nil, false
	}
	var props map[string]json.RawMessage
	if len(sr.Properties) > 0 && json.Unmarshal(sr.Properties, &props) != nil {
		return nil, false
	}
	if props == nil {
		props = map[string]json.RawMessage{}
	}
	return props, true
}

// redactProps puts each value of in into out, redacted value by value
// before anything reads it, and returns out.
func (st Stage) redactProps(out, in map[string]json.RawMessage) map[string]json.RawMessage {
	for k, v := range in {
		out[k] = json.RawMessage(redact.JSON(model.Value{Raw: v}, st.Secrets).Raw)
	}
	return out
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
