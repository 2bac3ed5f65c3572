// Command checkdocs checks the documentation's promises (internal/docscheck):
// every relative link of README.md and docs/ resolves, files and #anchors
// as GitHub names them, docs/inputs.md names every input and output of
// action.yml, and docs/architecture.md's package layout every package.
// .ci/run runs it from the repository root; an argument names another
// root.
package main

import (
	"fmt"
	"os"

	"github.com/cdkd-action/cdkd-action/internal/docscheck"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	problems, err := docscheck.Check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkdocs:", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "checkdocs: %d problem(s) in README.md, docs/ or action.yml's reference\n", len(problems))
		os.Exit(1)
	}
}
