package assembly

import (
	"regexp"
	"strings"
)

// CustomResponseAt reports whether the template fills the value cdkd
// reports at path on a resource from a custom resource's response
// (Fn::GetAtt, or ${Res.Attr} in Fn::Sub, on a Custom::* or
// AWS::CloudFormation::CustomResource). That is the one source whose
// NoEcho response cdkd stores as "***", so such a hidden position drifts
// on every run by design. known is false when the template cannot be read
// or has no such resource: then nothing can be said.
func (s Stack) CustomResponseAt(logicalID, path string) (custom, known bool) {
	_, tpl, err := readTemplate(s.TemplateFile)
	if err != nil {
		return false, false
	}
	_, props, _, ok := tpl.resource(logicalID)
	if !ok {
		return false, false
	}
	v := props
	for _, seg := range splitPath(path) {
		if tpl.readsCustom(v) {
			return true, true // the value above the path is the response
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			i, ok := index(seg)
			if !ok || i >= len(x) {
				return false, true
			}
			v = x[i]
		default:
			return false, true
		}
	}
	return tpl.customSource(v), true
}

func index(seg string) (int, bool) {
	if !isIndex(seg) || len(seg) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range seg {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// subAttr finds ${Resource.Attribute} in an Fn::Sub string.
var subAttr = regexp.MustCompile(`\$\{([A-Za-z0-9]+)\.[^}]+\}`)

// customSource reports whether v reads a custom resource's response
// anywhere inside it.
func (t *template) customSource(v any) bool {
	if t.readsCustom(v) {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if t.customSource(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if t.customSource(e) {
				return true
			}
		}
	}
	return false
}

// readsCustom reports whether v itself is an Fn::GetAtt or Fn::Sub that
// reads a custom resource's response.
func (t *template) readsCustom(v any) bool {
	x, ok := v.(map[string]any)
	if !ok || len(x) != 1 {
		return false
	}
	if ga, ok := x["Fn::GetAtt"]; ok {
		var target string
		switch g := ga.(type) {
		case []any:
			if len(g) > 0 {
				target, _ = g[0].(string)
			}
		case string:
			target, _, _ = strings.Cut(g, ".")
		}
		return t.isCustom(target)
	}
	if sub, ok := x["Fn::Sub"]; ok {
		str, _ := sub.(string)
		if l, ok := sub.([]any); ok && len(l) > 0 {
			str, _ = l[0].(string)
		}
		for _, m := range subAttr.FindAllStringSubmatch(str, -1) {
			if t.isCustom(m[1]) {
				return true
			}
		}
	}
	return false
}

func (t *template) isCustom(id string) bool {
	typ, _, _, ok := t.resource(id)
	return ok && (strings.HasPrefix(typ, "Custom::") || typ == "AWS::CloudFormation::CustomResource")
}
