package reporters

import (
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// hiddenCaseOf is a hidden change's case; one nobody decided is undecided.
func hiddenCaseOf(c model.DriftChange) model.HiddenCase {
	if c.HiddenCase == model.HiddenNone {
		return model.HiddenUndecided
	}
	return c.HiddenCase
}

// hiddenNotes say, per case, why hidden positions drift, in the seed's terms:
// "by design" only where the state value is a NoEcho custom-resource
// response stored as "***"; real drift, with its fix, where the
// position reads a NoEcho parameter or a secret reference; and plainly
// undecided where nothing says which.
func (x *driftWriter) hiddenNotes(cases map[model.HiddenCase][]string) {
	for _, c := range []model.HiddenCase{model.HiddenNoEchoParameter, model.HiddenSecretReference, model.HiddenUndecided, model.HiddenByDesign} {
		where := cases[c]
		if len(where) == 0 {
			continue
		}
		x.w.Block()
		x.w.Write(hiddenNoteHead(c), " ", codeList(where, x.listLimit()), ". ", hiddenNoteText(c), "\n")
	}
}

func hiddenNoteHead(c model.HiddenCase) string {
	switch c {
	case model.HiddenByDesign:
		return "🔒 **Drifts on every run by design:**"
	case model.HiddenNoEchoParameter:
		return "🔒 **Real drift at a NoEcho parameter's position** (values hidden):"
	case model.HiddenSecretReference:
		return "🔒 **Real drift at a secret reference's position** (values hidden):"
	}
	return "🔒 **Hidden drift, cause undecided** (values hidden):"
}

func hiddenNoteText(c model.HiddenCase) string {
	switch c {
	case model.HiddenByDesign:
		return "The state value there is a NoEcho custom-resource response, which cdkd stores as `***`; cdkd compares its `***` with the live value, so the two never converge. " +
			"To stop it, stop marking that response NoEcho; to put the value back, force the custom resource to update (a nonce) and re-deploy."
	case model.HiddenNoEchoParameter:
		return "The position reads a NoEcho parameter, and the live value differs from the one deployed: an out-of-band change. " +
			"`cdkd drift --revert` puts the parameter's value back; a re-deploy does not (cdkd sees no change in the template, and the drift survives it)."
	case model.HiddenSecretReference:
		return "The position holds a dynamic reference to a secret, and the live value is not what it resolves to: most often the secret was rotated and the resource still holds the previous version, or the value was edited out of band (cdkd cannot tell them apart). " +
			"A re-deploy does not push it: cdkd compares the reference's text, which is unchanged, so the drift survives it. " +
			"`cdkd drift --revert` pushes the referenced value into a property that can be updated in place; for a create-only one (a name) cdkd 0.284.40 reports it reverted and changes nothing, and new reference text (the secret's version pinned) makes a deploy replace the resource."
	}
	return "Nothing says whether the position holds a NoEcho custom-resource response (which drifts on every run by design) or reads a NoEcho parameter or a secret (real drift): " +
		"the assembly given as `app` does not show its source. Treat it as real drift until you have checked."
}

// groups shows the groups of cdkd's report this version does not know, each
// as its own section: the seeds' cdkd reports hidden positions "in its own
// group", which does not affect the exit code. They never change the status.
func (x *driftWriter) groups(gs []model.DriftGroup) {
	for _, g := range gs {
		if x.w.Over() {
			return
		}
		x.w.Block()
		if g.Name == model.HiddenGroup {
			x.w.Write("**🔒 Hidden by cdkd (", strconv.Itoa(len(g.Entries)), ")** · cdkd reports these positions in a group of their own and prints neither the stored nor the live value; they do not change the status, and `--accept` and `--revert` leave them alone.\n")
		} else {
			x.w.Write("**Group ", nameCode(g.Name), " (", strconv.Itoa(len(g.Entries)), ")** · a group of cdkd's report this version of cdkd-action does not know, shown as cdkd reported it (names and paths only); it does not change the status.\n")
		}
		for i, e := range g.Entries {
			if x.w.Over() {
				return
			}
			if i == x.listLimit() {
				x.w.WriteString(moreItems(len(g.Entries) - listMax))
				break
			}
			x.w.Write("- ", nameCode(e.LogicalID))
			if e.Type != "" {
				x.w.Write(" · ", nameCode(e.Type))
			}
			if len(e.Paths) > 0 && x.rung.details {
				x.w.Write(" · ", codeList(e.Paths, -1))
			}
			x.w.WriteString("\n")
		}
	}
}
