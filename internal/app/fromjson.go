package app

import (
	"fmt"
	"os"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// fromJSONFile is the from-json file, read once, before the cloud assembly
// loads. A cdkd diff in it is decoded meanwhile on another core: the two
// are independent and take about as long on a large app, and nothing is
// printed from the decoded diff before it is redacted (obtainDiff waits).
type fromJSONFile struct {
	b   []byte
	err error // reading it

	decoded   chan struct{} // closed when diff and decodeErr are set; nil: not decoding
	diff      model.Diff
	decodeErr error
}

// fromJSON is the from-json input, read on first use: run reads it before
// the assembly loads, so that a diff in it decodes meanwhile.
func (r *Env) fromJSON() *fromJSONFile {
	if r.fromFile == nil {
		r.fromFile = readFromJSON(r.cfg.FromJSON, r.cfg.Command)
	}
	return r.fromFile
}

// readFromJSON reads path and, for the diff command, starts decoding it
// when it holds cdkd's diff rather than a report cdkd-action wrote.
func readFromJSON(path string, command config.Command) *fromJSONFile {
	f := &fromJSONFile{}
	f.b, f.err = os.ReadFile(path)
	if f.err != nil || command != config.CommandDiff {
		return f
	}
	if _, isReport, _ := model.ReportHeader(f.b); isReport {
		return f
	}
	f.decoded = make(chan struct{})
	go func() {
		defer close(f.decoded)
		f.diff, f.decodeErr = cdkd.DecodeDiff(f.b)
	}()
	return f
}

// bytes are the file's content, or why it could not be read.
func (f *fromJSONFile) bytes(path string) ([]byte, error) {
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
