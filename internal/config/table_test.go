package config_test

import (
	"github.com/cdkd-action/cdkd-action/internal/app"
	"github.com/cdkd-action/cdkd-action/internal/config"
)

// The table of commands is internal/app's, which imports config: only an
// external test package can hand it to config's own tests.
func init() { config.TableCommands = app.Commands() }
