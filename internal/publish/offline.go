package publish

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/redacted"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// The targets that need no API: the report JSON file, the job summary,
// stdout and the step outputs. Their failures are said where they happen
// (a warning, or an error for the report a local user asked for) and never
// fail the run.

// ReportJSON writes the result, redacted, as compact JSON (programs read
// it; jq pretty-prints it for a person). Inside a workflow it goes to
// .cdkd-action/ in the workspace and its path is relative to the
// workspace: the action runs in a container, where RUNNER_TEMP is a path
// later steps on the host cannot open, while the workspace is the same
// directory for both. Outside one it goes to a folder of its own per run:
// a fixed temporary path would be shared by concurrent runs.
type ReportJSON struct {
	Workspace  string // GITHUB_WORKSPACE
	RunnerTemp string // RUNNER_TEMP, used when there is no workspace
	Label      string
	// Path, when set (--report-json), is the file to write, wherever the
	// run is.
	Path   string
	Output string // the output naming the path
	// Lost, when set, hears of a Path that could not be written.
	Lost func(error)
	// Required: the file is the run's product (a publish: false shard,
	// whose report only the aggregate reads), so failing to write it fails
	// the run (ErrReportNotWritten). Otherwise it is a warning.
	Required bool
	// Files is where the file is written; nil is the OS's file system.
	Files Files

	folder string // the run's own folder outside a workspace
	// wrote is the file last written ("" when none), which Rewrite writes
	// over.
	wrote string
}

// Rewrite writes result over the file Publish wrote, when it wrote one.
func (t *ReportJSON) Rewrite(result func(io.Writer) error) error {
	if t.wrote == "" {
		return nil
	}
	return t.writeFile(t.wrote, result)
}

// ErrReportNotWritten is wrapped by the error of a Required report JSON
// that could not be written.
var ErrReportNotWritten = errors.New("the report JSON, this run's product, could not be written")

// Files is the little of a file system the report JSON needs: a temporary
// file beside the report, renamed over it once complete, so a reader never
// sees half a report.
type Files interface {
	CreateTemp(dir, pattern string) (File, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
}

// File is a temporary file being written (*os.File is one).
type File interface {
	io.Writer
	Close() error
	Name() string
}

// osFiles is the OS's file system.
type osFiles struct{}

func (osFiles) CreateTemp(dir, pattern string) (File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	// Readable by later steps: the action's container runs as root, the
	// job's other steps do not. The content is redacted.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

func (osFiles) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
func (osFiles) Remove(name string) error             { return os.Remove(name) }

func (t *ReportJSON) Policy(*View) Policy {
	return Policy{What: "the report JSON", Optional: !t.Required}
}

func (t *ReportJSON) Publish(_ context.Context, pub *Publisher, v *View, w *Written) error {
	if v.WriteResult == nil {
		return nil
	}
	path, err := t.write(v.Kind, v.WriteResult)
	if err != nil {
		if t.Required {
			return fmt.Errorf("%w: %w", ErrReportNotWritten, err)
		}
		pub.warn(fmt.Sprintf("write report JSON: %v; no report file is left behind", err))
		if t.Path != "" && t.Lost != nil {
			t.Lost(err)
		}
		return nil
	}
	w.ReportJSON = path
	pub.output(t.Output, path)
	return nil
}

func (t *ReportJSON) write(kind string, result func(io.Writer) error) (string, error) {
	if t.Path != "" {
		if err := t.writeFile(t.Path, result); err != nil {
			return "", fmt.Errorf("write %s report %s: %w", kind, t.Path, err)
		}
		t.wrote = t.Path
		return t.Path, nil
	}
	dir, shown, err := t.dir()
	if err != nil {
		return "", err
	}
	// The folder is readable by later steps, as the file is (see
	// osFiles.CreateTemp).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	name := kind
	if t.Label != "" {
		name += "-" + safeFileName(t.Label)
	}
	path := filepath.Join(dir, name+".json")
	if err := t.writeFile(path, result); err != nil {
		return "", fmt.Errorf("write %s report %s: %w", kind, path, err)
	}
	t.wrote = path
	return filepath.Join(shown, name+".json"), nil
}

// dir is where the file goes and the folder its path is shown in.
func (t *ReportJSON) dir() (dir, shown string, err error) {
	if t.Workspace != "" {
		return filepath.Join(t.Workspace, ".cdkd-action"), ".cdkd-action", nil
	}
	if t.folder == "" {
		base := t.RunnerTemp
		if base == "" {
			base = os.TempDir()
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			return "", "", fmt.Errorf("create %s: %w", base, err)
		}
		if t.folder, err = os.MkdirTemp(base, "cdkd-action-"); err != nil {
			return "", "", fmt.Errorf("create a report folder in %s: %w", base, err)
		}
	}
	return t.folder, t.folder, nil
}

// writeFile writes the report to a temporary file in path's folder and
// renames it over path once complete: a full disk or a failed write never
// leaves half a report (nor an older run's whole one) at path.
func (t *ReportJSON) writeFile(path string, result func(io.Writer) error) error {
	fs := t.Files
	if fs == nil {
		fs = osFiles{}
	}
	f, err := fs.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		_ = fs.Remove(path) // an earlier run's report is not this run's
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = result(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.Rename(f.Name(), path)
	}
	if err != nil {
		_ = fs.Remove(f.Name())
		_ = fs.Remove(path)
	}
	return err
}

func safeFileName(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			return c
		}
		return '_'
	}, s)
}

// Summary appends the report to the job summary, within its 1 MiB, with a
// pointer to the report JSON for what did not fit.
type Summary struct {
	// Append adds markdown to the job summary (the runner's AppendSummary).
	Append func(markdown string) error
	// ReportJSONOutput names the output the hint points at.
	ReportJSONOutput string
}

func (t *Summary) Policy(*View) Policy {
	return Policy{What: "the job summary", Optional: true}
}

func (t *Summary) Publish(_ context.Context, pub *Publisher, v *View, w *Written) error {
	if v.Render == nil {
		return nil
	}
	b := reporters.SummaryBudget
	out := reporters.Code(t.ReportJSONOutput)
	b.Hint = "the report JSON file (the " + out + " output)"
	if w.ReportJSON != "" {
		b.Hint = "the report JSON file " + reporters.Code(w.ReportJSON) + " (the " + out + " output)"
	}
	t.Write(pub, v.Render(b))
	return nil
}

// Write appends markdown; a failure is a warning.
func (t *Summary) Write(pub *Publisher, markdown redacted.Text) {
	if err := t.Append(markdown.String()); err != nil {
		pub.warn(fmt.Sprintf("write job summary: %v", err))
	}
}

// SummaryNote appends the publication's SummaryNote to the job summary: a
// line that can be true only once the targets before it wrote (where the
// diff's picture is, after the comment). The summary itself is written
// first, so that every run has one whatever the API does.
type SummaryNote struct {
	Summary *Summary
	// Report, when set, is the report JSON target: the publication's
	// ResultAfter is written over the file it wrote.
	Report *ReportJSON
}

func (t *SummaryNote) Policy(*View) Policy {
	return Policy{What: "the job summary", Optional: true}
}

func (t *SummaryNote) Publish(_ context.Context, pub *Publisher, v *View, w *Written) error {
	if v.SummaryNote == nil {
		return nil
	}
	if text := v.SummaryNote(w); text.String() != "" {
		t.Summary.Write(pub, redacted.Lines(redacted.Text{}, text))
	}
	if v.WriteResultAfter != nil && t.Report != nil && w.ReportJSON != "" {
		if err := t.Report.Rewrite(v.WriteResultAfter(w)); err != nil {
			pub.warn(fmt.Sprintf("write report JSON %s again with what the comment shows: %v", w.ReportJSON, err))
		}
	}
	return nil
}

// Stdout prints the whole report, redacted, for a local run: to Path
// (--output) when set, else to W.
type Stdout struct {
	Path string
	W    io.Writer
	// Lost, when set, hears of a report that could not be written: it was
	// the product of the run, so the caller fails it.
	Lost func(error)
}

func (t *Stdout) Policy(*View) Policy {
	return Policy{What: "the report", Optional: true}
}

func (t *Stdout) Publish(_ context.Context, pub *Publisher, v *View, _ *Written) error {
	if v.Render != nil {
		t.print(pub, v.Render(reporters.Unlimited))
	}
	return nil
}

// print writes markdown, ending in a newline. A failure is an error in the
// log: it was the one thing a local user asked for.
func (t *Stdout) print(pub *Publisher, markdown redacted.Text) {
	text := markdown.String()
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if t.Path != "" {
		if err := os.WriteFile(t.Path, []byte(text), 0o644); err != nil {
			err = fmt.Errorf("write the report to --output %s: %w", t.Path, err)
			pub.Log.Error(pub.Secrets.Redact(err.Error()))
			t.lost(err)
			return
		}
		pub.Log.Info("Report written to " + t.Path)
		return
	}
	if _, err := io.WriteString(t.W, text); err != nil {
		err = fmt.Errorf("write the report to stdout: %w", err)
		pub.Log.Error(err.Error())
		t.lost(err)
	}
}

func (t *Stdout) lost(err error) {
	if t.Lost != nil {
		t.Lost(err)
	}
}

// Outputs sets the result's step outputs.
type Outputs struct{}

func (Outputs) Policy(*View) Policy { return Policy{What: "the step outputs", Optional: true} }

func (Outputs) Publish(_ context.Context, pub *Publisher, v *View, _ *Written) error {
	for name, value := range v.Outputs {
		pub.output(name, value.String())
	}
	return nil
}
