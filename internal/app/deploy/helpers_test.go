package deploy

import (
	"io"

	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// testOptions are the parts of a local gated run of cfg whose log goes to
// log.
func testOptions(log io.Writer, cfg config.Config) gatecheck.Options {
	getenv := func(string) string { return "" }
	var gh ghctx.Context
	p := parts.New(parts.Setup{Getenv: getenv, LogOut: log}, &cfg, &gh)
	p.SetLocal(true)
	return gatecheck.OptionsOf(p, cfg, gh, true)
}
