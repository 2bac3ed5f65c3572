package assembly

import (
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// SecretAt tells whether the value cdkd reports at path on a resource is, is
// inside, or contains a secret position. cdkd reports a whole object when
// only part of it changed ("Tags") and a leaf of what a position covers
// ("Value.x"), so both directions count.
//
// List indexes match any index: drift sorts tag lists by key and AWS returns
// lists in its own order, so the index cdkd prints need not be the
// template's. This hides, say, every tag's Value when one of them is secret,
// never less. A path cdkd writes with brackets is read the same way:
// "Tags[0].Value" as "Tags.0.Value", and a keyed entry
// ("Attributes[deletion.enabled]") as its whole list.
//
// NoEcho wins over a reference when both reach the path. A plain ssm
// reference counts only once MarkSecureSSM confirmed it.
func (s Stack) SecretAt(logicalID, path string) model.SecretKind {
	want := splitPath(path)
	var kind model.SecretKind
	for _, p := range s.Positions {
		if p.Kind != KindResource || p.LogicalID != logicalID || !p.Secure {
			continue
		}
		if overlaps(splitPath(p.Path), want) {
			kind = stronger(kind, p.Source)
		}
	}
	return kind
}

// SecretOutput tells whether the value of an output is secret. name is what
// cdkd prints as an output change's name: the output's logical name or, for
// the second row of an exported output, its export name. A name that is
// neither is taken for the export row of a secret output whose export name
// this package could not spell (it reads a resource or a parameter passed by
// a parent), so it is secret if any such output is.
func (s Stack) SecretOutput(name string) model.SecretKind {
	var kind, unnamed model.SecretKind
	for _, p := range s.Positions {
		if p.Kind != KindOutput || p.Path != "" || !p.Secure {
			continue
		}
		if p.Output == name || (p.Export != "" && p.Export == name) {
			kind = stronger(kind, p.Source)
		}
		if p.Export == "" && s.exported(p.Output) {
			unnamed = stronger(unnamed, p.Source)
		}
	}
	if kind != model.SecretNone || unnamed == model.SecretNone {
		return kind
	}
	for _, o := range s.Outputs {
		if o.Name == name || (o.Export != "" && o.Export == name) {
			return model.SecretNone
		}
	}
	return unnamed
}

func (s Stack) exported(output string) bool {
	for _, o := range s.Outputs {
		if o.Name == output {
			return o.Exported
		}
	}
	return false
}

// NoEchoReaders returns the logical ids of the resources that read a NoEcho
// parameter: cdkd cannot tell whether such a value changed, and reviewers
// should know.
func (s Stack) NoEchoReaders() []string {
	var ids []string
	for _, p := range s.Positions {
		if p.Kind == KindResource && p.Source == model.SecretNoEcho {
			ids = append(ids, p.LogicalID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func stronger(a, b model.SecretKind) model.SecretKind {
	if a == model.SecretNoEcho || b == model.SecretNoEcho {
		return model.SecretNoEcho
	}
	if a != model.SecretNone {
		return a
	}
	return b
}

// overlaps reports whether one path is a prefix of the other, segment by
// segment, any list index matching any other.
func overlaps(a, b []string) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] && !(isIndex(a[i]) && isIndex(b[i])) {
			return false
		}
	}
	return true
}

func isIndex(seg string) bool {
	if seg == "" {
		return false
	}
	for _, c := range seg {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// splitPath cuts a cdkd path into segments. "" is the root: no segments.
func splitPath(path string) []string {
	var segs []string
	for path != "" {
		i := strings.IndexAny(path, ".[")
		if i < 0 {
			segs = append(segs, path)
			break
		}
		if i > 0 {
			segs = append(segs, path[:i])
		}
		if path[i] == '.' {
			path = path[i+1:]
			continue
		}
		end := strings.IndexByte(path[i:], ']')
		if end < 0 {
			segs = append(segs, path[i+1:])
			break
		}
		key := path[i+1 : i+end]
		if !isIndex(key) {
			// A keyed list entry: the whole list is the finest we can name.
			break
		}
		segs = append(segs, key)
		path = path[i+end+1:]
	}
	return segs
}

// TokenSites are the resource's properties that read a dynamic reference
// of svc, and whether the reference is the property's whole value (false
// when an Fn::Join or Fn::Sub embeds it in a longer string).
func (s Stack) TokenSites(logicalID string, svc dynref.Service) []model.TokenSite {
	var out []model.TokenSite
	for _, p := range s.Positions {
		if p.Kind == KindResource && p.LogicalID == logicalID && p.Service == svc {
			out = append(out, model.TokenSite{Path: p.Path, Whole: p.Whole})
		}
	}
	return out
}
