package workflow

// IsActions reports whether we run inside GitHub Actions, which sets
// GITHUB_ACTIONS=true for every step. Inputs themselves are read by
// internal/config, which applies action.yml's defaults.
func IsActions(getenv func(string) string) bool {
	return getenv("GITHUB_ACTIONS") == "true"
}
