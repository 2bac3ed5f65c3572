package docscheck

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// InputDefaults checks docs/inputs.md's table of inputs (| input | type |
// required | default | what it does |) against action.yml: one row per
// input, each with action.yml's default, so the table adopters read
// cannot drift from what the runner applies.
func InputDefaults(root string) ([]Problem, error) {
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
	}
	text, err := readActionAndInputs(root, &action)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	seen := map[string]bool{}
	inTable := false
	for i, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "| input | type | required | default |") {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "| `") {
			if len(seen) > 0 {
				break // the table ended
			}
			continue
		}
		cells := strings.Split(line, " | ")
		if len(cells) < 5 {
			problems = append(problems, Problem{inputsDoc, i + 1, "a row of the inputs table has fewer than 5 columns"})
			continue
		}
		name := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		in, ok := action.Inputs[name]
		if !ok {
			problems = append(problems, Problem{inputsDoc, i + 1, fmt.Sprintf("the inputs table names `%s`, which action.yml does not declare", name)})
			continue
		}
		seen[name] = true
		want := ""
		if in.Default != "" {
			want = "`" + in.Default + "`"
		}
		if got := strings.TrimSpace(cells[3]); got != want {
			problems = append(problems, Problem{inputsDoc, i + 1, fmt.Sprintf("the default of `%s` is %q here but %q in action.yml", name, got, want)})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(action.Inputs)) {
		if !seen[name] {
			problems = append(problems, Problem{File: inputsDoc, Msg: fmt.Sprintf("the inputs table (| input | type | required | default | what it does |) has no row for `%s`", name)})
		}
	}
	return problems, nil
}

// inputsDoc is the reference of every input and output.
const inputsDoc = "docs/inputs.md"

// readActionAndInputs decodes root's action.yml into action and returns
// docs/inputs.md's text.
func readActionAndInputs(root string, action any) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		return nil, fmt.Errorf("read action.yml: %w", err)
	}
	if err := yaml.Unmarshal(b, action); err != nil {
		return nil, fmt.Errorf("read action.yml: %w", err)
	}
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(inputsDoc)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", inputsDoc, err)
	}
	return text, nil
}
