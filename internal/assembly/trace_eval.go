package assembly

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Evaluating CloudFormation intrinsic functions for the tracer: which
// secret sources a value carries (eval), and how it is spelled (spell).

// intrinsic recognizes {"Ref": ...} and {"Fn::X": ...}.
func intrinsic(m map[string]any) (fn string, arg any, ok bool) {
	if len(m) != 1 {
		return "", nil, false
	}
	for k, v := range m {
		if k == "Ref" || strings.HasPrefix(k, "Fn::") {
			return k, v, true
		}
	}
	return "", nil, false
}

// eval returns the secrets the value of v reads, whatever its structure.
func (t *tracer) eval(v any) []src {
	switch x := v.(type) {
	case string:
		return t.evalString(x)
	case []any:
		var out []src
		for _, e := range x {
			out = merge(out, partOf(t.eval(e)))
		}
		return out
	case map[string]any:
		if fn, arg, ok := intrinsic(x); ok {
			return t.evalIntrinsic(fn, arg)
		}
		var out []src
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = merge(out, partOf(t.eval(x[k])))
		}
		return out
	}
	return nil
}

func (t *tracer) evalString(s string) []src {
	var out []src
	for _, r := range scanRefs(s) {
		out = merge(out, []src{refSrc(r, s == r.Raw, false)})
	}
	return out
}

func (t *tracer) evalIntrinsic(fn string, arg any) []src {
	args, isList := arg.([]any)
	switch fn {
	case "Ref":
		name, _ := arg.(string)
		return slices.Clone(t.params[name])
	case "Fn::ImportValue":
		// What another stack exports is not a parameter of this one; its
		// value is redacted by value, learned from the exporting stack
		// (Stack.Imports tells discovery which one to read).
		if name := t.spell(arg); strings.Contains(name, "${") {
			t.importsUnknown = true
		} else {
			t.imports[name] = true
		}
		return nil
	case "Fn::GetAtt", "Fn::GetAZs":
		// Attributes, imports and zones are not parameters; what they hold
		// is for redaction by value.
		return nil
	case "Fn::FindInMap":
		// The mapping's values are literals in the template; only a
		// language-extension DefaultValue can carry a secret.
		if isList && len(args) == 4 {
			if d, ok := args[3].(map[string]any); ok {
				return t.eval(d["DefaultValue"])
			}
		}
		return nil
	case "Fn::If":
		if isList && len(args) == 3 {
			return merge(t.eval(args[1]), t.eval(args[2]))
		}
	case "Fn::Select":
		if isList && len(args) == 2 {
			if list, ok := args[1].([]any); ok {
				var out []src
				for _, e := range list {
					out = merge(out, t.eval(e))
				}
				return out
			}
			return partOf(t.eval(args[1]))
		}
	case "Fn::Join":
		if isList && len(args) == 2 {
			return t.evalJoin(args[0], args[1])
		}
	case "Fn::Sub":
		if tmpl, vars, ok := subArgs(arg); ok {
			return t.evalSub(tmpl, vars)
		}
	}
	// Fn::Base64, Fn::Split, Fn::Cidr, Fn::ToJsonString, ... and malformed
	// calls: conservatively, the result is derived from every argument.
	return partOf(t.eval(arg))
}

func (t *tracer) evalJoin(delim, list any) []src {
	out := partOf(t.eval(delim))
	if elems, ok := list.([]any); ok {
		for _, e := range elems {
			s := t.eval(e)
			if len(elems) != 1 {
				s = partOf(s)
			}
			out = merge(out, s)
		}
	} else {
		out = merge(out, partOf(t.eval(list)))
	}
	// CDK splits a reference to a secret it creates across the parts:
	// ["{{resolve:secretsmanager:", {"Ref": "Secret"}, ":SecretString:pw::}}"].
	return merge(out, t.spelledRefs(t.spell(map[string]any{"Fn::Join": []any{delim, list}})))
}

func (t *tracer) evalSub(tmpl string, vars map[string]any) []src {
	var out []src
	used := map[string]bool{}
	for _, name := range placeholders(tmpl) {
		used[name] = true
		var s []src
		if v, ok := vars[name]; ok {
			s = t.eval(v)
		} else {
			s = slices.Clone(t.params[name])
		}
		if tmpl != "${"+name+"}" {
			s = partOf(s)
		}
		out = merge(out, s)
	}
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		if !used[name] {
			// CloudFormation drops an unused variable; count it anyway.
			out = merge(out, partOf(t.eval(vars[name])))
		}
	}
	return merge(out, t.spelledRefs(t.spellSub(tmpl, vars)))
}

// spelledRefs finds the dynamic references in a value spelled out from
// intrinsics.
func (t *tracer) spelledRefs(spelled string) []src {
	var out []src
	for _, r := range scanRefs(spelled) {
		out = merge(out, []src{refSrc(r, spelled == r.Raw, strings.Contains(r.Raw, "${"))})
	}
	return out
}

func subArgs(arg any) (tmpl string, vars map[string]any, ok bool) {
	switch x := arg.(type) {
	case string:
		return x, nil, true
	case []any:
		if len(x) != 2 {
			return "", nil, false
		}
		tmpl, ok = x[0].(string)
		vars, _ = x[1].(map[string]any)
		return tmpl, vars, ok
	}
	return "", nil, false
}

// placeholders lists the ${Name} variables of an Fn::Sub template; ${!Name}
// is a literal.
func placeholders(tmpl string) []string {
	var names []string
	forSub(tmpl, func(lit string, name string, isVar bool) {
		if isVar {
			names = append(names, name)
		}
	})
	return names
}

// forSub cuts an Fn::Sub template into literal text and ${Name} variables.
func forSub(tmpl string, fn func(lit, name string, isVar bool)) {
	for tmpl != "" {
		i := strings.Index(tmpl, "${")
		if i < 0 {
			fn(tmpl, "", false)
			return
		}
		if i > 0 {
			fn(tmpl[:i], "", false)
		}
		rest := tmpl[i+2:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			fn(tmpl[i:], "", false)
			return
		}
		if name, ok := strings.CutPrefix(rest[:end], "!"); ok {
			fn("${"+name+"}", "", false)
		} else {
			fn("", strings.TrimSpace(rest[:end]), true)
		}
		tmpl = rest[end+1:]
	}
}

// spell renders a value as a string the way CloudFormation would build it,
// writing ${Name} for what is only known at deploy time.
func (t *tracer) spell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case interface{ String() string }: // json.Number
		return x.String()
	case map[string]any:
		fn, arg, ok := intrinsic(x)
		if !ok {
			break
		}
		args, _ := arg.([]any)
		switch fn {
		case "Ref":
			if name, ok := arg.(string); ok {
				return t.variable(name)
			}
		case "Fn::GetAtt":
			if s, ok := arg.(string); ok {
				return "${" + s + "}"
			}
			if len(args) == 2 {
				return "${" + t.spell(args[0]) + "." + t.spell(args[1]) + "}"
			}
		case "Fn::Join":
			if len(args) == 2 {
				if list, ok := args[1].([]any); ok {
					parts := make([]string, len(list))
					for i, e := range list {
						parts[i] = t.spell(e)
					}
					return strings.Join(parts, t.spell(args[0]))
				}
			}
		case "Fn::Sub":
			if tmpl, vars, ok := subArgs(arg); ok {
				return t.spellSub(tmpl, vars)
			}
		case "Fn::Select":
			if len(args) == 2 {
				i, err := strconv.Atoi(t.spell(args[0]))
				if list, ok := args[1].([]any); ok && err == nil && i >= 0 && i < len(list) {
					return t.spell(list[i])
				}
			}
		}
	}
	return "${?}"
}

func (t *tracer) spellSub(tmpl string, vars map[string]any) string {
	var b strings.Builder
	forSub(tmpl, func(lit, name string, isVar bool) {
		switch {
		case !isVar:
			b.WriteString(lit)
		case vars[name] != nil:
			b.WriteString(t.spell(vars[name]))
		default:
			b.WriteString(t.variable(name))
		}
	})
	return b.String()
}

func (t *tracer) variable(name string) string {
	if v, ok := t.known[name]; ok {
		return v
	}
	return "${" + name + "}"
}
