package gate

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// createsBound: every created resource's properties are bound to the
// review. Created with what? When nothing in the review says, any synth
// at deploy time would pass under the same digest.
type createsBound struct{}

func (createsBound) about() about {
	return about{reason: reason.DiffUnverifiable, waivable: true}
}

func (createsBound) check(s *state) *finding {
	unbound, why := s.cur.Diff.UnboundCreates()
	if len(unbound) == 0 {
		return nil
	}
	return &finding{title: "Change set cannot be verified",
		msg:  fmt.Sprintf("The change set creates %s, whose properties are not bound to the review (%s)", strings.Join(unbound, ", "), why),
		hint: AssemblyHint}
}
