package security

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func TestFromChanges(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name     string
		update   bool
		changes  []model.PropertyChange
		old, new map[string]json.RawMessage
		hidden   []string
	}{{
		name:    "an update's top-level property: both sides",
		update:  true,
		changes: []model.PropertyChange{{Path: "CidrIp", Old: model.StringValue("10.0.0.0/8"), New: model.StringValue("10.0.0.0/16")}},
		old:     map[string]json.RawMessage{"CidrIp": raw(`"10.0.0.0/8"`)},
		new:     map[string]json.RawMessage{"CidrIp": raw(`"10.0.0.0/16"`)},
	}, {
		name:    "a creation: the new side only",
		changes: []model.PropertyChange{{Path: "PolicyDocument", New: model.JSONValue(`{"Statement":[]}`)}},
		new:     map[string]json.RawMessage{"PolicyDocument": raw(`{"Statement":[]}`)},
	}, {
		name:   "a property added or removed is absent on the other side",
		update: true,
		changes: []model.PropertyChange{
			{Path: "Added", New: model.StringValue("x")},
			{Path: "Removed", Old: model.StringValue("y")},
		},
		old: map[string]json.RawMessage{"Removed": raw(`"y"`)},
		new: map[string]json.RawMessage{"Added": raw(`"x"`)},
	}, {
		name:   "part of a property (each spelling of a path) is its top property, hidden",
		update: true,
		changes: []model.PropertyChange{
			{Path: "Policies.0.PolicyName", Old: model.StringValue("a"), New: model.StringValue("b")},
			{Path: "Tags[1]", New: model.StringValue("t")},
			{Path: "Doc/Statement", New: model.StringValue("s")},
		},
		old: map[string]json.RawMessage{}, new: map[string]json.RawMessage{},
		hidden: []string{"Policies", "Tags", "Doc"},
	}, {
		name:   "a side redaction hid, by position or by value, is hidden",
		update: true,
		changes: []model.PropertyChange{
			{Path: "NoEcho", Old: model.StringValue("a"), New: model.StringValue("b"), Secret: model.SecretNoEcho},
			{Path: "Tokened", Old: model.StringValue("a"), New: model.StringValue("b"), NewToken: model.FingerprintToken("h")},
			{Path: "Hidden", Old: model.HiddenValue(), New: model.StringValue("b")},
		},
		old: map[string]json.RawMessage{}, new: map[string]json.RawMessage{},
		hidden: []string{"NoEcho", "Tokened", "Hidden"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Resource{New: map[string]json.RawMessage{}}
			if tt.update {
				r.Old = map[string]json.RawMessage{}
			}
			r.FromChanges(tt.changes)
			if diff := cmp.Diff(Resource{Old: tt.old, New: tt.new, Hidden: tt.hidden}, r); diff != "" {
				t.Errorf("resource (-want +got):\n%s", diff)
			}
		})
	}
}
