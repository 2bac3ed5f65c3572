package config

import (
	"fmt"
	"slices"
	"strings"
)

// An input reaches the binary as the variable the runner sets for it,
// INPUT_STATE-BUCKET, which bash cannot export; a local run also reads
// the spelling it can, INPUT_STATE_BUCKET.

// envName is the variable the runner sets for an input: upper-cased, spaces
// to underscores, hyphens kept.
func envName(input string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(input, " ", "_"))
}

// shellName is the spelling of envName a shell can export: hyphens to
// underscores.
func shellName(input string) string {
	return strings.ReplaceAll(envName(input), "-", "_")
}

// lookup reads one input the way the runner passes it; a local run also
// reads the shell's spelling, and the runner's wins when both are set.
func lookup(getenv func(string) string, name string, local bool) (string, bool) {
	v := getenv(envName(name))
	if v == "" && local {
		v = getenv(shellName(name))
	}
	if v == "" {
		// The runner sets every declared input, so empty and absent are the
		// same to us: both take the default.
		return "", false
	}
	return v, true
}

// EnvironWarnings are the warnings a local run owes about its INPUT_
// variables (environ is NAME=value): one that names no input does
// nothing, and an input given in both spellings with different values
// takes the runner's. Inside a runner the runner itself warns of an
// unexpected input, and only its spelling is read.
func EnvironWarnings(environ []string) []string {
	specs, err := Specs()
	if err != nil {
		return nil
	}
	set := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "INPUT_") && v != "" {
			set[k] = v
		}
	}
	known := map[string]bool{}
	var out []string
	for _, s := range specs {
		runner, shell := envName(s.Name), shellName(s.Name)
		known[runner], known[shell] = true, true
		if a, b := set[runner], set[shell]; runner != shell && a != "" && b != "" && a != b {
			out = append(out, fmt.Sprintf("%s and %s are both set, to different values: input %s takes %s's (the runner's spelling)", runner, shell, s.Name, runner))
		}
	}
	var unknown []string
	for k := range set {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		out = append(out, fmt.Sprintf("%s names no input of this action, so it does nothing: an input is read from INPUT_ and its name upper-cased, as INPUT_STATE_BUCKET for state-bucket (cdkd-action --help lists the inputs)", k))
	}
	return out
}
