package config

import (
	"slices"
	"strings"
	"testing"
)

// A description that starts with the commands it is for ("deploy, verify:
// …") must name exactly the commands readBy lists, so the reader of
// action.yml and `--help` are told the same; every name in readBy is an
// input.
func TestReadByAgreesWithActionYAML(t *testing.T) {
	specs, err := Specs()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range specs {
		names[s.Name] = true
		head, _, ok := strings.Cut(s.Description, ":")
		if !ok {
			continue
		}
		var said []Command
		for _, w := range strings.Split(head, ",") {
			c := Command(strings.TrimSpace(w))
			if !slices.Contains(Commands, c) {
				said = nil
				break
			}
			said = append(said, c)
		}
		if said != nil && !slices.Equal(said, readBy[s.Name]) {
			t.Errorf("input %s: action.yml's description says it is for %v, readBy says %v", s.Name, said, readBy[s.Name])
		}
	}
	for name := range readBy {
		if !names[name] {
			t.Errorf("readBy names %q, which action.yml does not declare", name)
		}
	}
}
