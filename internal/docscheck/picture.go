package docscheck

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// README says its picture, docs/images/pr-comment.png, is its run
// command's output as GitHub renders it. Nothing can compare pixels with
// Markdown, so the render script records, beside the image, the sha256 of
// the output it rendered; the picture is stale when the run command's
// output today hashes otherwise.

const (
	// PictureFile is README's picture of the run command's output.
	PictureFile = "docs/images/pr-comment.png"
	// PictureHashFile records the sha256 of the output it was rendered from.
	PictureHashFile = PictureFile + ".sha256"
	// RegeneratePicture is the one command that renders the picture and
	// records its hash again.
	RegeneratePicture = "scripts/readme-picture/render.sh"
)

// RunCommand is README's run command: the one line of the code block
// under <!-- run-command -->.
func RunCommand(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		return "", fmt.Errorf("read README.md: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	marked, fenced := false, false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "<!-- run-command -->":
			marked = true
		case marked && !fenced && strings.HasPrefix(line, "```"):
			fenced = true
		case fenced && line != "":
			return line, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("read README.md: %w", err)
	}
	return "", fmt.Errorf("README.md has no run command (a code block under <!-- run-command -->)")
}

// Picture checks that the picture was rendered from output, what README's
// run command prints today.
func Picture(root string, output []byte) ([]Problem, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(PictureHashFile)))
	if os.IsNotExist(err) {
		return []Problem{{File: PictureHashFile, Msg: fmt.Sprintf("missing: it records the sha256 of the run command's output %s shows; run %s", PictureFile, RegeneratePicture)}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", PictureHashFile, err)
	}
	recorded := strings.Fields(string(b))
	sum := sha256.Sum256(output)
	now := hex.EncodeToString(sum[:])
	if len(recorded) == 0 || recorded[0] != now {
		was := "nothing"
		if len(recorded) > 0 {
			was = recorded[0]
		}
		return []Problem{{File: PictureHashFile, Msg: fmt.Sprintf("%s shows another output of README's run command than it prints today (recorded sha256 %s, now %s): regenerate it with %s and review it", PictureFile, was, now, RegeneratePicture)}}, nil
	}
	return nil, nil
}
