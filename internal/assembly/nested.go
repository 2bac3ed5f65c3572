package assembly

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// nestedTemplate finds a nested stack's template in the assembly directory
// dir and returns its path relative to dir, or "" when no file is found.
// It tries, in order, the resource's aws:asset:path metadata and the asset
// manifests (*.assets.json), which name every file asset by the object key
// its TemplateURL ends in (an assembly synthesized with
// --asset-metadata=false has no metadata, but always has the manifests),
// and a file named after cdkd's name for the nested stack
// ("StackA~Child.template.json" or ".nested.template.json").
func (l *loader) nestedTemplate(dir string, n nestedStack, name string) (string, error) {
	var candidates []string
	if n.assetPath != "" {
		candidates = append(candidates, n.assetPath)
	}
	assets, err := l.fileAssets(dir)
	if err != nil {
		return "", err
	}
	for _, key := range n.objectKeys {
		if p, ok := assets[key]; ok {
			candidates = append(candidates, p)
		}
	}
	candidates = append(candidates, name+".nested.template.json", name+".template.json")
	for _, rel := range candidates {
		if !filepath.IsLocal(rel) {
			return "", fmt.Errorf("template path %q is outside the assembly", rel)
		}
		if fi, err := os.Stat(filepath.Join(dir, rel)); err == nil && fi.Mode().IsRegular() {
			return rel, nil
		}
	}
	return "", nil
}

type assetManifest struct {
	Files map[string]struct {
		Source struct {
			Path      string `json:"path"`
			Packaging string `json:"packaging"`
		} `json:"source"`
		Destinations map[string]struct {
			ObjectKey string `json:"objectKey"`
		} `json:"destinations"`
	} `json:"files"`
}

// fileAssets maps, for the asset manifests in dir, each file asset's object
// key (and its id plus ".json", CDK's default key) to its source path. A
// manifest that cannot be read is an error: it may be the one that names
// a nested template.
func (l *loader) fileAssets(dir string) (map[string]string, error) {
	if m, ok := l.assets[dir]; ok {
		return m, nil
	}
	m := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list assembly %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".assets.json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		var am assetManifest
		if err := decodeFile(path, &am); err != nil {
			return nil, fmt.Errorf("read asset manifest %s: %w", path, err)
		}
		for _, id := range slices.Sorted(maps.Keys(am.Files)) {
			f := am.Files[id]
			if f.Source.Path == "" || (f.Source.Packaging != "" && f.Source.Packaging != "file") {
				continue
			}
			m[id+".json"] = f.Source.Path
			for _, d := range f.Destinations {
				if d.ObjectKey != "" {
					m[d.ObjectKey] = f.Source.Path
				}
			}
		}
	}
	l.assets[dir] = m
	return m, nil
}
