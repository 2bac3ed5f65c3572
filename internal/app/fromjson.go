package app

import (
	"fmt"
	"os"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// fromJSONFile is the from-json file, read once, while the cloud assembly
// loads, and a cdkd diff in it decoded there too: on a large app the two
// take about as long, each on a core of its own. Nothing is printed from
// the diff before it is redacted (obtainDiff waits for it).
type fromJSONFile struct {
	read chan struct{} // closed when b, err and decoded are set
	b    []byte
	err  error // reading it

	decoded   chan struct{} // closed when diff and decodeErr are set; nil: not decoding
	diff      model.Diff
	decodeErr error
}

// fromJSON is the from-json input, read on first use: run starts it before
// the assembly loads.
func (r *Env) fromJSON() *fromJSONFile {
	if r.fromFile == nil {
		r.fromFile = readFromJSON(r.cfg.FromJSON, r.cfg.Command)
	}
	return r.fromFile
}

// readFromJSON starts reading path and, for the diff command, decoding it
// when it holds cdkd's diff rather than a report cdkd-action wrote.
func readFromJSON(path string, command config.Command) *fromJSONFile {
	f := &fromJSONFile{read: make(chan struct{})}
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

// bytes are the file's content, or why it could not be read.
func (f *fromJSONFile) bytes(path string) ([]byte, error) {
	<-f.read
	if f.err != nil {
		return nil, fmt.Errorf("read from-json %s: %w", path, f.err)
	}
	return f.b, nil
}

// diffIn is the diff decoded from path (the from-json input). A run reads
// its diff once: the file and the diff are let go here, not held through
// the report.
func (f *fromJSONFile) diffIn(path string) (model.Diff, error) {
	if _, err := f.bytes(path); err != nil {
		return model.Diff{}, err
	}
	if f.decoded == nil { // a report: fromReport rendered it
		f.diff, f.decodeErr = cdkd.DecodeDiff(f.b)
	} else {
		<-f.decoded
	}
	d, err := f.diff, f.decodeErr
	f.b, f.diff = nil, model.Diff{} // the diff holds copies of what it read
	if err != nil {
		return model.Diff{}, &config.InputError{Input: "from-json", Msg: fmt.Sprintf("expected cdkd diff --json output in %s: %v", path, err)}
	}
	return d, nil
}
