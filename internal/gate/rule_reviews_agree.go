package gate

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// reviewsAgree: the pull requests merged together do not review one change
// with different outcomes (see cover.go).
type reviewsAgree struct{}

func (reviewsAgree) about() about {
	return about{reason: reason.ReviewsContradict, waivable: true}
}

func (reviewsAgree) check(s *state) *finding {
	if !s.judged() {
		return nil
	}
	cov, whole := s.coverage()
	if !whole || len(cov.Contradictions) == 0 {
		return nil
	}
	s.d.Differs = cov.Differs
	return &finding{title: "Reviews contradict each other",
		msg:  fmt.Sprintf("The pull requests merged in this push reviewed some changes differently: %s", strings.Join(cov.Contradictions, "; ")),
		hint: "Review the merged result in one pull request."}
}
