package github

import "github.com/cdkd-action/cdkd-action/internal/prcomment"

// The hidden header is internal/prcomment's; these names keep the sticky
// logic (and callers that only need the header) reading it from here.

// Header is prcomment.Header.
type Header = prcomment.Header

// HeaderVersion is prcomment.HeaderVersion.
const HeaderVersion = prcomment.HeaderVersion

// ParseHeader is prcomment.ParseHeader.
func ParseHeader(body string) (Header, bool) { return prcomment.ParseHeader(body) }
