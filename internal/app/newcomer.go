package app

import (
	"github.com/cdkd-action/cdkd-action/internal/config"
)

// warnNewcomer warns of what a new user trips on and the run cannot
// refuse: INPUT_ variables a local run does not read as they hoped.
func (e *Env) warnNewcomer() {
	if e.local {
		for _, w := range config.EnvironWarnings(e.app.environ()) {
			e.parts.Runner.Warning(w)
		}
	}
}
