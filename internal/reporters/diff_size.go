package reporters

import "github.com/cdkd-action/cdkd-action/internal/model"

// unlimitedSize estimates, generously, the bytes of a whole diff report.
func unlimitedSize(d model.Diff) int {
	n := 4096
	d.Walk(func(_ string, s model.StackDiff) {
		n += 512 + 128*len(s.OutputChanges)
		for _, c := range s.Changes {
			n += 64 + len(c.LogicalID) + len(c.ResourceType)
			for _, p := range c.PropertyChanges {
				n += 64 + len(p.Path) + 2*(len(p.Old.Raw)+len(p.New.Raw))
			}
		}
	})
	return n
}
