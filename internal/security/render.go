package security

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// errUnparsed is a value this package cannot read as a plain value: a
// condition (Fn::If), a list function, a shape no template has.
var errUnparsed = errors.New("not a value this table can read")

// decode reads a JSON value keeping numbers as written.
func decode(raw json.RawMessage) (any, error) { return model.DecodeJSON(raw) }

// compact is a value as one line of JSON, keys sorted, for a row that
// shows what could not be read.
func compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}

// intrinsic returns the name and argument of a one-key object whose key is
// an intrinsic function ("Ref", "Fn::...").
func intrinsic(v any) (string, any, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", nil, false
	}
	for k, arg := range m {
		if k == "Ref" || strings.HasPrefix(k, "Fn::") || k == "Condition" {
			return k, arg, true
		}
	}
	return "", nil, false
}

// str renders a scalar or an intrinsic as text, intrinsics the way cdk
// diff shows them: ${LogicalId}, ${LogicalId.Attr}. A value cdkd left
// unresolved renders the same way, so it is told apart from a literal by
// its "${".
func str(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "", errUnparsed
	}
	name, arg, ok := intrinsic(v)
	if !ok {
		return "", errUnparsed
	}
	switch name {
	case "Ref":
		s, ok := arg.(string)
		if !ok {
			return "", errUnparsed
		}
		return "${" + s + "}", nil
	case "Fn::GetAtt":
		switch a := arg.(type) {
		case string:
			return "${" + a + "}", nil
		case []any:
			if len(a) == 2 {
				id, ok1 := a[0].(string)
				attr, err := str(a[1])
				if ok1 && err == nil {
					return "${" + id + "." + attr + "}", nil
				}
			}
		}
		return "", errUnparsed
	case "Fn::Join":
		a, ok := arg.([]any)
		if !ok || len(a) != 2 {
			return "", errUnparsed
		}
		sep, ok := a[0].(string)
		parts, ok2 := a[1].([]any)
		if !ok || !ok2 {
			return "", errUnparsed
		}
		out := make([]string, len(parts))
		for i, p := range parts {
			s, err := str(p)
			if err != nil {
				return "", err
			}
			out[i] = s
		}
		return strings.Join(out, sep), nil
	case "Fn::Sub":
		switch a := arg.(type) {
		case string:
			return a, nil
		case []any:
			if len(a) == 2 {
				s, ok := a[0].(string)
				vars, ok2 := a[1].(map[string]any)
				if ok && ok2 {
					for k, val := range vars {
						r, err := str(val)
						if err != nil {
							return "", err
						}
						s = strings.ReplaceAll(s, "${"+k+"}", r)
					}
					return s, nil
				}
			}
		}
		return "", errUnparsed
	case "Fn::ImportValue":
		s, err := str(arg)
		if err != nil {
			return "", err
		}
		return "${Import:" + s + "}", nil
	}
	return "", errUnparsed
}

// strs flattens a string or a list of them, sorted and without
// duplicates.
func strs(v any) ([]string, error) {
	var out []string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		if len(x) > 0 {
			out = make([]string, 0, len(x)) // nil stays nil
		}
		for _, e := range x {
			s, err := str(e)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	default:
		s, err := str(v)
		if err != nil {
			return nil, err
		}
		out = []string{s}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// resolveTree renders every intrinsic in a value (a condition block) and
// fails on one it cannot render.
func resolveTree(v any) (any, error) {
	if _, _, ok := intrinsic(v); ok {
		return str(v)
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := resolveTree(e)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := resolveTree(e)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// symbolic reports text holding a value not known before the deploy (an
// intrinsic rendered as ${...}, or one cdkd could not resolve).
func symbolic(s string) bool { return strings.Contains(s, "${") }
