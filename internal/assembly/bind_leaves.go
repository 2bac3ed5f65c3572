package assembly

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// BindCreatesLeafByLeaf is BindCreates for a review that hides values one
// leaf at a time (layout 4 on): a top-level property whose secret sits
// below it (Environment, when Environment.Variables.API_KEY reads a NoEcho
// parameter) keeps what the template writes in public, and only the nodes
// at secret positions become stand-ins (see templateStandIn), so that the
// redaction stage shows its public leaves. A deploy checking an older
// review binds with BindCreates, as that review did.
func (a *Assembly) BindCreatesLeafByLeaf(d *model.Diff) int { return a.bindCreates(d, true) }

// boundSecret is what a created resource's top-level property k at a secret
// position is bound to: the template's value v (decoded: raw) with each
// node at a secret position replaced by its stand-in when leaves is set and
// every such position lies below k and is met as a node, else one
// stand-in for the whole property.
func boundSecret(st Stack, logicalID, k string, raw any, v model.Value, leaves bool) model.Value {
	if !leaves {
		return templateStandIn(v)
	}
	var want []string
	for _, p := range st.Positions {
		if p.Kind != KindResource || p.LogicalID != logicalID || !p.Secure {
			continue
		}
		segs := splitPath(p.Path)
		switch {
		case len(segs) == 0 || (len(segs) == 1 && segs[0] == k):
			return templateStandIn(v) // the property itself is secret
		case segs[0] == k:
			want = append(want, strings.Join(segs, "."))
		}
	}
	met := map[string]bool{}
	tree, ok := replaceAt(raw, k, want, met)
	if !ok || len(met) < len(slices.Compact(slices.Sorted(slices.Values(want)))) {
		return templateStandIn(v)
	}
	out, err := encodeValue(tree)
	if err != nil {
		return templateStandIn(v)
	}
	return out
}

// replaceAt copies x (at path) with the nodes at the paths in want replaced
// by their stand-ins, recording the paths it met; ok is false when an
// intrinsic that picks among values (Fn::If, Fn::Select) holds a secret
// position below it, whose node is not where the position says.
func replaceAt(x any, path string, want []string, met map[string]bool) (any, bool) {
	if slices.Contains(want, path) {
		met[path] = true
		v, err := encodeValue(x)
		if err != nil {
			return nil, false
		}
		return model.Value.Text(templateStandIn(v)), true
	}
	below := false
	for _, w := range want {
		if strings.HasPrefix(w, path+".") {
			below = true
			break
		}
	}
	if !below {
		return x, true
	}
	switch n := x.(type) {
	case map[string]any:
		if _, _, isFn := intrinsic(n); isFn {
			return nil, false
		}
		out := make(map[string]any, len(n))
		for key, e := range n {
			r, ok := replaceAt(e, path+"."+key, want, met)
			if !ok {
				return nil, false
			}
			out[key] = r
		}
		return out, true
	case []any:
		out := make([]any, len(n))
		for i, e := range n {
			r, ok := replaceAt(e, path+"."+strconv.Itoa(i), want, met)
			if !ok {
				return nil, false
			}
			out[i] = r
		}
		return out, true
	}
	return nil, false
}
