package security

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The early exit (Reads) must never skip a resource that has rows. Over
// every scrutinized and watched type, each property it reads and one it
// does not, several values and every shape a resource arrives in, the rows
// are built without the exit (appendRows); a resource the exit skips must
// have none, whether gathered as values (noRows) or as property changes
// (Reads.NoneChanged, as the pipeline skips before FromChanges).
func TestReadsNeverSkipsARow(t *testing.T) {
	types := slices.Collect(maps.Keys(scrutinized().Types))
	for typ := range watched {
		if _, ok := scrutinized().Types[typ]; !ok {
			types = append(types, typ)
		}
	}
	slices.Sort(types)
	values := []string{
		`"x"`,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}`,
		`["arn:aws:iam::aws:policy/AdministratorAccess"]`,
		`[{"IpProtocol":"-1","CidrIp":"0.0.0.0/0"}]`,
		`{"BlockPublicAcls":false}`,
	}
	var skipped, withRows int
	check := func(t *testing.T, what string, r Resource) {
		t.Helper()
		got := appendRows(nil, r)
		if len(got) > 0 {
			withRows++
		}
		if noRows(r) {
			skipped++
			if len(got) > 0 {
				t.Errorf("%s %s: skipped, yet it has %d rows: %+v", r.Type, what, len(got), got[0])
			}
		}
	}
	for _, typ := range types {
		e := scrutinized().Types[typ]
		names := append(slices.Collect(maps.Keys(e.Properties)), slices.Collect(maps.Keys(watched[typ]))...)
		names = append(names, "Unrelated", "Tags")
		base := Resource{Stack: "App", Account: "123456789012", LogicalID: "R", Type: typ}
		for _, shape := range []struct {
			name     string
			old, new map[string]json.RawMessage
		}{{"created without properties", nil, props()}, {"updated without properties", props(), props()}} {
			r := base
			r.Old, r.New = shape.old, shape.new
			check(t, shape.name, r)
		}
		for _, why := range []struct{ old, new string }{{"", "no cloud assembly"}, {"no state", ""}} {
			r := base
			r.OldUnknown, r.NewUnknown = why.old, why.new
			if why.old == "" {
				r.Old = nil
			}
			check(t, "with a side not known", r)
		}
		for _, p := range names {
			hidden := base
			hidden.Old, hidden.New, hidden.Hidden = props(), props(), []string{p}
			check(t, p+" hidden", hidden)
			for _, v := range values {
				for _, side := range []struct {
					name     string
					old, new map[string]json.RawMessage
				}{
					{"created", nil, props(p, v)},
					{"deleted", props(p, v), nil},
					{"added", props(), props(p, v)},
					{"removed", props(p, v), props()},
					{"unrelated added", props(p, v), props(p, v, "Unrelated", `"y"`)},
				} {
					r := base
					r.Old, r.New = side.old, side.new
					check(t, p+" "+side.name+" as "+v, r)
				}
				for _, ch := range [][]model.PropertyChange{
					{{Path: p, Old: model.JSONValue(v)}},
					{{Path: p, New: model.JSONValue(v)}},
					{{Path: p + ".0.Sub", Old: model.JSONValue(v), New: model.JSONValue(`"y"`)}},
					{{Path: p, Old: model.JSONValue(v), New: model.HiddenValue(), Secret: model.SecretNoEcho}},
				} {
					r := base
					r.Old, r.New = props(), props()
					r.FromChanges(ch)
					got := appendRows(nil, r)
					if ReadsOf(typ).NoneChanged(ch) && len(got) > 0 {
						t.Errorf("%s changes %+v: skipped, yet it has %d rows: %+v", typ, ch, len(got), got[0])
					}
				}
			}
		}
	}
	// The check above is not vacuous: resources are skipped, and others
	// have rows.
	if skipped == 0 || withRows == 0 {
		t.Errorf("%d resources skipped, %d with rows: want some of each", skipped, withRows)
	}
}

// What the exit skips and keeps, named: what the local render of a large
// diff mostly holds (queues and topics whose changes security reads
// nothing of) and its neighbours that must keep their rows.
func TestReadsSkipsOnlyWhatItDoesNotRead(t *testing.T) {
	tests := []struct {
		name string
		r    Resource
		rows int
	}{
		{"a queue created with only a timeout", Resource{Type: "AWS::SQS::Queue", New: props("VisibilityTimeout", `30`)}, 0},
		{"a topic renamed", Resource{Type: "AWS::SNS::Topic", Old: props("DisplayName", `"a"`), New: props("DisplayName", `"b"`)}, 0},
		{"a queue whose redrive-allow policy changes", Resource{Type: "AWS::SQS::Queue",
			Old: props("RedriveAllowPolicy", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}]}`), New: props()}, 1},
		{"a queue whose redrive-allow policy is hidden", Resource{Type: "AWS::SQS::Queue", Old: props(), New: props(), Hidden: []string{"RedriveAllowPolicy"}}, 1},
		{"an IAM policy created with unknown values", Resource{Type: "AWS::IAM::Policy", NewUnknown: "no cloud assembly"}, 1},
		{"a bucket policy deleted without state", Resource{Type: "AWS::S3::BucketPolicy", OldUnknown: "no state"}, 1},
		{"a bucket loosening its public access block", Resource{Type: "AWS::S3::Bucket", Old: props(), New: props("PublicAccessBlockConfiguration", `{"BlockPublicAcls":false}`)}, 1},
		{"a Lambda permission created without properties", Resource{Type: "AWS::Lambda::Permission", New: props()}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.Stack, tt.r.LogicalID = "App", "R"
			if got := ResourceChanges(tt.r); len(got) != tt.rows {
				t.Errorf("%d rows, want %d: %+v", len(got), tt.rows, got)
			}
			if skip := noRows(tt.r); skip != (tt.rows == 0) {
				t.Errorf("skipped: %v, want %v", skip, tt.rows == 0)
			}
		})
	}
}
