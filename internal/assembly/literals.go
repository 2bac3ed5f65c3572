package assembly

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Literal is a place where a resource's template writes a value in public:
// a string, number or boolean literal, or an intrinsic that reads no secret
// (its value is known only at deploy time, and is public: anyone who can
// read the template and the account can tell it). cdkd reports a property
// whole ("Environment") when a leaf of it ("Environment.Variables.STAGE")
// changed; the literals let the hiding stage decide each leaf on its own
// instead of hiding, and learning as secrets, the public values that sit
// beside a secret one (issue 45).
type Literal struct {
	// Path is the leaf's path as cdkd prints it ("Environment.Variables.STAGE").
	Path string
	// Value is the literal as cdkd prints it: a string's text, a number as
	// written, "true" or "false". "" for a computed value.
	Value string
	// Computed is set for an intrinsic that reads no secret (a Ref to a
	// resource, an Fn::GetAtt, an Fn::Join of public parts).
	Computed bool
}

// Leaf is what the template says of one leaf of a value cdkd reports.
type Leaf int

const (
	// LeafUndecided: the template has no such position (an old value from
	// state at a key the template no longer writes, say): fail closed.
	LeafUndecided Leaf = iota
	// LeafPublic: the template writes a literal there, or an intrinsic
	// that reads no secret.
	LeafPublic
	// LeafSecret: the position reads a NoEcho parameter or a dynamic
	// reference (see SecretAt).
	LeafSecret
)

// LeafAt decides the leaf at path of a resource (path is the full path,
// "Environment.Variables.STAGE"), holding value (its text): secret when a
// secret position reaches it, public when the template writes a literal or
// a secret-free intrinsic at it or above it, undecided otherwise. A
// template that was not found, or a resource it does not hold, decides
// nothing.
//
// A secret position in a list reaches every index (see SecretAt: AWS and
// cdkd may reorder lists), which would hide, and learn as secrets, every
// public entry of an ECS container's Environment beside a secret one. So a
// leaf whose index no secret position names exactly is public after all
// when the template writes that very value there, at any index (an entry
// moved when another was added before it): a value the template does not
// write (an old secret, moved) stays secret.
func (s Stack) LeafAt(logicalID, path, value string) (Leaf, model.SecretKind) {
	if !s.Placed(logicalID) {
		return LeafUndecided, model.SecretNone
	}
	if k := s.SecretAt(logicalID, path); k != model.SecretNone {
		if !s.secretAtIndex(logicalID, path) && s.LiteralIs(logicalID, path, value) {
			return LeafPublic, model.SecretNone
		}
		return LeafSecret, k
	}
	// A plain {{resolve:ssm:...}} reference nobody confirmed a
	// SecureString: a String parameter, public (see Position.Secure).
	for _, p := range s.Positions {
		if p.Kind == KindResource && p.LogicalID == logicalID && !p.Secure && p.Path == path {
			return LeafPublic, model.SecretNone
		}
	}
	lits := s.Literals[logicalID]
	// The template's own path, or one above it, first: no allocation.
	for _, l := range lits {
		if l.Path == path || (len(path) > len(l.Path) && path[len(l.Path)] == '.' && strings.HasPrefix(path, l.Path)) {
			return LeafPublic, model.SecretNone
		}
	}
	// Then with any list index matching any other, as SecretAt matches.
	want := splitPath(path)
	for _, l := range lits {
		lp := splitPath(l.Path)
		if len(lp) <= len(want) && overlaps(lp, want) {
			return LeafPublic, model.SecretNone
		}
	}
	return LeafUndecided, model.SecretNone
}

// HasLiterals reports whether the template writes anything in public in
// the resource: without, per-leaf decisions could only say "undecided".
func (s Stack) HasLiterals(logicalID string) bool { return len(s.Literals[logicalID]) > 0 }

// LiteralPlace is where a public literal is written: the stack and either a
// resource's property path or an output.
type LiteralPlace struct {
	Stack     string
	LogicalID string // "" for an output
	Output    string
	Path      string
}

// PublicLiterals lists, sorted and without repeats, every string the
// assembly's templates write as a literal in a resource property or an
// output value: text the template makes public. The secret Set reads them
// (secrets.Set.Public) so that a value found there is never taken for a
// secret of its own, and a secret that occurs in one is said to be public.
func (a *Assembly) PublicLiterals() []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, s := range a.Stacks {
		for _, ls := range s.Literals {
			for _, l := range ls {
				if !l.Computed && l.Value != "" {
					out = append(out, l.Value)
				}
			}
		}
		for v := range s.outputLiterals {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LiteralPlaces names where the assembly writes the literal text, sorted:
// for a notice that must say where a public value is without quoting it.
func (a *Assembly) LiteralPlaces(text string) []LiteralPlace {
	if a == nil {
		return nil
	}
	var out []LiteralPlace
	for _, s := range a.Stacks {
		for id, ls := range s.Literals {
			for _, l := range ls {
				if !l.Computed && l.Value == text {
					out = append(out, LiteralPlace{Stack: s.Name, LogicalID: id, Path: l.Path})
				}
			}
		}
		for _, o := range s.outputLiterals[text] {
			out = append(out, LiteralPlace{Stack: s.Name, Output: o})
		}
	}
	slices.SortFunc(out, func(x, y LiteralPlace) int {
		return strings.Compare(x.Stack+"\x00"+x.LogicalID+"\x00"+x.Output+"\x00"+x.Path, y.Stack+"\x00"+y.LogicalID+"\x00"+y.Output+"\x00"+y.Path)
	})
	return slices.Compact(out)
}

// literal records a public leaf the walk met at path (see Literal).
func (t *tracer) literal(at site, path []string, v any) {
	var l Literal
	switch x := v.(type) {
	case string:
		l.Value = x
	case json.Number:
		l.Value = x.String()
	case bool:
		l.Value = strconv.FormatBool(x)
	case nil:
		return
	default:
		l.Computed = true
	}
	if at.kind == KindOutput {
		if !l.Computed && l.Value != "" && len(path) == 0 {
			if t.outputNames == nil {
				t.outputNames = map[string][]string{}
			}
			t.outputNames[l.Value] = append(t.outputNames[l.Value], at.output)
		}
		return
	}
	if t.literals == nil {
		t.literals = map[string][]Literal{}
	}
	l.Path = strings.Join(path, ".")
	t.literals[at.logicalID] = append(t.literals[at.logicalID], l)
}

// secretAtIndex reports a secret position that reaches path with every list
// index as written.
func (s Stack) secretAtIndex(logicalID, path string) bool {
	for _, p := range s.Positions {
		if p.Kind != KindResource || p.LogicalID != logicalID || !p.Secure {
			continue
		}
		if p.Path == path || strings.HasPrefix(path, p.Path+".") || strings.HasPrefix(p.Path, path+".") || p.Path == "" {
			return true
		}
	}
	return false
}

// literalIs reports that the template writes value as a literal at path,
// at any index of its lists: that text is the template's, public (an entry
// that moved when another was added before it keeps its value).
func (s Stack) LiteralIs(logicalID, path, value string) bool {
	var want []string
	for _, l := range s.Literals[logicalID] {
		if l.Computed || l.Value != value {
			continue
		}
		if l.Path == path {
			return true
		}
		if want == nil {
			want = splitPath(path)
		}
		if lp := splitPath(l.Path); len(lp) == len(want) && overlaps(lp, want) {
			return true
		}
	}
	return false
}
