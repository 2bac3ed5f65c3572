// Package marker is the hidden, versioned header on the first line of every
// comment and issue the action writes: its format, its parse and its
// version. It is its own package so that the GitHub client (which finds its
// own comments by it) and the renderers (which write it) share it without
// either depending on the other.
package marker

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Version is the newest header format this code writes and reads.
// Bump it only for changes older readers must not misread; adding an
// optional field is not one (unknown fields are ignored).
const Version = 1

const (
	headerPrefix = "<!-- cdkd-action:"
	headerSuffix = " -->"
)

// Header is the hidden, versioned metadata on the first line of every
// comment and issue the action writes. It is how a later run finds its own
// comment (kind and label, together with the author), and how deploy reads
// which head SHA and digest were reviewed. Nothing visible is parsed.
type Header struct {
	V      int    `json:"v"`
	Kind   string `json:"kind"`
	Label  string `json:"label"`
	SHA    string `json:"sha,omitempty"`
	Digest string `json:"digest,omitempty"`
	Cdkd   string `json:"cdkd,omitempty"`
	// Run and Notes are what the visible report shows beside the change
	// set (the run link, the notes under the headline): with them the
	// deploy gate re-renders the report and compares it with the body.
	Run   string   `json:"run,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// Render is the layout (renderer version, prcomment.Renderer) the
	// visible report was written in, so that a later release renders it
	// again as it was written. 0 in a header written before it was
	// recorded: renderer 1. It is no proof on its own (whoever can edit
	// the comment can edit it): the diff's check run records it too.
	Render int `json:"render,omitempty"`
	// Picture is the picture of what the changes touch (layout 2 on, a
	// blast.Graph, read and written by prcomment): the dependents it shows
	// are not changes, so it is recorded here, outside the digested change
	// set, and the deploy draws it again from it.
	Picture json.RawMessage   `json:"picture,omitempty"`
	Extra   map[string]string `json:"extra,omitempty"`
}

// String renders the header as one HTML comment line (no newline). The JSON
// escapes '<', '>' and '&' (and line separators), so no value can close the
// comment early or break the line.
func (h Header) String() string {
	if h.V == 0 {
		h.V = Version
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	// Strings and string maps cannot fail to encode.
	_ = enc.Encode(h)
	return headerPrefix + strings.TrimSuffix(buf.String(), "\n") + headerSuffix
}

// Parse reads the header from the first line of body. It ignores
// unknown fields, and refuses headers without a kind or from a newer,
// unknown version: misreading one could edit or trust the wrong comment.
func Parse(body string) (Header, bool) {
	line, _, _ := strings.Cut(body, "\n")
	line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
	rest, ok := strings.CutPrefix(line, headerPrefix)
	if !ok {
		return Header{}, false
	}
	rest, ok = strings.CutSuffix(rest, "-->")
	if !ok {
		return Header{}, false
	}
	var h Header
	if err := json.Unmarshal([]byte(strings.TrimSpace(rest)), &h); err != nil {
		return Header{}, false
	}
	if h.V < 1 || h.V > Version || h.Kind == "" {
		return Header{}, false
	}
	return h, true
}
