// Command checkdocs checks the documentation's promises (internal/docscheck):
// every relative link of README.md and docs/ resolves, files and #anchors
// as GitHub names them, docs/inputs.md names every input and output of
// action.yml, docs/architecture.md's package layout every package, and
// README's picture was rendered from what its run command prints today
// (it runs that command). .ci/run runs it from the repository root; an
// argument names another root.
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/docscheck"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	problems, err := docscheck.Check(root)
	if err == nil {
		var picture []docscheck.Problem
		picture, err = checkPicture(root)
		problems = append(problems, picture...)
	}
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

// checkPicture runs README's run command in root, as a newcomer would,
// and checks the picture against its output.
func checkPicture(root string) ([]docscheck.Problem, error) {
	line, err := docscheck.RunCommand(root)
	if err != nil {
		return nil, err
	}
	// A build and a render: a few seconds, minutes on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = root
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run README's run command %q: %w\n%s", line, err, stderr.String())
	}
	return docscheck.Picture(root, out.Bytes())
}
