package publish

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// fullDisk is the OS's file system on a disk that fills up after limit
// bytes of a file: the write fails part-way, as with ENOSPC.
type fullDisk struct{ limit int }

func (d fullDisk) CreateTemp(dir, pattern string) (File, error) {
	f, err := osFiles{}.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &fillingFile{File: f, left: d.limit}, nil
}

func (fullDisk) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
func (fullDisk) Remove(name string) error             { return os.Remove(name) }

type fillingFile struct {
	File
	left int
}

func (f *fillingFile) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n, _ := f.File.Write(p[:f.left])
		f.left = 0
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	f.left -= len(p)
	return f.File.Write(p)
}

// A report JSON that cannot be written completely leaves no file: neither
// half of this report nor an earlier run's whole one. Where the file is
// the run's product the run fails (ErrReportNotWritten); elsewhere it is a
// warning.
func TestReportJSONOnAFullDisk(t *testing.T) {
	big := map[string]string{"report": strings.Repeat("x", 200<<10)}
	for _, required := range []bool{false, true} {
		t.Run(map[bool]string{false: "warning", true: "the run's product"}[required], func(t *testing.T) {
			h := newHarness(t)
			ws := t.TempDir()
			stale := filepath.Join(ws, ".cdkd-action", "diff.json")
			assert.NilError(t, os.MkdirAll(filepath.Dir(stale), 0o755))
			assert.NilError(t, os.WriteFile(stale, []byte(`{"an":"earlier run"}`), 0o644))
			target := &ReportJSON{Workspace: ws, Output: "report-json", Required: required, Files: fullDisk{limit: 64 << 10}}

			err := h.pub.Publish(context.Background(), &Publication{Kind: "diff", Result: big}, target)
			entries, _ := os.ReadDir(filepath.Dir(stale))
			assert.Check(t, is.Len(entries, 0), "no report file, whole or partial, is left behind")
			assert.Check(t, is.Equal(h.outputs["report-json"], ""), "the output names no file")
			if required {
				assert.Check(t, errors.Is(err, ErrReportNotWritten), "got %v", err)
				assert.Check(t, is.ErrorContains(err, "no space left on device"))
				assert.Check(t, is.Contains(h.log.String(), "::warning::the report JSON was not posted"))
			} else {
				assert.NilError(t, err)
				assert.Check(t, is.Contains(h.log.String(), "::warning::write report JSON: "))
				assert.Check(t, is.Contains(h.log.String(), "no space left on device"))
			}
		})
	}
	t.Run("written whole, readable by later steps", func(t *testing.T) {
		h := newHarness(t)
		ws := t.TempDir()
		target := &ReportJSON{Workspace: ws, Output: "report-json", Required: true}
		assert.NilError(t, h.pub.Publish(context.Background(), &Publication{Kind: "diff", Result: big}, target))
		info, err := os.Stat(filepath.Join(ws, ".cdkd-action", "diff.json"))
		assert.NilError(t, err)
		assert.Equal(t, info.Mode().Perm(), os.FileMode(0o644))
		entries, _ := os.ReadDir(filepath.Join(ws, ".cdkd-action"))
		assert.Check(t, is.Len(entries, 1), "no temporary file is left")
	})
}
