package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	cdkdaction "github.com/cdkd-action/cdkd-action"
)

// InputSpec is one input declared in action.yml.
type InputSpec struct {
	Name        string
	Default     string
	Description string
}

type actionFile struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
}

// Specs returns the inputs action.yml declares, sorted by name. The binary
// applies their defaults itself so local runs behave like the runner.
func Specs() ([]InputSpec, error) {
	specs, err := parsedSpecs()
	return slices.Clone(specs), err
}

// parsedSpecs parses the embedded action.yml once: a run asks for its
// inputs several times, and each parse of the YAML took about a
// millisecond.
var parsedSpecs = sync.OnceValues(parseSpecs)

func parseSpecs() ([]InputSpec, error) {
	var f actionFile
	if err := yaml.Unmarshal(cdkdaction.ActionYAML, &f); err != nil {
		return nil, fmt.Errorf("parse embedded action.yml: %w", err)
	}
	specs := make([]InputSpec, 0, len(f.Inputs))
	for name, in := range f.Inputs {
		def := in.Default
		// An expression default is evaluated by the runner; outside it there
		// is nothing to evaluate, so it counts as empty.
		if strings.Contains(def, "${{") {
			def = ""
		}
		specs = append(specs, InputSpec{Name: name, Default: def, Description: in.Description})
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs, nil
}
