package publisher

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// encodeReport writes v as json.Marshal would, and a newline: the report
// JSON target's encoder. A diff's stacks are encoded and redacted one at a
// time: a 10,000-resource report is megabytes, and building it whole (then
// a redacted copy of it) was most of a local render's memory and much of
// its time.
func encodeReport(w io.Writer, v any, redact func([]byte) []byte) error {
	if res, ok := v.(model.DiffResult); ok && len(res.Stacks) > 1 {
		shell := res
		shell.Stacks = nil
		b, err := json.Marshal(shell)
		if err != nil {
			return err
		}
		// Stacks is the last field, so the shell ends with it.
		if head, ok := bytes.CutSuffix(b, []byte(`"stacks":null}`)); ok {
			return encodeStacks(w, redact(head), res.Stacks, redact)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := w.Write(redact(b)); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

func encodeStacks(w io.Writer, head []byte, stacks []model.StackDiff, redact func([]byte) []byte) error {
	if _, err := w.Write(head); err != nil {
		return err
	}
	if _, err := io.WriteString(w, `"stacks":[`); err != nil {
		return err
	}
	// One buffer for every stack: json.Marshal would copy each out anew.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range stacks {
		if i > 0 {
			if _, err := io.WriteString(w, ","); err != nil {
				return err
			}
		}
		buf.Reset()
		if err := enc.Encode(&stacks[i]); err != nil {
			return err
		}
		// Encode is Marshal and a newline.
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if _, err := w.Write(redact(b)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]}\n")
	return err
}
