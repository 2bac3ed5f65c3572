package config

import (
	"path/filepath"
	"strings"
)

// OutputsFileIn finds --outputs-file among args, taken against dir as
// LoadIn takes it, for a run whose inputs could not be loaded: its
// refusal still writes failure-reason there, as every other refusal does.
// It is "" when the flag is absent or names a file that cannot be written.
func OutputsFileIn(dir string, args []string) string {
	var path string
	for i, a := range args {
		if a == "--" {
			break
		}
		name, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "outputs-file" || !strings.HasPrefix(a, "-") {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				break
			}
			v = args[i+1]
		}
		path = v
	}
	if path == "" {
		return ""
	}
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if writableFile(path) != nil {
		return ""
	}
	return path
}
