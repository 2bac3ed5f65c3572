// Package docscheck holds the promises the documentation makes about
// itself: every relative link of README.md and docs/ reaches a file (and,
// with a #fragment, a heading of it, as GitHub names headings), and
// docs/inputs.md, which README calls the reference of every input, names
// every input and output of action.yml; docs/architecture.md's package
// layout names every package. .ci/run runs it through scripts/checkdocs;
// its own test runs it on the repository.
package docscheck

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// Problem is one broken promise, located in its document.
type Problem struct {
	File string // relative to the repository root, slash-separated
	Line int
	Msg  string
}

func (p Problem) String() string {
	if p.Line == 0 {
		return p.File + ": " + p.Msg
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
}

// Documents lists the Markdown files the checks read: README.md and every
// .md file under docs/, slash-separated and relative to root.
func Documents(root string) ([]string, error) {
	docs := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the documents under docs/: %w", err)
	}
	return docs, nil
}

// Check runs every check on the repository at root.
func Check(root string) ([]Problem, error) {
	docs, err := Documents(root)
	if err != nil {
		return nil, err
	}
	problems, err := Links(root, docs)
	if err != nil {
		return nil, err
	}
	named, err := InputsNamed(root)
	if err != nil {
		return nil, err
	}
	pkgs, err := PackagesNamed(root)
	if err != nil {
		return nil, err
	}
	defaults, err := InputDefaults(root)
	if err != nil {
		return nil, err
	}
	return append(append(append(problems, named...), pkgs...), defaults...), nil
}

// Links checks every relative link and image of docs (paths relative to
// root): its file or folder exists inside the repository, and a #fragment
// names a heading of the Markdown file it points to (the same file when
// the link is only a fragment). Links with a scheme (https:, mailto:) are
// not followed.
func Links(root string, docs []string) ([]Problem, error) {
	anchors := map[string]map[string]bool{} // by document, read once
	anchorsOf := func(doc string) (map[string]bool, error) {
		if a, ok := anchors[doc]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			return nil, err
		}
		a := Anchors(string(b))
		anchors[doc] = a
		return a, nil
	}
	var problems []Problem
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", doc, err)
		}
		for _, l := range links(string(b)) {
			bad := func(format string, args ...any) {
				problems = append(problems, Problem{doc, l.line, fmt.Sprintf("link %s: ", l.target) + fmt.Sprintf(format, args...)})
			}
			target, ok := resolve(doc, l.target)
			if !ok {
				continue // another site
			}
			if target.path == "" {
				bad("leaves the repository")
				continue
			}
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(target.path)))
			if err != nil {
				bad("%s does not exist", target.path)
				continue
			}
			if target.fragment == "" || fi.IsDir() || !strings.HasSuffix(target.path, ".md") {
				continue
			}
			a, err := anchorsOf(target.path)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", target.path, err)
			}
			if !a[target.fragment] {
				bad("%s has no heading #%s", target.path, target.fragment)
			}
		}
	}
	return problems, nil
}

// link is one link of a document: its target as written, and its line.
type link struct {
	target string
	line   int
}

var (
	// inlineLink is [text](target) or ![alt](target "title").
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refDefinition is a reference-style link's definition: [name]: target.
	refDefinition = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// htmlAnchor is an explicit anchor: <a id="x"> or <a name="x">.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// links lists the links of a Markdown document outside code.
func links(doc string) []link {
	var out []link
	for n, l := range proseLines(doc) {
		if l == "" {
			continue
		}
		if m := refDefinition.FindStringSubmatch(l); m != nil {
			out = append(out, link{m[1], n + 1})
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(l, ""), -1) {
			out = append(out, link{m[1], n + 1})
		}
	}
	return out
}

// proseLines is the document's lines with those inside fenced code
// blocks emptied, so that line numbers stay.
func proseLines(doc string) []string {
	lines := strings.Split(doc, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// target is where a relative link leads: a slash-separated path relative
// to the repository root ("" when it leaves it) and its fragment.
type target struct {
	path, fragment string
}

var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// resolve reads a link of doc; false for a link to another site.
func resolve(doc, raw string) (target, bool) {
	if scheme.MatchString(raw) || strings.HasPrefix(raw, "//") {
		return target{}, false
	}
	p, fragment, _ := strings.Cut(raw, "#")
	if q, _, ok := strings.Cut(p, "?"); ok {
		p = q
	}
	if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	if f, err := url.PathUnescape(fragment); err == nil {
		fragment = f
	}
	switch {
	case p == "":
		p = doc
	case strings.HasPrefix(p, "/"): // GitHub reads it from the repository's root
		p = path.Clean(strings.TrimPrefix(p, "/"))
	default:
		p = path.Join(path.Dir(doc), p)
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		p = ""
	}
	return target{p, fragment}, true
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	// linkText keeps the text of a link or image in a heading.
	linkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// Anchors lists the fragments GitHub gives a Markdown document: one per
// heading (see Slug), a repeated one numbered -1, -2, ..., and the
// explicit <a id> and <a name> anchors.
func Anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(doc) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		m := atxHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		slug := Slug(m[1])
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug = fmt.Sprintf("%s-%d", slug, n)
		} else {
			seen[slug] = 1
		}
		out[slug] = true
	}
	return out
}

// Slug is the fragment GitHub gives a heading: its rendered text (code
// spans and emphasis unwrapped, a link's text kept) lowercased, every
// character but letters, digits, marks, "_" and "-" dropped, and each
// space made a "-".
func Slug(heading string) string {
	text := linkText.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "**", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// InputsNamed checks that docs/inputs.md names, as `code`, every input and
// output action.yml declares.
func InputsNamed(root string) ([]Problem, error) {
	var action struct {
		Inputs  yaml.Node `yaml:"inputs"`
		Outputs yaml.Node `yaml:"outputs"`
	}
	text, err := readActionAndInputs(root, &action)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, kind := range []struct {
		name string
		node yaml.Node
	}{{"input", action.Inputs}, {"output", action.Outputs}} {
		names := mappingKeys(kind.node)
		if len(names) == 0 {
			problems = append(problems, Problem{File: "action.yml", Msg: "declares no " + kind.name + "s"})
		}
		for _, name := range names {
			if !strings.Contains(string(text), "`"+name+"`") {
				problems = append(problems, Problem{File: inputsDoc, Msg: fmt.Sprintf("does not name the %s `%s` that action.yml declares", kind.name, name)})
			}
		}
	}
	return problems, nil
}

// mappingKeys lists a YAML mapping's keys in order.
func mappingKeys(n yaml.Node) []string {
	var keys []string
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}
