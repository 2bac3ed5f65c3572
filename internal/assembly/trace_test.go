package assembly

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// traceSnippet traces a template made of the given Parameters and one
// resource R with the given Properties, for a stack in eu-west-1.
func traceSnippet(t *testing.T, params, props string) []string {
	t.Helper()
	if params == "" {
		params = `{"P": {"Type": "String", "NoEcho": true, "Default": "pw"}, "Plain": {"Type": "String"}}`
	}
	tpl, err := parseTemplate(`{"Parameters": ` + params + `, "Resources": {"R": {"Type": "X::Y::Z", "Properties": ` + props + `}}}`)
	assert.NilError(t, err)
	tr := newTracer(tpl, Stack{Name: "S", Region: "eu-west-1", Account: "111122223333"}, nil)
	tr.trace()
	pos, refs := tr.results()
	out := describeAll(pos)
	for _, r := range refs {
		if r.Templated {
			out = append(out, "templated "+r.Raw)
		}
	}
	return out
}

func describeAll(pos []Position) []string {
	var out []string
	for _, p := range pos {
		out = append(out, describe(p))
	}
	return out
}

// describe is a compact, readable form of a position for table tests.
func describe(p Position) string {
	id := p.LogicalID
	if p.Kind == KindOutput {
		id = "output " + p.Output
		if p.Export != "" {
			id += " (export " + p.Export + ")"
		}
	}
	whole := "part"
	if p.Whole {
		whole = "whole"
	}
	what := "NoEcho " + p.Parameter
	if p.Parameter == "" {
		what = fmt.Sprintf("%s %s", p.Source, p.Reference)
		if !p.Secure {
			what += " (unconfirmed)"
		}
	}
	return strings.Join([]string{id, fmt.Sprintf("%q", p.Path), whole, what}, " ")
}

func TestTraceIntrinsics(t *testing.T) {
	const sm = "{{resolve:secretsmanager:db:SecretString:pw}}"
	tests := []struct {
		name   string
		params string
		props  string
		want   []string
	}{
		{
			name:  "Ref whole",
			props: `{"Value": {"Ref": "P"}}`,
			want:  []string{`R "Value" whole NoEcho P`},
		},
		{
			name:  "Ref to a visible parameter, a pseudo parameter or a resource",
			props: `{"A": {"Ref": "Plain"}, "B": {"Ref": "AWS::Region"}, "C": {"Ref": "R"}}`,
		},
		{
			name:   "NoEcho spelled as a string, list default",
			params: `{"P": {"Type": "CommaDelimitedList", "NoEcho": "true", "Default": ["a", "b"]}}`,
			props:  `{"Value": {"Ref": "P"}}`,
			want:   []string{`R "Value" whole NoEcho P`},
		},
		{
			name:   "NoEcho false",
			params: `{"P": {"Type": "String", "NoEcho": "false"}}`,
			props:  `{"Value": {"Ref": "P"}}`,
		},
		{
			name:  "Sub exactly the parameter",
			props: `{"Value": {"Fn::Sub": "${P}"}}`,
			want:  []string{`R "Value" whole NoEcho P`},
		},
		{
			name:  "Sub embedding the parameter",
			props: `{"Value": {"Fn::Sub": "user:${P}@${Plain}"}}`,
			want:  []string{`R "Value" part NoEcho P`},
		},
		{
			name:  "Sub escape and attribute are not the parameter",
			props: `{"A": {"Fn::Sub": "${!P}"}, "B": {"Fn::Sub": "${P.Arn}"}, "C": {"Fn::Sub": "${ P }"}}`,
			want:  []string{`R "C" part NoEcho P`},
		},
		{
			name:  "Sub variable map, whole",
			props: `{"Value": {"Fn::Sub": ["${X}", {"X": {"Ref": "P"}}]}}`,
			want:  []string{`R "Value" whole NoEcho P`},
		},
		{
			name:  "Sub variable map, embedded",
			props: `{"Value": {"Fn::Sub": ["a-${X}-b", {"X": {"Ref": "P"}}]}}`,
			want:  []string{`R "Value" part NoEcho P`},
		},
		{
			name:  "Sub variable shadows the parameter",
			props: `{"Value": {"Fn::Sub": ["${P}", {"P": "literal"}]}}`,
		},
		{
			name:  "Sub unused variable still counts",
			props: `{"Value": {"Fn::Sub": ["static", {"X": {"Ref": "P"}}]}}`,
			want:  []string{`R "Value" part NoEcho P`},
		},
		{
			name:  "Join",
			props: `{"Value": {"Fn::Join": [":", ["a", {"Ref": "P"}]]}}`,
			want:  []string{`R "Value" part NoEcho P`},
		},
		{
			name:  "Join of one element",
			props: `{"Value": {"Fn::Join": [":", [{"Ref": "P"}]]}}`,
			want:  []string{`R "Value" whole NoEcho P`},
		},
		{
			name:  "Join of a list parameter",
			props: `{"Value": {"Fn::Join": [",", {"Ref": "P"}]}}`,
			want:  []string{`R "Value" part NoEcho P`},
		},
		{
			name:  "Select from a literal list",
			props: `{"Value": {"Fn::Select": [1, ["x", {"Ref": "P"}]]}}`,
			want:  []string{`R "Value" whole NoEcho P`},
		},
		{
			name:  "Select from a split secret",
			props: `{"Value": {"Fn::Select": [0, {"Fn::Split": [",", {"Ref": "P"}]}]}}`,
			want:  []string{`R "Value" part NoEcho P`},
		},
		{
			name:  "If, either branch",
			props: `{"A": {"Fn::If": ["C", {"Ref": "P"}, {"Ref": "AWS::NoValue"}]}, "B": {"Fn::If": ["C", "x", {"Fn::Sub": "-${P}"}]}}`,
			want:  []string{`R "A" whole NoEcho P`, `R "B" part NoEcho P`},
		},
		{
			name:  "If branches at one position: whole only if both are",
			props: `{"A": {"Fn::If": ["C", {"Ref": "P"}, {"Fn::Sub": "x${P}"}]}}`,
			want:  []string{`R "A" part NoEcho P`},
		},
		{
			name:  "If choosing between objects keeps their structure",
			props: `{"Config": {"Fn::If": ["C", {"Secret": {"Ref": "P"}, "Name": "n"}, {"Name": "m"}]}}`,
			want:  []string{`R "Config.Secret" whole NoEcho P`},
		},
		{
			name:  "If inside Join",
			props: `{"Value": {"Fn::Join": ["", ["a", {"Fn::If": ["C", {"Ref": "P"}, "b"]}]]}}`,
			want:  []string{`R "Value" part NoEcho P`},
		},
		{
			name:  "Base64 of a secret",
			props: `{"UserData": {"Fn::Base64": {"Fn::Sub": "echo ${P}"}}}`,
			want:  []string{`R "UserData" part NoEcho P`},
		},
		{
			name:  "Base64 of the parameter itself is still not the value",
			props: `{"UserData": {"Fn::Base64": {"Ref": "P"}}}`,
			want:  []string{`R "UserData" part NoEcho P`},
		},
		{
			name:  "unknown function: conservatively derived",
			props: `{"V": {"Fn::ToJsonString": {"a": {"Ref": "P"}}}}`,
			want:  []string{`R "V" part NoEcho P`},
		},
		{
			name:  "GetAtt, ImportValue, FindInMap keys are not the parameter",
			props: `{"A": {"Fn::GetAtt": ["P", "Arn"]}, "B": {"Fn::ImportValue": {"Fn::Sub": "${P}-x"}}, "C": {"Fn::FindInMap": ["M", {"Ref": "P"}, "k"]}}`,
		},
		{
			name:  "FindInMap DefaultValue",
			props: `{"C": {"Fn::FindInMap": ["M", "a", "k", {"DefaultValue": {"Ref": "P"}}]}}`,
			want:  []string{`R "C" whole NoEcho P`},
		},
		{
			name:  "nested in maps and lists",
			props: `{"Tags": [{"Key": "a", "Value": "b"}, {"Key": "k", "Value": {"Ref": "P"}}], "Deep": {"L": [[{"X": {"Ref": "P"}}]]}}`,
			want:  []string{`R "Deep.L.0.0.X" whole NoEcho P`, `R "Tags.1.Value" whole NoEcho P`},
		},
		{
			name:  "whole properties from an intrinsic",
			props: `{"Fn::If": ["C", {"Ref": "P"}, {}]}`,
			want:  []string{`R "" whole NoEcho P`},
		},
		{
			name:  "a map named Ref-like is not an intrinsic when it has two keys",
			props: `{"M": {"Ref": "P", "Other": {"Ref": "P"}}}`,
			want:  []string{`R "M.Other" whole NoEcho P`},
		},
		{
			name:  "dynamic reference, whole and embedded",
			props: `{"A": "` + sm + `", "B": "pw=` + sm + `;", "C": "{{resolve:ssm-secure:/s/x:3}}"}`,
			want: []string{
				`R "A" whole secret ` + sm,
				`R "B" part secret ` + sm,
				`R "C" whole secret {{resolve:ssm-secure:/s/x:3}}`,
			},
		},
		{
			name:  "plain ssm is recorded but unconfirmed",
			props: `{"A": "{{resolve:ssm:/plain}}"}`,
			want:  []string{`R "A" whole secret {{resolve:ssm:/plain}} (unconfirmed)`},
		},
		{
			name:  "two references in one string, and an unknown service",
			props: `{"A": "{{resolve:ssm:/a}}{{resolve:ssm-secure:/b}}{{resolve:other:/c}}"}`,
			want: []string{
				`R "A" part secret {{resolve:ssm-secure:/b}}`,
				`R "A" part secret {{resolve:ssm:/a}} (unconfirmed)`,
			},
		},
		{
			name:  "dynamic reference in a Join element",
			props: `{"A": {"Fn::Join": ["", ["x", "` + sm + `"]]}, "B": {"Fn::Join": ["", ["` + sm + `"]]}}`,
			want:  []string{`R "A" part secret ` + sm, `R "B" whole secret ` + sm},
		},
		{
			name:  "CDK splits a reference across Join parts",
			props: `{"Pw": {"Fn::Join": ["", ["{{resolve:secretsmanager:", {"Ref": "Secret"}, ":SecretString:password::}}"]]}}`,
			want: []string{
				`R "Pw" whole secret {{resolve:secretsmanager:${Secret}:SecretString:password::}}`,
				`templated {{resolve:secretsmanager:${Secret}:SecretString:password::}}`,
			},
		},
		{
			name:  "reference spelled from assorted parts",
			props: `{"A": {"Fn::Join": ["/", ["{{resolve:ssm-secure:", {"Fn::Select": [1, ["x", "y"]]}, 5, true, {"Fn::GetAtt": "R.Arn"}, {"Fn::GetAtt": ["R", "Id"]}, {"Fn::Base64": "z"}, "}}"]]}}`,
			want: []string{
				`R "A" whole secret {{resolve:ssm-secure:/y/5/true/${R.Arn}/${R.Id}/${?}/}}`,
				`templated {{resolve:ssm-secure:/y/5/true/${R.Arn}/${R.Id}/${?}/}}`,
			},
		},
		{
			name:  "reference spelled from an ARN with pseudo parameters",
			props: `{"Pw": {"Fn::Join": ["", ["{{resolve:secretsmanager:arn:", {"Ref": "AWS::Partition"}, ":secretsmanager:", {"Ref": "AWS::Region"}, ":", {"Ref": "AWS::AccountId"}, ":secret:db-AbC:SecretString:pw}}"]]}}`,
			want:  []string{`R "Pw" whole secret {{resolve:secretsmanager:arn:aws:secretsmanager:eu-west-1:111122223333:secret:db-AbC:SecretString:pw}}`},
		},
		{
			name:  "reference inside Sub, with a known pseudo parameter and a variable",
			props: `{"A": {"Fn::Sub": "{{resolve:ssm-secure:/${AWS::Region}/tok}}"}, "B": {"Fn::Sub": ["x{{resolve:ssm-secure:/${Env}/tok}}", {"Env": {"Ref": "Plain"}}]}}`,
			want: []string{
				`R "A" whole secret {{resolve:ssm-secure:/eu-west-1/tok}}`,
				`R "B" part secret {{resolve:ssm-secure:/${Plain}/tok}}`,
				`templated {{resolve:ssm-secure:/${Plain}/tok}}`,
			},
		},
		{
			name:   "top-level parameters take their defaults when spelling a reference",
			params: `{"Env": {"Type": "String", "Default": "prod"}, "Ssm": {"Type": "AWS::SSM::Parameter::Value<String>", "Default": "/name"}}`,
			props:  `{"A": {"Fn::Sub": "{{resolve:ssm-secure:/${Env}/${Ssm}}}"}}`,
			want: []string{
				`R "A" whole secret {{resolve:ssm-secure:/prod/${Ssm}}}`,
				`templated {{resolve:ssm-secure:/prod/${Ssm}}}`,
			},
		},
		{
			name:  "a secret and a reference at one position",
			props: `{"A": {"Fn::Sub": "${P}:{{resolve:ssm-secure:/b}}"}}`,
			want:  []string{`R "A" part NoEcho P`, `R "A" part secret {{resolve:ssm-secure:/b}}`},
		},
		{
			name:  "malformed intrinsics do not crash and stay conservative",
			props: `{"A": {"Fn::Join": "oops"}, "B": {"Fn::Sub": [1, 2, 3]}, "C": {"Fn::If": [{"Ref": "P"}]}, "D": {"Ref": ["P"]}}`,
			want:  []string{`R "C" part NoEcho P`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, traceSnippet(t, tc.params, tc.props), tc.want)
		})
	}
}

func TestTraceIgnoresMetadataAndTracesConditionalResources(t *testing.T) {
	tpl, err := parseTemplate(`{
	  "Parameters": {"P": {"Type": "String", "NoEcho": true}},
	  "Resources": {
	    "A": {"Type": "T", "Condition": "C", "Properties": {"V": {"Ref": "P"}}, "Metadata": {"M": {"Ref": "P"}}},
	    "B": {"Type": "T", "Metadata": {"M": {"Ref": "P"}}, "UpdatePolicy": {"X": {"Ref": "P"}}},
	    "Fn::ForEach::Things": ["T", ["a"], {}]
	  }}`)
	assert.NilError(t, err)
	tr := newTracer(tpl, Stack{Name: "S"}, nil)
	tr.trace()
	pos, _ := tr.results()
	assert.DeepEqual(t, describeAll(pos), []string{`A "V" whole NoEcho P`})
}

func TestTraceOutputs(t *testing.T) {
	tpl, err := parseTemplate(`{
	  "Parameters": {"P": {"Type": "String", "NoEcho": true}, "Plain": {"Type": "String"}},
	  "Outputs": {
	    "Whole": {"Value": {"Ref": "P"}, "Export": {"Name": "ex-whole"}},
	    "Built": {"Value": {"Fn::Join": ["-", ["a", {"Ref": "P"}]]}, "Export": {"Name": {"Fn::Sub": "${AWS::StackName}-${AWS::Region}-built"}}},
	    "SecretName": {"Value": "v", "Export": {"Name": {"Fn::Sub": "${P}-name"}}},
	    "Unknown": {"Value": {"Ref": "P"}, "Export": {"Name": {"Fn::Sub": "${Plain}-u"}}},
	    "Ref": {"Value": "{{resolve:secretsmanager:s}}"},
	    "Fine": {"Value": {"Ref": "Plain"}}
	  }}`)
	assert.NilError(t, err)
	tr := newTracer(tpl, Stack{Name: "S", Region: "us-east-1"}, nil)
	tr.trace()
	pos, _ := tr.results()
	assert.DeepEqual(t, describeAll(pos), []string{
		`output Built (export S-us-east-1-built) "" part NoEcho P`,
		`output Ref "" whole secret {{resolve:secretsmanager:s}}`,
		`output SecretName "Export.Name" part NoEcho P`,
		`output Unknown "" whole NoEcho P`,
		`output Whole (export ex-whole) "" whole NoEcho P`,
	})
}

func TestPassedTo(t *testing.T) {
	tpl, err := parseTemplate(`{
	  "Parameters": {"P": {"Type": "String", "NoEcho": true}},
	  "Resources": {
	    "Named": {"Type": "AWS::CloudFormation::Stack", "Properties": {"Parameters": {
	      "A": {"Ref": "P"}, "B": {"Fn::Sub": "x-${P}"}, "C": {"Deep": {"Ref": "P"}}, "D": "{{resolve:ssm-secure:/d}}", "E": "plain"}}},
	    "Whole": {"Type": "AWS::CloudFormation::Stack", "Properties": {"Parameters": {"Fn::If": ["C", {"A": "x"}, {"Ref": "P"}]}}}
	  }}`)
	assert.NilError(t, err)
	tr := newTracer(tpl, Stack{Name: "S"}, nil)
	tr.trace()

	describeSrcs := func(m map[string][]src) map[string]string {
		out := map[string]string{}
		for k, ss := range m {
			for _, s := range ss {
				out[k] += fmt.Sprintf("%s%s%s whole=%v;", s.kind, s.param, s.ref.Raw, s.whole)
			}
		}
		return out
	}
	assert.DeepEqual(t, describeSrcs(tr.passedTo("Named")), map[string]string{
		"A": "NoEchoP whole=true;",
		"B": "NoEchoP whole=false;",
		"C": "NoEchoP whole=false;",
		"D": "secret{{resolve:ssm-secure:/d}} whole=true;",
	})
	assert.DeepEqual(t, describeSrcs(tr.passedTo("Whole")), map[string]string{"*": "NoEchoP whole=false;"})

	child, err := parseTemplate(`{"Parameters": {"X": {"Type": "String"}, "Y": {"Type": "String", "Default": "d"}},
	  "Resources": {"R": {"Type": "T", "Properties": {"V": {"Ref": "Y"}, "N": {"Fn::Sub": "{{resolve:ssm-secure:/${Y}}}"}}}}}`)
	assert.NilError(t, err)
	ct := newTracer(child, Stack{Name: "S~Whole", Parent: "S"}, tr.passedTo("Whole"))
	ct.trace()
	pos, _ := ct.results()
	assert.DeepEqual(t, describeAll(pos), []string{
		`R "N" part NoEcho P`,
		`R "N" whole secret {{resolve:ssm-secure:/${Y}}}`, // a nested stack's defaults are not its values
		`R "V" part NoEcho P`,
	})
}

func TestScanRefs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{in: "none"},
		{in: "{{resolve:ssm:/a}}", want: []string{"{{resolve:ssm:/a}}"}},
		{in: "x{{resolve:ssm:/a/${Env}/b}}y", want: []string{"{{resolve:ssm:/a/${Env}/b}}"}},
		{in: "{{resolve:ssm:/a", want: nil},
		{in: "{{resolve:ssm:{{resolve:ssm-secure:/b}}", want: []string{"{{resolve:ssm-secure:/b}}"}},
		{in: "{{resolve:secretsmanager:${AWS::Partition}x:SecretString:k}}", want: []string{"{{resolve:secretsmanager:${AWS::Partition}x:SecretString:k}}"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var got []string
			for _, r := range scanRefs(tc.in) {
				got = append(got, r.Raw)
			}
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestParseRefKeepsPlaceholders(t *testing.T) {
	r, ok := parseRef("{{resolve:secretsmanager:arn:${AWS::Partition}:secretsmanager:us-east-1:1:secret:${Name}:SecretString:pw:${Stage}}}")
	assert.Assert(t, ok)
	assert.Equal(t, r.SecretID, "arn:${AWS::Partition}:secretsmanager:us-east-1:1:secret:${Name}")
	assert.Equal(t, r.JSONKey, "pw")
	assert.Equal(t, r.VersionStage, "${Stage}")

	r, ok = parseRef("{{resolve:ssm-secure:/app/${Env}/key:${V}}}")
	assert.Assert(t, ok)
	assert.Equal(t, r.Parameter, "/app/${Env}/key")
	assert.Equal(t, r.Version, "${V}")
}
