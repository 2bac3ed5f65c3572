package security

import "slices"

// Pairing one property's old and new elements: which are no change, which
// are added or removed, and what each does to access.

// appendDiff pairs one property's old and new elements: equal ones are
// no change; each other new one is added, each other old one removed, with
// what that does to access. It appends them to out.
func appendDiff(out, olds, news []Change) []Change {
	removed, added := olds, news
	if len(olds) > 0 && len(news) > 0 { // else no element has an equal: no keys
		oldKeys, newKeys := keys(olds), keys(news)
		removed, added = without(olds, oldKeys, newKeys), without(news, newKeys, oldKeys)
	}
	for _, o := range removed {
		o.Op, o.Status = OpRemove, removedStatus(o, news)
		out = append(out, o)
	}
	for _, n := range added {
		n.Op, n.Status = OpAdd, addedStatus(n, olds)
		out = append(out, n)
	}
	return out
}

// keys are the elements' content keys, each computed once.
func keys(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key()
	}
	return out
}

// without is cs (whose keys are csKeys) less one equal element of other
// for each of its own (a multiset difference, in cs's order). When none is
// equal (most changed properties: a policy's one statement against its
// other) it is cs itself, not a copy.
func without(cs []Change, csKeys, otherKeys []string) []Change {
	left := make(map[string]int, len(otherKeys))
	for _, k := range otherKeys {
		left[k]++
	}
	var out []Change
	dropped := false
	for i, c := range cs {
		if k := csKeys[i]; left[k] > 0 {
			left[k]--
			if !dropped {
				dropped = true
				out = append(make([]Change, 0, len(cs)-1), cs[:i]...)
			}
			continue
		}
		if dropped {
			out = append(out, c)
		}
	}
	if !dropped {
		return cs
	}
	return out
}

// addedStatus: an added element broadens unless an old one covers it.
func addedStatus(n Change, olds []Change) Status {
	switch {
	case n.Statement != nil && n.Statement.Raw != "", n.Rule != nil && n.Rule.Raw != "":
		return Unknown
	case n.Statement != nil && n.Statement.Effect == "Deny":
		return Narrowed // a new Deny takes away
	}
	return coverage(olds, n, Narrowed)
}

// removedStatus: a removed Deny broadens unless a new Deny covers it;
// removing anything else takes away.
func removedStatus(o Change, news []Change) Status {
	if o.Statement == nil {
		return Removed
	}
	if o.Statement.Raw != "" {
		if o.Statement.Effect == "Allow" {
			return Removed
		}
		return Unknown // it may have been a Deny
	}
	if o.Statement.Effect != "Deny" {
		return Removed
	}
	return coverage(news, o, Removed)
}

// coverage is what c's change does given the elements of the other side
// (the old ones for an added element, the new ones for a removed Deny):
// covered if one of them covers c, unresolved if one may, else broadening.
func coverage(xs []Change, c Change, covered Status) Status {
	best := no
	for _, x := range xs {
		best = max(best, covers(x, c))
	}
	switch best {
	case yes:
		return covered
	case maybe:
		return Unresolved
	}
	return Broadening
}

// covers says whether element w allows (or denies) everything n does.
func covers(w, n Change) tri {
	if w.Kind != n.Kind {
		return no
	}
	switch w.Kind {
	case KindStatement:
		return statementCovers(*w.Statement, *n.Statement)
	case KindRule:
		return ruleCovers(*w.Rule, *n.Rule)
	case KindManagedPolicy:
		return eq(w.ManagedPolicy, n.ManagedPolicy)
	case KindSSO:
		return eq(w.Item, n.Item)
	}
	return no
}

func filter(cs []Change, prop string) []Change {
	if !slices.ContainsFunc(cs, func(c Change) bool { return c.Property != prop }) {
		return cs // most resources: one property; its elements are not changed
	}
	var out []Change
	for _, c := range cs {
		if c.Property == prop {
			out = append(out, c)
		}
	}
	return out
}
