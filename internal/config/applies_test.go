package config

import (
	"slices"
	"strings"
	"testing"
)

// A description that starts with the commands it is for ("deploy, verify:
// …") must name exactly the commands whose table entry lists it, so the
// reader of action.yml and `--help` are told the same; every input an entry
// lists is an input.
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
			if _, ok := TableCommands.Lookup(c); !ok {
				said = nil
				break
			}
			said = append(said, c)
		}
		if by := TableCommands.readBy(s.Name); said != nil && !slices.Equal(said, by) {
			t.Errorf("input %s: action.yml's description says it is for %v, the table of commands says %v", s.Name, said, by)
		}
	}
	for _, c := range TableCommands {
		for _, name := range c.Inputs {
			if !names[name] {
				t.Errorf("command %s reads %q, which action.yml does not declare", c.Name, name)
			}
		}
	}
}
