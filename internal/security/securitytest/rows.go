// Package securitytest gives tests and benchmarks a diff's security rows
// without the pipeline that gathers each resource's values.
package securitytest

import (
	"encoding/json"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// AddRows fills each stack's security rows from its updates' property
// changes, as the pipeline reads an update (Resource.FromChanges): two
// table rows per changed policy of cdkdtest.DiffJSON.
func AddRows(d model.Diff) {
	for i := range d.Stacks {
		s := &d.Stacks[i]
		var rs []security.Resource
		for _, ch := range s.Changes {
			if ch.ChangeType != model.ChangeUpdate || !security.Scrutinized(ch.ResourceType) {
				continue
			}
			r := security.Resource{Stack: s.Stack, Region: s.Region, LogicalID: ch.LogicalID, Type: ch.ResourceType,
				Old: map[string]json.RawMessage{}, New: map[string]json.RawMessage{}}
			r.FromChanges(ch.PropertyChanges)
			rs = append(rs, r)
		}
		s.Security = security.Changes(rs)
	}
}
