// Package fromjson reads the from-json input: a saved cdkd diff or drift
// JSON a command reads instead of running cdkd, or a report JSON an
// earlier run wrote, rendered again (Render) without cdkd.
package fromjson

import (
	"fmt"
	"os"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// File is the from-json file, read once, while the cloud assembly loads,
// and a cdkd diff in it decoded there too: on a large app the two take
// about as long, each on a core of its own. Nothing is printed from the
// diff before it is redacted (the diff waits for it).
type File struct {
	// Path is the from-json input.
	Path string

	read chan struct{} // closed when b, err and decoded are set
	b    []byte
	err  error // reading it

	decoded   chan struct{} // closed when diff and decodeErr are set; nil: not decoding
	diff      model.Diff
	decodeErr error
}

// Open starts reading path and, for the diff command, decoding it when it
// holds cdkd's diff rather than a report cdkd-action wrote.
func Open(path string, command config.Command) *File {
	f := &File{Path: path, read: make(chan struct{})}
	go func() {
		b, err := os.ReadFile(path)
		decode := err == nil && command == config.CommandDiff
		if decode {
			_, isReport, _ := model.ReportHeader(b)
			decode = !isReport
		}
		f.b, f.err = b, err
		if decode {
			f.decoded = make(chan struct{})
			defer close(f.decoded)
		}
		close(f.read)
		if decode {
			f.diff, f.decodeErr = cdkd.DecodeDiff(b)
		}
	}()
	return f
}

// Bytes are the file's content, or why it could not be read.
func (f *File) Bytes() ([]byte, error) {
	<-f.read
	if f.err != nil {
		return nil, fmt.Errorf("read from-json %s: %w", f.Path, f.err)
	}
	return f.b, nil
}

// Diff is the cdkd diff the file holds. A run reads its diff once: the
// file and the diff are let go here, not held through the report.
func (f *File) Diff() (model.Diff, error) {
	if _, err := f.Bytes(); err != nil {
		return model.Diff{}, err
	}
	if f.decoded == nil { // a report: Render rendered it
		f.diff, f.decodeErr = cdkd.DecodeDiff(f.b)
	} else {
		<-f.decoded
	}
	d, err := f.diff, f.decodeErr
	f.b, f.diff = nil, model.Diff{} // the diff holds copies of what it read
	if err != nil {
		return model.Diff{}, &config.InputError{Input: "from-json", Msg: fmt.Sprintf("expected cdkd diff --json output in %s: %v", f.Path, err)}
	}
	return d, nil
}
