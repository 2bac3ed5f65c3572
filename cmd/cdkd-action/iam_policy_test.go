package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// awsDoc is the page whose policies the recorded calls are checked
// against (iam_record_test.go).
const awsDoc = "../../docs/aws.md"

// iamRoles are the roles docs/aws.md gives a policy each.
var iamRoles = []string{"diff", "deploy", "drift"}

// policyMarker precedes a role's policy, a ```json block, in docs/aws.md.
var policyMarker = regexp.MustCompile("<!-- policy: ([a-z]+) -->\\s*```json\\n((?s:.*?))\\n```")

// docPlaceholders are what docs/aws.md writes where a repository's own
// names go, beside the step's own STATE_BUCKET, STATE_PREFIX and
// FINGERPRINT_PREFIX: the account, and the secrets and parameters the
// templates reference (any, in the tests).
var docPlaceholders = map[string]string{"ACCOUNT_ID": emulatorAccount, "SECRETS": "*", "PARAMETERS": "*"}

type policy struct {
	Version   string
	Statement []statement
}

type statement struct {
	Sid       string
	Effect    string
	Action    stringList
	Resource  stringList
	Condition map[string]map[string]stringList
}

// stringList is a policy element that is a string or a list of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = stringList{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}

// parsePolicies reads each role's policy from docs/aws.md's text.
func parsePolicies(doc string) (map[string]policy, error) {
	out := map[string]policy{}
	for _, m := range policyMarker.FindAllStringSubmatch(doc, -1) {
		role := m[1]
		if _, dup := out[role]; dup {
			return nil, fmt.Errorf("two policies for role %s", role)
		}
		var p policy
		dec := json.NewDecoder(strings.NewReader(m[2]))
		dec.DisallowUnknownFields() // NotAction, NotResource, Principal: not what a role policy of ours says
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("the %s policy: %w", role, err)
		}
		for i, s := range p.Statement {
			if s.Effect != "Allow" && s.Effect != "Deny" {
				return nil, fmt.Errorf("the %s policy, statement %d: Effect %q", role, i, s.Effect)
			}
			if err := checkConditions(s.Condition); err != nil {
				return nil, fmt.Errorf("the %s policy, statement %d: %w", role, i, err)
			}
		}
		out[role] = p
	}
	for _, r := range iamRoles {
		if _, ok := out[r]; !ok {
			return nil, fmt.Errorf("no policy for role %s (<!-- policy: %s --> before a ```json block)", r, r)
		}
	}
	return out, nil
}

// checkConditions refuses a condition the checker cannot evaluate, so
// that no statement is taken for allowing what it may not.
func checkConditions(c map[string]map[string]stringList) error {
	for op, keys := range c {
		for key := range keys {
			switch {
			case key == "kms:ViaService":
			case !slices.Contains([]string{"s3:if-none-match", "s3:if-match"}, key):
				return fmt.Errorf("condition key %s: the check cannot evaluate it", key)
			case !slices.Contains([]string{"Null", "StringEquals", "StringLike"}, op):
				return fmt.Errorf("condition operator %s: the check cannot evaluate it", op)
			}
		}
	}
	return nil
}

// viaService reports whether s only allows what an AWS service does on
// the role's behalf (kms:Decrypt through Secrets Manager): no call of the
// action's own, so the emulator never sees one.
func (s statement) viaService() bool {
	for _, keys := range s.Condition {
		if _, ok := keys["kms:ViaService"]; ok {
			return true
		}
	}
	return false
}

// matches reports whether s applies to c, its placeholders standing for
// the values of c's step.
func (s statement) matches(c iamCall) bool {
	if s.viaService() {
		return false
	}
	if !slices.ContainsFunc(s.Action, func(a string) bool { return actionMatches(a, c.action) }) {
		return false
	}
	if !slices.ContainsFunc(s.Resource, func(r string) bool { return wildcard(substitute(r, c.step.vars), c.resource) }) {
		return false
	}
	for op, keys := range s.Condition {
		for key, want := range keys {
			got, present := c.context[key]
			switch op {
			case "Null": // "true": the key is absent; "false": present
				if slices.Contains(want, "true") == present {
					return false
				}
			case "StringEquals", "StringLike":
				if !present || !slices.ContainsFunc(want, func(w string) bool {
					return w == got || op == "StringLike" && wildcard(w, got)
				}) {
					return false
				}
			}
		}
	}
	return true
}

// allows reports whether p allows c, and the statements that did.
func (p policy) allows(c iamCall) (bool, []int) {
	var by []int
	for i, s := range p.Statement {
		if !s.matches(c) {
			continue
		}
		if s.Effect == "Deny" {
			return false, nil
		}
		by = append(by, i)
	}
	return len(by) > 0, by
}

// substitute fills a pattern's placeholders, the step's own and the
// document's, in one pass (a value is never read as a placeholder). A step
// without a state bucket leaves STATE_BUCKET matching no bucket.
func substitute(pattern string, vars map[string]string) string {
	var names []string
	for _, m := range []map[string]string{vars, docPlaceholders} {
		for k := range m {
			names = append(names, k)
		}
	}
	// Longest first, so that no name is taken for a shorter one inside it.
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	var pairs []string
	for _, k := range names {
		v, ok := vars[k]
		if !ok {
			v = docPlaceholders[k]
		}
		pairs = append(pairs, k, cmp.Or(v, "(no "+k+")"))
	}
	return strings.NewReplacer(pairs...).Replace(pattern)
}

// actionMatches matches an action as IAM does: wildcards, any case.
func actionMatches(pattern, action string) bool {
	return wildcard(strings.ToLower(pattern), strings.ToLower(action))
}

// wildcard matches IAM's * (any run of characters, / included) and ?.
func wildcard(pattern, s string) bool {
	// path.Match's * stops at /; IAM's does not, so / is swapped for a
	// character neither holds.
	const slash = "\x00"
	pattern = strings.NewReplacer("/", slash, "[", "\\[", "\\", "\\\\").Replace(pattern)
	ok, err := path.Match(pattern, strings.ReplaceAll(s, "/", slash))
	return err == nil && ok
}

// iamCheck is the outcome of checking the recorded calls.
type iamCheck struct {
	denied []string // calls no statement of their role's policy allows
	unused []string // actions of a statement no call needed
}

// checkCalls checks each call against its role's policy.
func checkCalls(policies map[string]policy, calls []iamCall) iamCheck {
	var out iamCheck
	used := map[string]map[[2]int]bool{} // role → statement, action index
	seen := map[string]bool{}
	for _, c := range calls {
		p, ok := policies[c.step.role]
		var allowed bool
		var by []int
		if ok {
			allowed, by = p.allows(c)
		}
		for _, i := range by {
			for j, a := range p.Statement[i].Action {
				if actionMatches(a, c.action) {
					if used[c.step.role] == nil {
						used[c.step.role] = map[[2]int]bool{}
					}
					used[c.step.role][[2]int{i, j}] = true
				}
			}
		}
		if allowed {
			continue
		}
		var msg string
		switch {
		case c.step.role == "":
			msg = fmt.Sprintf("%s: %s by a step of unknown role (%s)", c.test, c, c.step.why)
		case !ok:
			msg = fmt.Sprintf("%s: %s by a %s step: docs/aws.md has no policy for role %s", c.test, c, c.step.role, c.step.role)
		default:
			msg = fmt.Sprintf("%s: %s by a %s step is not allowed by the %s policy of docs/aws.md", c.test, c, c.step.role, c.step.role)
		}
		if !seen[msg] {
			seen[msg] = true
			out.denied = append(out.denied, msg)
		}
	}
	for _, role := range iamRoles {
		for i, s := range policies[role].Statement {
			if s.Effect != "Allow" || s.viaService() {
				continue
			}
			for j, a := range s.Action {
				if !used[role][[2]int{i, j}] {
					out.unused = append(out.unused, fmt.Sprintf("the %s policy's statement %d (%s) allows %s on %s, which no test's call needed", role, i, cmpSid(s.Sid), a, strings.Join(s.Resource, ", ")))
				}
			}
		}
	}
	return out
}

func cmpSid(sid string) string {
	if sid == "" {
		return "no Sid"
	}
	return sid
}

// checkIAMPolicies runs after the tests (TestMain): every call the action
// made must be allowed by its role's policy in docs/aws.md. A policy's
// action no call needed is said; it fails the run only when the whole
// suite ran and passed, since a -run subset exercises part of each role.
func checkIAMPolicies(code int, w io.Writer) int {
	if flagValue("test.list") != "" {
		return code
	}
	iamRecord.mu.Lock()
	calls := slices.Clone(iamRecord.calls)
	iamRecord.mu.Unlock()
	full := code == 0 && flagValue("test.run") == "" && flagValue("test.skip") == "" && !testing.Short()
	if len(calls) == 0 && !full {
		return code
	}
	doc, err := os.ReadFile(awsDoc)
	if err != nil {
		fmt.Fprintf(w, "FAIL: IAM policies: %v\n", err)
		return 1
	}
	policies, err := parsePolicies(string(doc))
	if err != nil {
		fmt.Fprintf(w, "FAIL: IAM policies: docs/aws.md: %v\n", err)
		return 1
	}
	if os.Getenv("CDKD_TEST_IAM_CALLS") != "" {
		listCalls(w, calls)
	}
	res := checkCalls(policies, calls)
	for _, d := range res.denied {
		fmt.Fprintf(w, "FAIL: IAM policies: %s\n", d)
	}
	for _, u := range res.unused {
		if full {
			fmt.Fprintf(w, "FAIL: IAM policies: %s (the whole suite ran)\n", u)
		} else {
			fmt.Fprintf(w, "IAM policies: %s in the tests that ran\n", u)
		}
	}
	if len(res.denied) > 0 || full && len(res.unused) > 0 {
		return 1
	}
	return code
}

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// listCalls prints each distinct call a role made, the test that made it
// first: what a policy is written from (CDKD_TEST_IAM_CALLS=1).
func listCalls(w io.Writer, calls []iamCall) {
	seen := map[string]bool{}
	for _, c := range calls {
		line := fmt.Sprintf("%s\t%s\t%s", c.step.role, c, c.test)
		if key := c.step.role + c.String(); !seen[key] {
			seen[key] = true
			fmt.Fprintln(w, "IAM call:", line)
		}
	}
}
