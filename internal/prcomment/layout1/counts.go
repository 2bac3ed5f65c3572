package layout1

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// CountsText is the one-line totals used in check-run titles and log lines,
// e.g. "1 to create, 2 to update · outputs: 1 to add".
func CountsText(c model.Counts) string { return countsPhrase(c, false) }

// countsPhrase reads "1 to create, 2 to update · outputs: 1 to add". With
// allResources the four resource counts show even when zero.
func countsPhrase(c model.Counts, allResources bool) string {
	var res, outs []string
	res = appendCount(res, c.Create, "to create", allResources)
	res = appendCount(res, c.Update, "to update", allResources)
	res = appendCount(res, c.Replace, "to replace", allResources)
	res = appendCount(res, c.Delete, "to delete", allResources)
	res = appendCount(res, c.Other, "of a change type cdkd-action does not know", false)
	outs = appendCount(outs, c.OutputsAdd, "to add", false)
	outs = appendCount(outs, c.OutputsModify, "to change", false)
	outs = appendCount(outs, c.OutputsRemove, "to remove", false)
	outs = appendCount(outs, c.OutputsOther, "of an unknown change type", false)
	s := strings.Join(res, ", ")
	if len(outs) > 0 {
		if s != "" {
			s += " · "
		}
		s += "outputs: " + strings.Join(outs, ", ")
	}
	if s == "" {
		return "no changes"
	}
	return s
}

func outputLabel(t model.OutputChangeType) string {
	switch t {
	case model.OutputAdd:
		return "➕ **add**"
	case model.OutputModify:
		return "🔄 **change**"
	case model.OutputRemove:
		return "➖ **remove**"
	}
	return "**" + Text(string(t)) + "**"
}
