package security

import (
	"fmt"
	"strings"
)

// publicAccessFlags are the switches of an S3 bucket's public access block.
var publicAccessFlags = []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"}

// appendFindings appends the rows for what CDK's diff does not look at: a
// permissions boundary removed or changed, a public access block loosened.
func appendFindings(out []Change, r Resource) []Change {
	finding := func(f Finding, item string) {
		out = append(out, Change{Property: findingProperty(f), Op: OpAdd, Kind: KindFinding, Findings: []Finding{f}, Item: item, Status: Broadening})
	}
	if w := watched[r.Type]; w["PermissionsBoundary"] && r.Old != nil && r.New != nil {
		o, hadOld := r.Old["PermissionsBoundary"]
		n, hasNew := r.New["PermissionsBoundary"]
		switch {
		case hadOld && !hasNew:
			finding(FindingBoundaryRemoved, "was "+text(o))
		case hadOld && hasNew && text(o) != text(n):
			finding(FindingBoundaryChanged, text(o)+" → "+text(n))
		}
	}
	if f, ok := publicEndpoint(r); ok {
		out = append(out, f)
	}
	if w := watched[r.Type]; w["PublicAccessBlockConfiguration"] && r.New != nil {
		o, n := flags(r.Old["PublicAccessBlockConfiguration"]), flags(r.New["PublicAccessBlockConfiguration"])
		_, changed := r.New["PublicAccessBlockConfiguration"]
		if _, was := r.Old["PublicAccessBlockConfiguration"]; was {
			changed = true
		}
		var loosened []string
		for _, f := range publicAccessFlags {
			if !changed {
				break
			}
			// Explicitly off, or on before and not now.
			if !symbolic(n[f]) && (n[f] == "false" || o[f] == "true" && n[f] != "true") {
				from := o[f]
				if from == "" {
					from = "not set"
				}
				to := n[f]
				if to == "" {
					to = "not set"
				}
				loosened = append(loosened, fmt.Sprintf("%s: %s → %s", f, from, to))
			}
		}
		if len(loosened) > 0 {
			finding(FindingPublicAccessLoosened, strings.Join(loosened, ", "))
		}
	}
	return out
}

func findingProperty(f Finding) string {
	if f == FindingPublicAccessLoosened {
		return "PublicAccessBlockConfiguration"
	}
	return "PermissionsBoundary"
}

// flags reads a public access block's switches as "true", "false" or
// (not set, or not readable) "".
func flags(raw []byte) map[string]string {
	out := map[string]string{}
	if raw == nil {
		return out
	}
	v, err := decode(raw)
	if err != nil {
		return out
	}
	m, ok := v.(map[string]any)
	if !ok {
		return out
	}
	for _, f := range publicAccessFlags {
		if x, ok := m[f]; ok {
			if s, err := str(x); err == nil {
				out[f] = strings.ToLower(s)
			} else {
				out[f] = "${?}" // an intrinsic that is not a value: not "true"
			}
		}
	}
	return out
}

// text is a value for a finding row: a string or intrinsic as text,
// anything else as JSON.
func text(raw []byte) string {
	v, err := decode(raw)
	if err != nil {
		return string(raw)
	}
	if s, err := str(v); err == nil {
		return s
	}
	return compact(v)
}
