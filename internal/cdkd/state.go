package cdkd

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// StateShow is `cdkd state show <stack> --json`: the stack's state record and
// its lock, if any. Every value is untrusted and may be secret (today's cdkd
// stores NoEcho values in plaintext).
type StateShow struct {
	State StackState `json:"state"`
	Lock  *Lock      `json:"lock"`
}

// StackState is a stack's state.json (schema 8 today, 11 in the seeds).
type StackState struct {
	Version      int                      `json:"version"`
	StackName    string                   `json:"stackName"`
	Region       string                   `json:"region"`
	Resources    map[string]StateResource `json:"resources"`
	Outputs      map[string]model.Value   `json:"outputs"`
	LastModified int64                    `json:"lastModified"`
}

// StateResource is one resource record. Properties and attributes are kept
// raw: cdkd-action only reads them to find secrets.
type StateResource struct {
	PhysicalID          string          `json:"physicalId"`
	ResourceType        string          `json:"resourceType"`
	Properties          json.RawMessage `json:"properties,omitempty"`
	ObservedProperties  json.RawMessage `json:"observedProperties,omitempty"`
	Attributes          json.RawMessage `json:"attributes,omitempty"`
	Dependencies        []string        `json:"dependencies,omitempty"`
	DeletionPolicy      string          `json:"deletionPolicy,omitempty"`
	UpdateReplacePolicy string          `json:"updateReplacePolicy,omitempty"`
	ProvisionedBy       string          `json:"provisionedBy,omitempty"`
}

// Lock is a stack's lock.json. Timestamps are Unix milliseconds.
type Lock struct {
	Owner     string `json:"owner"`
	Operation string `json:"operation,omitempty"`
	Timestamp int64  `json:"timestamp"`
	ExpiresAt int64  `json:"expiresAt"`
}

// DecodeStateShow parses `cdkd state show <stack> --json`; state and its
// stackName are required.
func DecodeStateShow(b []byte) (StateShow, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return StateShow{}, errNoJSON
	}
	var raw struct {
		State *StackState `json:"state"`
		Lock  *Lock       `json:"lock"`
	}
	if err := unmarshal(b, &raw); err != nil {
		return StateShow{}, fmt.Errorf("decode cdkd state show JSON: %s", jsonProblem(err, "an object"))
	}
	if raw.State == nil {
		return StateShow{}, fmt.Errorf("decode cdkd state show JSON: missing %q", "state")
	}
	if raw.State.StackName == "" {
		return StateShow{}, fmt.Errorf("decode cdkd state show JSON: state: missing %q", "stackName")
	}
	return StateShow{State: *raw.State, Lock: raw.Lock}, nil
}

// ClassifyStateShow reads a state show run; errors are *Error.
func ClassifyStateShow(res Result) (StateShow, error) {
	return classifyPayload(res, DecodeStateShow)
}

// StateListEntry is one row of `cdkd state list --long --json`: a stack
// deployed in some region, whatever the code says today.
type StateListEntry struct {
	StackName     string `json:"stackName"`
	Region        string `json:"region"`
	ResourceCount int    `json:"resourceCount"`
	Locked        bool   `json:"locked"`
}

// StateListArgs builds `cdkd state list --long --json`. Only the state flags
// of c are used.
func StateListArgs(c Common) []string {
	return append([]string{"state", "list", "--long", "--json"}, c.stateFlags()...)
}

// DecodeStateList parses `cdkd state list --long --json`; every row must
// name its stack.
func DecodeStateList(b []byte) ([]StateListEntry, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errNoJSON
	}
	var rows []StateListEntry
	if err := unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("decode cdkd state list JSON: %s", jsonProblem(err, "an array"))
	}
	for i, r := range rows {
		if r.StackName == "" {
			return nil, fmt.Errorf("decode cdkd state list JSON: row %d: missing %q", i, "stackName")
		}
	}
	return rows, nil
}

// ClassifyStateList reads a state list run; errors are *Error.
func ClassifyStateList(res Result) ([]StateListEntry, error) {
	return classifyPayload(res, DecodeStateList)
}
