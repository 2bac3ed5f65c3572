package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The rule that accepts what was reviewed: every change the deploy will
// make must appear, identical, in the reviewed change set of a pull request
// merged in this push. A change is one unit a reviewer judges on its own: a
// created or deleted resource whole (a creation with every property it is
// created with), and for an update the resource's type and change type, each
// changed property (old value, new value, replacement) and each changed
// policy attribute; and each changed output. A reviewed unit the deploy
// does not make is already in place ("already deployed"), which refuses
// nothing; a stack without changes has no units and never counts.

// unit is one change, keyed by where it is and hashed over what it does.
type unit struct {
	key  string // stack path, region, resource or output, part
	what string // for messages: "update Topic.DisplayName in StackA"
	hash string
	// effect hashes only the new side: two reviews that set one part to
	// different values contradict each other, whatever their old sides.
	effect string
}

// units lists the changes of d (redacted and sorted as the digest sees
// them), each with its key and hashes.
func units(d model.Diff) []unit {
	var out []unit
	d.Canonical().Walk(func(path string, s model.StackDiff) {
		at := func(parts ...string) string {
			return strings.Join(append([]string{path, s.Region}, parts...), "\x00")
		}
		for _, ch := range s.Changes {
			head := ch
			if ch.ChangeType == model.ChangeUpdate {
				// An update's parts are judged one by one.
				head.PropertyChanges, head.AttributeChanges = nil, nil
			}
			out = append(out, newUnit(changeKey(path, s.Region, ch.LogicalID), fmt.Sprintf("%s %s (%s) in %s", ch.Action(), ch.LogicalID, ch.ResourceType, path), head, head))
			if ch.ChangeType != model.ChangeUpdate {
				continue
			}
			for _, p := range ch.PropertyChanges {
				nw := p
				nw.Old, nw.OldToken = model.Value{}, ""
				out = append(out, newUnit(at("r", ch.LogicalID, "p", p.Path), fmt.Sprintf("update %s.%s in %s", ch.LogicalID, p.Path, path), p, nw))
			}
			for _, a := range ch.AttributeChanges {
				nw := a
				nw.Old, nw.OldToken = model.Value{}, ""
				out = append(out, newUnit(at("r", ch.LogicalID, "a", a.Attribute), fmt.Sprintf("update %s %s in %s", ch.LogicalID, a.Attribute, path), a, nw))
			}
		}
		for _, o := range s.OutputChanges {
			nw := o
			nw.Old, nw.OldToken = model.Value{}, ""
			out = append(out, newUnit(at("o", o.Name), fmt.Sprintf("%s output %s in %s", strings.ToLower(string(o.ChangeType)), o.Name, path), o, nw))
		}
	})
	return out
}

func newUnit(key, what string, whole, effect any) unit {
	return unit{key: key, what: what, hash: hashOf(whole), effect: hashOf(effect)}
}

func hashOf(v any) string {
	b, _ := json.Marshal(v) // model types always encode
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Coverage is how the change set about to be deployed stands against the
// reviewed ones.
type Coverage struct {
	// Unreviewed are the changes no review holds identically, each said
	// with the nearest reviewed version when there is one.
	Unreviewed []string
	// Contradictions are the parts two reviews set differently.
	Contradictions []string
	// AlreadyDeployed are the reviewed changes the deploy does not make:
	// they are in place already.
	AlreadyDeployed []string
	// By maps each change of the deploy to the pull requests whose review
	// holds it (for the destructive policy's labels).
	By map[string][]int
	// Differs names, per pull request, the changes of the deploy its
	// review holds otherwise (another value, another starting point, or
	// set differently than another review): what it no longer covers.
	Differs map[int][]string
}

// Covered reports that every change is reviewed and no two reviews
// contradict each other.
func (c Coverage) Covered() bool { return len(c.Unreviewed) == 0 && len(c.Contradictions) == 0 }

// reviewedSet is one pull request's reviewed change set, whole.
type reviewedSet struct {
	pr   int
	diff model.Diff
}

// cover checks cur against the reviewed change sets.
func cover(reviewed []reviewedSet, cur model.Diff) Coverage {
	type seen struct {
		u   unit
		prs []int
	}
	byKey := map[string][]*seen{}
	for _, r := range reviewed {
		for _, u := range units(r.diff) {
			i := slices.IndexFunc(byKey[u.key], func(s *seen) bool { return s.u.hash == u.hash })
			if i < 0 {
				byKey[u.key] = append(byKey[u.key], &seen{u: u})
				i = len(byKey[u.key]) - 1
			}
			if s := byKey[u.key][i]; !slices.Contains(s.prs, r.pr) {
				s.prs = append(s.prs, r.pr)
			}
		}
	}
	c := Coverage{By: map[string][]int{}, Differs: map[int][]string{}}
	differs := func(what string, prs []int) {
		for _, n := range prs {
			c.Differs[n] = append(c.Differs[n], what)
		}
	}
	made := map[string]bool{}
	for _, u := range units(cur) {
		made[u.key] = true
		versions := byKey[u.key]
		effects := map[string][]int{}
		for _, v := range versions {
			effects[v.u.effect] = append(effects[v.u.effect], v.prs...)
		}
		if len(effects) > 1 {
			c.Contradictions = append(c.Contradictions, fmt.Sprintf("%s (set differently by %s)", u.what, prList(versionPRs(effects))))
			differs(u.what+" (another review sets it differently)", versionPRs(effects))
			continue
		}
		i := slices.IndexFunc(versions, func(s *seen) bool { return s.u.hash == u.hash })
		switch {
		case i >= 0:
			c.By[u.key] = versions[i].prs
		case len(versions) > 0 && versions[0].u.effect == u.effect:
			c.Unreviewed = append(c.Unreviewed, u.what+" starts from another value than "+prList(versions[0].prs)+" reviewed (it changed since the review)")
			differs(u.what+" starts from another value (it changed since the review)", versions[0].prs)
		case len(versions) > 0:
			c.Unreviewed = append(c.Unreviewed, u.what+" differs from what "+prList(versions[0].prs)+" reviewed")
			differs(u.what+" differs from what it reviewed", versions[0].prs)
		default:
			c.Unreviewed = append(c.Unreviewed, u.what+" was in no review")
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		if !made[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		c.AlreadyDeployed = append(c.AlreadyDeployed, byKey[k][0].u.what)
	}
	return c
}

func versionPRs(effects map[string][]int) []int {
	var out []int
	for _, prs := range effects {
		for _, n := range prs {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// prList is "#4" or "#4 and #5" or "#4, #5 and #6".
func prList(prs []int) string {
	s := make([]string, len(prs))
	for i, n := range prs {
		s[i] = fmt.Sprintf("#%d", n)
	}
	if len(s) <= 1 {
		return "pull request " + strings.Join(s, "")
	}
	return "pull requests " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// changeKey is the key of a resource's own unit (see units).
func changeKey(path, region, logicalID string) string {
	return strings.Join([]string{path, region, "r", logicalID}, "\x00")
}

// coverage checks cur against the reviewed change sets of rv and its
// batch; whole is false when one is not stored whole (only its
// fingerprints), and the digest alone then decides.
func coverage(rv Review, cur model.Diff) (Coverage, bool) {
	var sets []reviewedSet
	for _, one := range rv.all() {
		if one.ChangeSet == nil || one.ChangeSet.Diff == nil {
			return Coverage{}, false
		}
		sets = append(sets, reviewedSet{pr: one.PR, diff: *one.ChangeSet.Diff})
	}
	return cover(sets, cur), true
}
