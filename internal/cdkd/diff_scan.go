package cdkd

import (
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// scanDiffNodes reads `cdkd diff --json` in one pass over the bytes, without
// reflection, into the shapes json.Unmarshal fills: decoding through
// encoding/json was a quarter of a local render. It takes what cdkd prints
// and declines (false) anything else: malformed JSON, a null where a list
// or a string goes, a key repeated or spelled in another case or escaped
// (encoding/json matches keys case-insensitively), nesting deeper than
// encoding/json allows. DecodeDiff then decodes with encoding/json, which
// stays the reference for every result and every error.
//
// Values (model.Value, noEchoReaders) are slices of b, capped so that an
// append cannot reach the next value: b must not change afterwards.
func scanDiffNodes(b []byte) ([]diffNodeJSON, bool) {
	s := &scanner{b: b, names: map[string]string{}}
	nodes, ok := s.nodes()
	if !ok || s.peek() != 0 || s.i != len(s.b) {
		return nil, false
	}
	return nodes, true
}

// maxDepth is encoding/json's nesting limit; deeper input is its to reject.
const maxDepth = 10000

func (s *scanner) nodes() ([]diffNodeJSON, bool) { return list(s, s.node) }

var nodeKeys = []string{"stack", "region", "changes", "outputChanges", "children", "noEchoReaders"}

func (s *scanner) node(n *diffNodeJSON) bool {
	return s.fields(nodeKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			n.Stack, ok = s.strPtr(s.str)
		case 1:
			n.Region, ok = s.name()
		case 2:
			var cs []changeJSON
			cs, ok = listVia(s, &s.changes, s.change)
			n.Changes = &cs
		case 3:
			n.OutputChanges, ok = listVia(s, &s.outputs, s.output)
		case 4:
			n.Children, ok = s.nodes()
		case 5:
			n.NoEchoReaders, ok = s.raw()
		}
		return ok
	})
}

var changeKeys = []string{"logicalId", "changeType", "resourceType", "propertyChanges", "attributeChanges", "ccApi"}

func (s *scanner) change(c *changeJSON) bool {
	return s.fields(changeKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			c.LogicalID, ok = s.strPtr(s.str)
		case 1:
			c.ChangeType, ok = s.strPtr(s.name)
		case 2:
			c.ResourceType, ok = s.strPtr(s.name)
		case 3:
			c.PropertyChanges, ok = listVia(s, &s.properties, s.property)
		case 4:
			c.AttributeChanges, ok = listVia(s, &s.attributes, s.attribute)
		case 5:
			c.CCAPI, ok = list(s, func(v *string) (ok bool) {
				*v, ok = s.str()
				return ok
			})
		}
		return ok
	})
}

var propertyKeys = []string{"path", "oldValue", "newValue", "requiresReplacement", "replacementPropagated"}

func (s *scanner) property(p *propertyJSON) bool {
	return s.fields(propertyKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			p.Path, ok = s.strPtr(s.name)
		case 1:
			p.Old, ok = s.value()
		case 2:
			p.New, ok = s.value()
		case 3:
			p.RequiresReplacement, ok = s.boolean()
		case 4:
			var v bool
			v, ok = s.boolean()
			p.ReplacementPropagated = &v
		}
		return ok
	})
}

var attributeKeys = []string{"attribute", "oldValue", "newValue"}

func (s *scanner) attribute(a *model.AttributeChange) bool {
	return s.fields(attributeKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			a.Attribute, ok = s.name()
		case 1:
			a.Old, ok = s.value()
		case 2:
			a.New, ok = s.value()
		}
		return ok
	})
}

var outputKeys = []string{"name", "changeType", "oldValue", "newValue", "oldValueRedacted", "export"}

func (s *scanner) output(o *outputJSON) bool {
	return s.fields(outputKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			o.Name, ok = s.strPtr(s.str)
		case 1:
			o.ChangeType, ok = s.strPtr(s.name)
		case 2:
			o.Old, ok = s.value()
		case 3:
			o.New, ok = s.value()
		case 4:
			o.OldValueRedacted, ok = s.boolean()
		case 5:
			o.Export, ok = s.boolean()
		}
		return ok
	})
}
