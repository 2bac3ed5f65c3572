package assembly

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Load reads manifest.json, every stack artifact and, recursively, nested
// cloud assemblies (CDK Stages) and nested stacks (AWS::CloudFormation::Stack
// whose template CDK wrote next to the parent's).
func Load(dir string) (*Assembly, error) {
	l := loader{seen: map[string]bool{}, assets: map[string]map[string]string{}, templates: map[string][]byte{}}
	if err := l.assembly(dir); err != nil {
		return nil, err
	}
	slices.SortStableFunc(l.stacks, func(a, b Stack) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Region, b.Region),
			cmp.Compare(a.DisplayName, b.DisplayName))
	})
	return &Assembly{Stacks: l.stacks, templates: l.templates}, nil
}

type manifest struct {
	Artifacts map[string]artifact `json:"artifacts"`
}

type artifact struct {
	Type        string          `json:"type"`
	Environment string          `json:"environment"`
	DisplayName string          `json:"displayName"`
	Properties  json.RawMessage `json:"properties"`
	// Dependencies are artifact ids: stacks, asset manifests, ...
	Dependencies []string `json:"dependencies"`
}

type stackProperties struct {
	TemplateFile string `json:"templateFile"`
	StackName    string `json:"stackName"`
}

type assemblyProperties struct {
	DirectoryName string `json:"directoryName"`
}

// maxNesting bounds nested stacks within nested stacks; CloudFormation
// itself allows five levels.
const maxNesting = 16

type loader struct {
	seen   map[string]bool
	stacks []Stack
	// assets caches, per assembly directory, the file assets its asset
	// manifests name (see nested.go).
	assets map[string]map[string]string
	// templates are the bytes of the templates read, by file.
	templates map[string][]byte
}

func (l *loader) assembly(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("read manifest %s: %w", dir, err)
	}
	if l.seen[abs] {
		return fmt.Errorf("read manifest %s: nested assembly refers back to itself", filepath.Join(dir, "manifest.json"))
	}
	l.seen[abs] = true

	path := filepath.Join(dir, "manifest.json")
	var m manifest
	if err := decodeFile(path, &m); err != nil {
		return fmt.Errorf("read manifest %s: %w", path, err)
	}
	ids := make([]string, 0, len(m.Artifacts))
	for id := range m.Artifacts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		a := m.Artifacts[id]
		switch a.Type {
		case "aws:cloudformation:stack":
			if err := l.stackArtifact(dir, path, &m, id); err != nil {
				return err
			}
		case "cdk:cloud-assembly":
			var p assemblyProperties
			if err := decodeProperties(a.Properties, &p); err != nil {
				return fmt.Errorf("read manifest %s: artifact %s: %w", path, id, err)
			}
			if p.DirectoryName == "" {
				return fmt.Errorf("read manifest %s: artifact %s: nested assembly without directoryName", path, id)
			}
			if err := l.assembly(filepath.Join(dir, p.DirectoryName)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *loader) stackArtifact(dir, manifestPath string, m *manifest, id string) error {
	a := m.Artifacts[id]
	var p stackProperties
	if err := decodeProperties(a.Properties, &p); err != nil {
		return fmt.Errorf("read manifest %s: artifact %s: %w", manifestPath, id, err)
	}
	if p.TemplateFile == "" {
		return fmt.Errorf("read manifest %s: stack %s has no templateFile", manifestPath, id)
	}
	account, region := parseEnvironment(a.Environment)
	var deps []string
	for _, dep := range a.Dependencies {
		if d, ok := m.Artifacts[dep]; ok && d.Type == "aws:cloudformation:stack" {
			var dp stackProperties
			_ = decodeProperties(d.Properties, &dp) // a broken one fails when it is read itself
			deps = append(deps, cmp.Or(dp.StackName, dep))
		}
	}
	slices.Sort(deps)
	s := Stack{
		DependsOn:    deps,
		Name:         cmp.Or(p.StackName, id),
		DisplayName:  cmp.Or(a.DisplayName, p.StackName, id),
		ArtifactID:   id,
		Region:       region,
		Account:      account,
		TemplateFile: filepath.Join(dir, p.TemplateFile),
	}
	return l.stack(dir, s, nil, 0, nil)
}

// stack reads s.TemplateFile, traces it and then its nested stacks. passed
// holds, for a nested stack, what its parent passes into each parameter.
func (l *loader) stack(dir string, s Stack, passed map[string][]src, depth int, chain []string) error {
	b, tpl, err := readTemplate(s.TemplateFile)
	if err != nil {
		return err
	}
	l.templates[s.TemplateFile] = b
	t := newTracer(tpl, s, passed)
	t.trace()
	t.fill(&s)
	s.Resources = tpl.resourceIDs()
	s.Types = tpl.types()
	l.stacks = append(l.stacks, s)

	for _, n := range tpl.nestedStacks() {
		c := Stack{
			Name:    s.Name + "~" + n.logicalID,
			Parent:  s.Name,
			Region:  s.Region,
			Account: s.Account,
		}
		c.DisplayName = c.Name // cdkd shows nested stacks by their state name
		rel, err := l.nestedTemplate(dir, n, c.Name)
		if err != nil {
			return fmt.Errorf("read template %s: nested stack %s: %w", s.TemplateFile, n.logicalID, err)
		}
		if rel == "" {
			// Not "no secrets here": an unknown position (see Unknown).
			c.Unknown = fmt.Sprintf("the template of nested stack %s is not in the cloud assembly (no aws:asset:path metadata or asset manifest entry names a file that exists)", c.Name)
			l.stacks = append(l.stacks, c)
			continue
		}
		child := filepath.Join(dir, rel)
		if depth+1 > maxNesting || slices.Contains(chain, child) {
			return fmt.Errorf("read template %s: nested stack %s: stacks nest too deep or in a cycle",
				s.TemplateFile, n.logicalID)
		}
		c.TemplateFile = child
		if err := l.stack(dir, c, t.passedTo(n.logicalID), depth+1, append(chain, s.TemplateFile)); err != nil {
			return err
		}
	}
	return nil
}

// parseEnvironment splits "aws://account/region"; CDK's unknown-account and
// unknown-region placeholders become "".
func parseEnvironment(env string) (account, region string) {
	rest, ok := strings.CutPrefix(env, "aws://")
	if !ok {
		return "", ""
	}
	account, region, _ = strings.Cut(rest, "/")
	if account == "unknown-account" {
		account = ""
	}
	if region == "unknown-region" {
		region = ""
	}
	return account, region
}

func decodeProperties(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode properties: %w", err)
	}
	return nil
}

func decodeFile(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode JSON: %w", err)
	}
	return nil
}
