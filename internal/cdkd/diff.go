package cdkd

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// errNoJSON is the decode error for an empty stdout.
var errNoJSON = errors.New("cdkd printed no JSON")

// decodeList unmarshals one of cdkd's --json lists (see readOptions). what
// names the payload in errors ("cdkd diff JSON"), items what it lists
// ("stacks").
func decodeList[T any](b []byte, what, items string) ([]T, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errNoJSON
	}
	var list []T
	if err := unmarshal(b, &list); err != nil {
		msg := jsonProblem(err, "a list of "+items)
		if malformed(err) {
			// Say what was printed instead, so it can be diagnosed (a
			// debug line on stdout, say). The caller's redactor hides it.
			msg += "; " + stdoutStart(b, maxQuote)
		}
		return nil, fmt.Errorf("decode %s: %s", what, msg)
	}
	if list == nil {
		return nil, fmt.Errorf("decode %s: expected a list of %s, got null", what, items)
	}
	return list, nil
}

// maxQuote is the longest first line of stdout an error quotes.
const maxQuote = 200

// stdoutStart describes the first non-empty line of b for an error: the
// whole line when it has at most max bytes, else only its length. Never a
// part of it: the error is redacted later, and a secret cut in half there
// could no longer be recognised.
func stdoutStart(b []byte, max int) string {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			if len(l) > max {
				return fmt.Sprintf("stdout starts with a line of %d bytes, not quoted (only whole lines of up to %d bytes are, so that no secret is shown in part)", len(l), max)
			}
			return fmt.Sprintf("stdout starts with %q", l)
		}
	}
	return "stdout holds only blank lines"
}

// Private shapes of `cdkd diff --json`. Required fields are pointers so a
// missing key can be told apart from a zero value; unknown fields are ignored.
type diffNodeJSON struct {
	Stack         *string        `json:"stack"`
	Region        string         `json:"region"`
	Changes       *[]changeJSON  `json:"changes"`
	OutputChanges []outputJSON   `json:"outputChanges"`
	Children      []diffNodeJSON `json:"children"`
	NoEchoReaders jsontext.Value `json:"noEchoReaders"`
}

type changeJSON struct {
	LogicalID        *string                 `json:"logicalId"`
	ChangeType       *string                 `json:"changeType"`
	ResourceType     *string                 `json:"resourceType"`
	PropertyChanges  []propertyJSON          `json:"propertyChanges"`
	AttributeChanges []model.AttributeChange `json:"attributeChanges"`
	CCAPI            []string                `json:"ccApi"`
}

type propertyJSON struct {
	Path                  *string     `json:"path"`
	Old                   model.Value `json:"oldValue"`
	New                   model.Value `json:"newValue"`
	RequiresReplacement   bool        `json:"requiresReplacement"`
	ReplacementPropagated *bool       `json:"replacementPropagated"`
}

type outputJSON struct {
	Name             *string     `json:"name"`
	ChangeType       *string     `json:"changeType"`
	Old              model.Value `json:"oldValue"`
	New              model.Value `json:"newValue"`
	OldValueRedacted bool        `json:"oldValueRedacted"`
	Export           bool        `json:"export"`
}

// DecodeDiff parses `cdkd diff --json` stdout with the one reader
// (readOptions). Unknown fields are tolerated; a missing required field is
// an error naming the field and the stack. An absent value stays absent and
// a null stays null (model.Value). The result is sorted.
func DecodeDiff(b []byte) (model.Diff, error) {
	nodes, err := decodeList[diffNodeJSON](b, "cdkd diff JSON", "stacks")
	if err != nil {
		return model.Diff{}, err
	}
	stacks, err := convertDiffNodes(nodes, "")
	if err != nil {
		return model.Diff{}, fmt.Errorf("decode cdkd diff JSON: %w", err)
	}
	d := model.Diff{Stacks: stacks}
	d.Sort()
	return d, nil
}

func convertDiffNodes(nodes []diffNodeJSON, parent string) ([]model.StackDiff, error) {
	out := make([]model.StackDiff, 0, len(nodes))
	for i, n := range nodes {
		if n.Stack == nil || *n.Stack == "" {
			where := fmt.Sprintf("stack #%d", i+1)
			if parent != "" {
				where = fmt.Sprintf("nested stack #%d of %q", i+1, parent)
			}
			return nil, fmt.Errorf("%s: missing %q", where, "stack")
		}
		name := *n.Stack
		if parent != "" {
			name = parent + "/" + name
		}
		if n.Changes == nil {
			return nil, fmt.Errorf("stack %q: missing %q", name, "changes")
		}
		s := model.StackDiff{Stack: *n.Stack, Region: n.Region}
		if len(*n.Changes) > 0 {
			s.Changes = make([]model.ResourceChange, 0, len(*n.Changes))
		}
		for j, c := range *n.Changes {
			rc, skip, err := convertChange(c)
			if err != nil {
				return nil, fmt.Errorf("stack %q: change #%d: %w", name, j+1, err)
			}
			if !skip {
				s.Changes = append(s.Changes, rc)
			}
		}
		if len(s.Changes) == 0 {
			s.Changes = nil // every row was NO_CHANGE: as if none was listed
		}
		for j, o := range n.OutputChanges {
			oc, err := convertOutput(o)
			if err != nil {
				return nil, fmt.Errorf("stack %q: output change #%d: %w", name, j+1, err)
			}
			s.OutputChanges = append(s.OutputChanges, oc)
		}
		s.NoEchoReaders = noEchoReaders(n.NoEchoReaders)
		children, err := convertDiffNodes(n.Children, name)
		if err != nil {
			return nil, err
		}
		if len(children) > 0 {
			s.Children = children
		}
		out = append(out, s)
	}
	return out, nil
}

// changeTypeRE is what a change type a later cdkd adds (IMPORT, MOVE) looks
// like: such a type is kept, shown and counted, not rejected; anything else
// in that field is not cdkd's diff.
var changeTypeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,31}$`) })

// convertChange validates one resource change. NO_CHANGE rows, which cdkd
// omits today, are skipped rather than rejected: they change nothing.
func convertChange(c changeJSON) (rc model.ResourceChange, skip bool, err error) {
	if c.LogicalID == nil || *c.LogicalID == "" {
		return rc, false, fmt.Errorf("missing %q", "logicalId")
	}
	id := *c.LogicalID
	if c.ChangeType == nil {
		return rc, false, fmt.Errorf("resource %q: missing %q", id, "changeType")
	}
	ct := model.ChangeType(*c.ChangeType)
	switch {
	case ct == "NO_CHANGE":
		return rc, true, nil
	case !ct.Known() && !changeTypeRE().MatchString(*c.ChangeType):
		return rc, false, fmt.Errorf("resource %q: changeType %q is not a change type", id, *c.ChangeType)
	}
	if c.ResourceType == nil || *c.ResourceType == "" {
		return rc, false, fmt.Errorf("resource %q: missing %q", id, "resourceType")
	}
	rc = model.ResourceChange{
		LogicalID:        id,
		ChangeType:       ct,
		ResourceType:     *c.ResourceType,
		AttributeChanges: c.AttributeChanges,
		CCAPI:            c.CCAPI,
	}
	if len(c.PropertyChanges) > 0 {
		rc.PropertyChanges = make([]model.PropertyChange, 0, len(c.PropertyChanges))
	}
	for k, p := range c.PropertyChanges {
		if p.Path == nil {
			return rc, false, fmt.Errorf("resource %q: property change #%d: missing %q", id, k+1, "path")
		}
		rc.PropertyChanges = append(rc.PropertyChanges, model.PropertyChange{
			Path:                  *p.Path,
			Old:                   p.Old,
			New:                   p.New,
			RequiresReplacement:   p.RequiresReplacement,
			ReplacementPropagated: p.ReplacementPropagated,
		})
	}
	for k, a := range rc.AttributeChanges {
		if a.Attribute == "" {
			return rc, false, fmt.Errorf("resource %q: attribute change #%d: missing %q", id, k+1, "attribute")
		}
	}
	return rc, false, nil
}

func convertOutput(o outputJSON) (model.OutputChange, error) {
	if o.Name == nil || *o.Name == "" {
		return model.OutputChange{}, fmt.Errorf("missing %q", "name")
	}
	if o.ChangeType == nil {
		return model.OutputChange{}, fmt.Errorf("output %q: missing %q", *o.Name, "changeType")
	}
	ct := model.OutputChangeType(*o.ChangeType)
	if !ct.Known() && !changeTypeRE().MatchString(*o.ChangeType) {
		return model.OutputChange{}, fmt.Errorf("output %q: changeType %q is not a change type", *o.Name, *o.ChangeType)
	}
	return model.OutputChange{
		Name:             *o.Name,
		ChangeType:       ct,
		Old:              o.Old,
		New:              o.New,
		OldValueRedacted: o.OldValueRedacted,
		Export:           o.Export,
	}, nil
}

// noEchoReaders reads the seeds' per-stack NoEcho note when it is a list of
// logical ids (or of objects with a logicalId). It is a note, not a change,
// so any other shape is ignored rather than failing the whole diff.
func noEchoReaders(raw jsontext.Value) []string {
	if len(raw) == 0 {
		return nil
	}
	var ids []string
	if unmarshal(raw, &ids) == nil {
		return nonEmpty(ids)
	}
	var objs []struct {
		LogicalID string `json:"logicalId"`
	}
	if unmarshal(raw, &objs) == nil {
		for _, o := range objs {
			ids = append(ids, o.LogicalID)
		}
		return nonEmpty(ids)
	}
	return nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// ClassifyDiff gives a diff run its meaning. Exit 0 with JSON is the answer;
// exit 1 with JSON is the answer too (`--fail` found changes). Exit 1 without
// parseable JSON is a crash whose reason is cdkd's last error line, never "no
// changes". Any other exit, or exit 0 without JSON, is an error. Errors are
// *Error.
func ClassifyDiff(res Result) (model.Diff, error) {
	if res.Cancelled {
		return model.Diff{}, newError(res, crashReason(res), nil)
	}
	switch res.ExitCode {
	case 0:
		d, err := DecodeDiff(res.Stdout)
		if err != nil {
			return model.Diff{}, newError(res, decodeReason(err), err)
		}
		return d, nil
	case 1:
		// With --fail, exit 1 follows the JSON; without JSON it is a crash.
		d, err := DecodeDiff(res.Stdout)
		if err == nil {
			return d, nil
		}
		if errors.Is(err, errNoJSON) {
			err = nil
		}
		return model.Diff{}, newError(res, crashReason(res), err)
	default:
		return model.Diff{}, newError(res, crashReason(res), nil)
	}
}

// decodeReason turns a decode error into the report's one sentence.
func decodeReason(err error) string {
	if errors.Is(err, errNoJSON) {
		return errNoJSON.Error()
	}
	return "could not read cdkd's JSON output: " + err.Error()
}
