package workflow

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"
)

// validName is what an output name may be: it must not contain "=" or "<<"
// (the runner would split the header line elsewhere) nor a newline.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// delimiterTries bounds regeneration when a delimiter occurs in the value;
// with 128 random bits this only matters for a broken Rand.
const delimiterTries = 10

// SetOutput appends name/value to $GITHUB_OUTPUT in the heredoc form
//
//	name<<ghadelimiter_<32 hex>
//	value
//	ghadelimiter_<32 hex>
//
// with a fresh random delimiter per value, regenerated if it occurs in the
// value, so no value can end early and define other outputs. Every output is
// also recorded for Outputs; without GITHUB_OUTPUT (local mode) that is all.
func (r *Runner) SetOutput(name, value string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("set output %q: name must match [A-Za-z0-9_-]+", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if path := r.Getenv("GITHUB_OUTPUT"); path != "" {
		delim, err := r.delimiterFor(value)
		if err != nil {
			return fmt.Errorf("set output %s: %w", name, err)
		}
		if err := appendFile(path, name+"<<"+delim+"\n"+value+"\n"+delim+"\n"); err != nil {
			return fmt.Errorf("set output %s: %w", name, err)
		}
	}
	if r.outputs == nil {
		r.outputs = map[string]string{}
	}
	r.outputs[name] = value
	return nil
}

// Outputs returns a copy of every output set so far, in both modes; local
// mode prints them from here.
func (r *Runner) Outputs() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.outputs)
}

func (r *Runner) delimiterFor(value string) (string, error) {
	for range delimiterTries {
		h, err := r.randomHex()
		if err != nil {
			return "", err
		}
		delim := "ghadelimiter_" + h
		if !strings.Contains(value, delim) {
			return delim, nil
		}
	}
	return "", errors.New("no heredoc delimiter absent from the value")
}

// appendFile writes s to the end of path with a single write.
func appendFile(path, s string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	if _, err := f.WriteString(s); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return nil
}
