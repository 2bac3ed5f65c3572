package main

// writers gives each login write access to the repository: only such an
// account's approval counts.
func (w *workspace) writers(logins ...string) {
	w.t.Helper()
	for _, l := range logins {
		w.gh.SetPermission(owner, repo, l, "write")
	}
}
