// Package cdkdaction embeds the action's metadata so the binary applies the
// same input defaults as the runner: action.yml is the one source of truth.
package cdkdaction

import _ "embed"

// ActionYAML is action.yml as shipped.
//
//go:embed action.yml
var ActionYAML []byte
