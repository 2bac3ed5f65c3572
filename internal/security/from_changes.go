package security

import (
	"encoding/json"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// FromChanges takes a resource's values from its property changes (a
// redacted diff's): each side's value of each changed top-level property,
// or, where only part of the property is known or redaction hid a side, a
// hidden property. New must be set, and Old for an update.
func (r *Resource) FromChanges(changes []model.PropertyChange) {
	for _, p := range changes {
		top := topProperty(p.Path)
		if top != p.Path || hiddenSide(p) {
			r.Hidden = append(r.Hidden, top)
			continue
		}
		if r.Old != nil {
			setSide(r.Old, top, p.Old)
		}
		setSide(r.New, top, p.New)
	}
}

// hiddenSide reports a property change whose value redaction hid on
// either side (a secret position, a value no assembly places).
func hiddenSide(p model.PropertyChange) bool {
	return p.Secret != model.SecretNone || p.OldToken != "" || p.NewToken != "" || p.Old.IsHidden() || p.New.IsHidden()
}

func setSide(m map[string]json.RawMessage, k string, v model.Value) {
	if v.Present() {
		m[k] = json.RawMessage(v.Raw)
	} else {
		delete(m, k)
	}
}

// topProperty is the top-level property of a diff path ("Policies" of
// "Policies.0.PolicyName").
func topProperty(path string) string {
	for i, c := range path {
		if c == '.' || c == '[' || c == '/' {
			return path[:i]
		}
	}
	return path
}
