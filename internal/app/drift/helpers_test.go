package drift

import (
	"io"

	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// testRun is a local drift check of cfg whose log goes to log.
func testRun(log io.Writer, cfg config.Config) *run {
	getenv := func(string) string { return "" }
	var gh ghctx.Context
	p := parts.New(parts.Setup{Getenv: getenv, LogOut: log}, &cfg, &gh)
	p.SetLocal(true)
	return &run{Options: OptionsOf(p, cfg, gh, getenv)}
}
