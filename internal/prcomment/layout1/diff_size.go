package layout1

import "github.com/cdkd-action/cdkd-action/internal/model"

// unlimitedSize estimates, generously, the bytes of a whole diff report:
// the buffer is sized once, as a report of megabytes grown by doubling
// costs more than writing it.
func unlimitedSize(d model.Diff) int {
	n := 4096
	d.Walk(func(path string, s model.StackDiff) {
		n += 512 + 128*len(s.OutputChanges)
		for _, c := range s.Changes {
			n += 64 + len(c.LogicalID) + len(c.ResourceType)
			if c.Destructive() {
				// Its line in the callout.
				n += 64 + len(c.LogicalID) + len(c.ResourceType) + len(path)
			}
			for _, p := range c.PropertyChanges {
				n += 64 + len(p.Path) + 2*(len(p.Old.Raw)+len(p.New.Raw))
			}
		}
		for i := range s.Security {
			n += securityRowSize(&s.Security[i])
		}
	})
	return n
}

// securityRowSize estimates a security table row: its markup, and each
// value once escaped.
func securityRowSize(c *model.SecurityChange) int {
	n := 160 + 2*(len(c.LogicalID)+len(c.Property)+len(c.Item)+len(c.Note)+len(c.ManagedPolicy))
	if st := c.Statement; st != nil {
		n += 2 * (len(st.Raw) + len(st.Condition))
		for _, list := range [][]string{st.Actions, st.Resources, st.Principals} {
			for _, v := range list {
				n += 24 + 2*len(v)
			}
		}
	}
	if r := c.Rule; r != nil {
		n += 64 + 2*(len(r.Group)+len(r.Peer)+len(r.Raw))
	}
	return n
}
