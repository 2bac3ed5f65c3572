package assembly

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/fs"
	"gotest.tools/v3/golden"
)

const sampleRef = "{{resolve:secretsmanager:my-secret:SecretString:password}}"

func TestLoadSampleAssembly(t *testing.T) {
	dir := filepath.Join("testdata", "assembly-v1")
	assert.Assert(t, IsAssembly(dir))

	a, err := Load(dir)
	assert.NilError(t, err)
	assert.Equal(t, len(a.Stacks), 2)

	sa, ok := a.Stack("StackA")
	assert.Assert(t, ok)
	assert.Equal(t, sa.Name, "StackA")
	assert.Equal(t, sa.DisplayName, "StackA")
	assert.Equal(t, sa.Region, "us-east-1")
	assert.Equal(t, sa.Account, "")
	assert.Equal(t, sa.TemplateFile, filepath.Join(dir, "StackA.template.json"))
	assert.Assert(t, len(sa.DependsOn) == 0)
	sbDeps, ok := a.Stack("StackB")
	assert.Assert(t, ok)
	assert.DeepEqual(t, sbDeps.DependsOn, []string{"StackA"}) // the asset manifest is no stack

	def := "hunter2-noecho-v1"
	assert.DeepEqual(t, sa.NoEchoParams, []Parameter{{Name: "DbPassword", Default: &def}})
	assert.DeepEqual(t, sa.Positions, []Position{
		{Kind: KindResource, LogicalID: "NoEchoParam2FCCC8BD", Path: "Value", Whole: true,
			Source: model.SecretNoEcho, Parameter: "DbPassword", Secure: true},
		{Kind: KindResource, LogicalID: "SecretNamedQueue", Path: "QueueName", Whole: true,
			Source: model.SecretReference, Reference: sampleRef, Service: dynref.SecretsManager, Secure: true},
		{Kind: KindResource, LogicalID: "SecretRefParam4A819521", Path: "Value", Whole: true,
			Source: model.SecretReference, Reference: sampleRef, Service: dynref.SecretsManager, Secure: true},
	})
	assert.Equal(t, len(sa.References), 2)
	for _, r := range sa.References {
		assert.Equal(t, r.Raw, sampleRef)
		assert.Equal(t, r.SecretID, "my-secret")
		assert.Equal(t, r.JSONKey, "password")
		assert.Assert(t, !r.Templated)
	}
	assert.Equal(t, sa.References[0].Position.LogicalID, "SecretNamedQueue")
	assert.DeepEqual(t, sa.NoEchoReaders(), []string{"NoEchoParam2FCCC8BD"})

	// What the real diff and drift reports (16-diff-v2, 20-drift-oob1) ask.
	assert.Equal(t, sa.SecretAt("NoEchoParam2FCCC8BD", "Value"), model.SecretNoEcho)
	assert.Equal(t, sa.SecretAt("SecretNamedQueue", "QueueName"), model.SecretReference)
	assert.Equal(t, sa.SecretAt("Queue4A7E3555", "QueueName"), model.SecretNone)
	assert.Equal(t, sa.SecretAt("TopicBFC7AF6E", "DisplayName"), model.SecretNone)
	assert.Equal(t, sa.SecretAt("Bucket83908E77", "VersioningConfiguration.Status"), model.SecretNone)
	assert.Equal(t, sa.SecretOutput("BucketName"), model.SecretNone)
	assert.Equal(t, sa.SecretOutput("FixtureBucketName"), model.SecretNone)

	sb, ok := a.Stack("StackB")
	assert.Assert(t, ok)
	assert.Equal(t, len(sb.NoEchoParams), 0)
	assert.Equal(t, len(sb.Positions), 0)
	assert.Equal(t, len(sb.References), 0)
	assert.Equal(t, len(sb.NoEchoReaders()), 0)
}

// The sample's secrets must not leak into anything but a NoEcho default.
func TestLoadSampleAssemblyKeepsNoEchoDefaultOnlyInParameters(t *testing.T) {
	a, err := Load(filepath.Join("testdata", "assembly-v1"))
	assert.NilError(t, err)
	for _, s := range a.Stacks {
		b, err := json.Marshal(s.Positions)
		assert.NilError(t, err)
		assert.Assert(t, !strings.Contains(string(b), "hunter2"))
	}
}

func TestLoadStageAssembly(t *testing.T) {
	a, err := Load(filepath.Join("testdata", "stage"))
	assert.NilError(t, err)

	b, err := json.MarshalIndent(a, "", "  ")
	assert.NilError(t, err)
	golden.Assert(t, string(b)+"\n", "stage.golden.json")

	var names []string
	for _, s := range a.Stacks {
		names = append(names, s.Name+" | "+s.DisplayName+" | "+s.Region)
	}
	assert.DeepEqual(t, names, []string{
		"Prod-Api | Prod/Api | eu-west-1",
		"Prod-Api~ChildNestedStackChildNestedStackResourceABC | Prod-Api~ChildNestedStackChildNestedStackResourceABC | eu-west-1",
		"Prod-Inner-Db | Prod/Inner/Db | us-west-2",
		"Top | Top | ",
	})

	api, ok := a.Stack("Prod/Api")
	assert.Assert(t, ok)
	assert.Equal(t, api.Name, "Prod-Api")
	assert.Equal(t, api.Account, "123456789012")
	assert.DeepEqual(t, api.NoEchoReaders(), []string{"ChildNestedStackChildNestedStackResourceABC", "Fn0000AAAA"})
	assert.Equal(t, api.SecretAt("Db5678", "MasterUserPassword"), model.SecretReference)
	assert.Equal(t, api.SecretAt("Fn0000AAAA", "Environment"), model.SecretNoEcho)
	assert.Equal(t, api.SecretAt("Fn0000AAAA", "Environment.Variables.FLAG"), model.SecretNone)
	assert.Equal(t, api.SecretAt("Fn0000AAAA", "Environment.Variables.TOKEN"), model.SecretReference)
	assert.Equal(t, api.SecretAt("Fn0000AAAA", "Tags.0.Value"), model.SecretNoEcho) // any index: see SecretAt
	assert.Equal(t, api.SecretAt("Fn0000AAAA", "Tags.1.Key"), model.SecretNone)
	assert.Equal(t, api.SecretOutput("ApiKeyOut"), model.SecretNoEcho)
	assert.Equal(t, api.SecretOutput("Prod-ApiKey"), model.SecretNoEcho)
	assert.Equal(t, api.SecretOutput("Conn"), model.SecretNone, "plain ssm, not confirmed")
	assert.Equal(t, api.SecretOutput("StageOut"), model.SecretNone)

	child, ok := a.Stack("Prod-Api~ChildNestedStackChildNestedStackResourceABC")
	assert.Assert(t, ok)
	assert.Equal(t, child.Parent, "Prod-Api")
	assert.Equal(t, child.SecretAt("KeyParam", "Value"), model.SecretNoEcho)
	assert.Equal(t, child.SecretAt("KeyParam", "Name"), model.SecretNone)
	assert.Equal(t, child.SecretAt("PwParam", "Value"), model.SecretReference)
	assert.Equal(t, child.SecretAt("PwParam", "Description"), model.SecretNoEcho)

	top, ok := a.StackIn("Top", "ap-south-1")
	assert.Assert(t, ok, "an environment-agnostic stack matches any region")
	d1234, dList := "1234", "a,b"
	assert.DeepEqual(t, top.NoEchoParams, []Parameter{
		{Name: "Hosts", Default: &dList}, {Name: "NoDefault"}, {Name: "Pin", Default: &d1234},
	})
	assert.Equal(t, top.SecretAt("UserData", "LaunchTemplateData.UserData"), model.SecretNoEcho)
	assert.Equal(t, top.SecretAt("Picked", "Value"), model.SecretNoEcho)

	inner, ok := a.StackIn("Prod-Inner-Db", "us-west-2")
	assert.Assert(t, ok)
	assert.Equal(t, inner.SecretAt("Topic", "DisplayName"), model.SecretNone)
	a.MarkSecureSSM(func(r dynref.Ref) bool { return r.Parameter == "/prod/topic-name" })
	inner, _ = a.StackIn("Prod-Inner-Db", "us-west-2")
	assert.Equal(t, inner.SecretAt("Topic", "DisplayName"), model.SecretReference)
	assert.Assert(t, inner.References[0].Position.Secure)
	api, _ = a.Stack("Prod-Api")
	assert.Equal(t, api.SecretOutput("Conn"), model.SecretNone, "a different ssm parameter stays unconfirmed")
}

func TestStackLookup(t *testing.T) {
	a := &Assembly{Stacks: []Stack{
		{Name: "App", DisplayName: "App", Region: "eu-west-1"},
		{Name: "App", DisplayName: "App", Region: "us-east-1"},
		{Name: "Prod-Api", DisplayName: "Prod/Api"},
		{Name: "Prod/Api-named-oddly", DisplayName: "Other"},
	}}
	tests := []struct {
		name, region string
		want         string
		ok           bool
	}{
		{name: "App", region: "us-east-1", want: "App us-east-1", ok: true},
		{name: "App", region: "eu-west-1", want: "App eu-west-1", ok: true},
		{name: "App", region: "ap-south-1", ok: false},
		{name: "Prod/Api", region: "any", want: "Prod-Api ", ok: true},
		{name: "Prod-Api", region: "", want: "Prod-Api ", ok: true},
		{name: "Nope", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name+"@"+tc.region, func(t *testing.T) {
			s, ok := a.StackIn(tc.name, tc.region)
			assert.Equal(t, ok, tc.ok)
			if ok {
				assert.Equal(t, s.Name+" "+s.Region, tc.want)
			}
		})
	}
	s, ok := a.Stack("App")
	assert.Assert(t, ok)
	assert.Equal(t, s.Region, "eu-west-1")
	s, ok = a.Stack("Prod/Api")
	assert.Assert(t, ok)
	assert.Equal(t, s.Name, "Prod-Api")
}

func TestLoadErrors(t *testing.T) {
	const goodTemplate = `{"Resources": {}}`
	tests := []struct {
		name    string
		files   []fs.PathOp
		wantErr string
	}{
		{
			name:    "no manifest",
			wantErr: "read manifest {dir}/manifest.json: open {dir}/manifest.json: no such file or directory",
		},
		{
			name:    "manifest not JSON",
			files:   []fs.PathOp{fs.WithFile("manifest.json", "{not json")},
			wantErr: "read manifest {dir}/manifest.json: decode JSON:",
		},
		{
			name:    "missing template",
			files:   []fs.PathOp{fs.WithFile("manifest.json", stackManifest(""))},
			wantErr: "read template {dir}/S.template.json: open {dir}/S.template.json: no such file or directory",
		},
		{
			name: "template not JSON",
			files: []fs.PathOp{fs.WithFile("manifest.json", stackManifest("")),
				fs.WithFile("S.template.json", "Resources: {}")},
			wantErr: "read template {dir}/S.template.json: decode JSON:",
		},
		{
			name: "template section of the wrong shape",
			files: []fs.PathOp{fs.WithFile("manifest.json", stackManifest("")),
				fs.WithFile("S.template.json", `{"Resources": []}`)},
			wantErr: "read template {dir}/S.template.json: decode JSON:",
		},
		{
			// The error named is the first in artifact order.
			name: "several stacks fail: the first in order is named",
			files: []fs.PathOp{fs.WithFile("manifest.json", `{"artifacts": {`+
				`"A": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "A.template.json"}},`+
				`"B": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "B.template.json"}},`+
				`"C": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "C.template.json"}},`+
				`"D": {"type": "aws:cloudformation:stack", "properties": {}}}}`),
				fs.WithFile("A.template.json", goodTemplate), fs.WithFile("C.template.json", "not JSON")},
			wantErr: "read template {dir}/B.template.json: open {dir}/B.template.json: no such file or directory",
		},
		{
			name:    "stack without templateFile",
			files:   []fs.PathOp{fs.WithFile("manifest.json", `{"artifacts": {"S": {"type": "aws:cloudformation:stack", "properties": {}}}}`)},
			wantErr: "read manifest {dir}/manifest.json: stack S has no templateFile",
		},
		{
			name: "missing nested assembly",
			files: []fs.PathOp{fs.WithFile("manifest.json",
				`{"artifacts": {"St": {"type": "cdk:cloud-assembly", "properties": {"directoryName": "assembly-St"}}}}`)},
			wantErr: "read manifest {dir}/assembly-St/manifest.json: open",
		},
		{
			name: "nested assembly without directory",
			files: []fs.PathOp{fs.WithFile("manifest.json",
				`{"artifacts": {"St": {"type": "cdk:cloud-assembly", "properties": {}}}}`)},
			wantErr: "read manifest {dir}/manifest.json: artifact St: nested assembly without directoryName",
		},
		{
			name: "nested assembly cycle",
			files: []fs.PathOp{fs.WithFile("manifest.json",
				`{"artifacts": {"St": {"type": "cdk:cloud-assembly", "properties": {"directoryName": "."}}}}`)},
			wantErr: "nested assembly refers back to itself",
		},
		{
			name: "nested stack template outside the assembly",
			files: []fs.PathOp{fs.WithFile("manifest.json", stackManifest("")),
				fs.WithFile("S.template.json", `{"Resources": {"N": {"Type": "AWS::CloudFormation::Stack", "Metadata": {"aws:asset:path": "../x.json"}}}}`)},
			wantErr: `read template {dir}/S.template.json: nested stack N: template path "../x.json" is outside the assembly`,
		},
		{
			name: "asset manifest not JSON",
			files: []fs.PathOp{fs.WithFile("manifest.json", stackManifest("")), fs.WithFile("S.assets.json", "{"),
				fs.WithFile("S.template.json", `{"Resources": {"N": {"Type": "AWS::CloudFormation::Stack"}}}`)},
			wantErr: "read template {dir}/S.template.json: nested stack N: read asset manifest {dir}/S.assets.json: decode JSON",
		},
		{
			name: "nested stack that nests itself",
			files: []fs.PathOp{fs.WithFile("manifest.json", stackManifest("")),
				fs.WithFile("S.template.json", `{"Resources": {"N": {"Type": "AWS::CloudFormation::Stack", "Metadata": {"aws:asset:path": "S.template.json"}}}}`)},
			wantErr: "nested stack N: stacks nest too deep or in a cycle",
		},
		{
			name: "unknown artifact types and fields are fine",
			files: []fs.PathOp{
				fs.WithFile("manifest.json", stackManifest(`, "X": {"type": "cdk:future", "properties": 42, "new": [1]}`)),
				fs.WithFile("S.template.json", goodTemplate)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := fs.NewDir(t, "assembly", tc.files...)
			_, err := Load(dir.Path())
			if tc.wantErr == "" {
				assert.NilError(t, err)
				return
			}
			assert.Assert(t, is.ErrorContains(err, strings.ReplaceAll(tc.wantErr, "{dir}", dir.Path())))
		})
	}
}

func TestIsAssembly(t *testing.T) {
	dir := fs.NewDir(t, "assembly", fs.WithDir("manifest.json"))
	assert.Assert(t, !IsAssembly(dir.Path()), "a directory named manifest.json is not a manifest")
	assert.Assert(t, !IsAssembly(filepath.Join(dir.Path(), "missing")))
	assert.Assert(t, IsAssembly(filepath.Join("testdata", "stage", "assembly-Prod")))
}

func TestParseEnvironment(t *testing.T) {
	tests := []struct{ in, account, region string }{
		{"aws://123456789012/eu-west-1", "123456789012", "eu-west-1"},
		{"aws://unknown-account/unknown-region", "", ""},
		{"aws://unknown-account/us-east-1", "", "us-east-1"},
		{"", "", ""},
		{"gcp://x/y", "", ""},
	}
	for _, tc := range tests {
		account, region := parseEnvironment(tc.in)
		assert.Equal(t, account, tc.account, tc.in)
		assert.Equal(t, region, tc.region, tc.in)
	}
}

func TestStringifyDefault(t *testing.T) {
	tpl, err := parseTemplate(`{"Parameters": {
	  "N": {"NoEcho": true, "Default": 0.50},
	  "B": {"NoEcho": true, "Default": false},
	  "L": {"NoEcho": true, "Default": ["x", 2]},
	  "M": {"NoEcho": true, "Default": {"k": "v"}},
	  "Z": {"NoEcho": true, "Default": null}
	}}`)
	assert.NilError(t, err)
	got := map[string]string{}
	for _, p := range newTracer(tpl, Stack{}, nil).noEcho {
		got[p.Name] = "<nil>"
		if p.Default != nil {
			got[p.Name] = *p.Default
		}
	}
	assert.DeepEqual(t, got, map[string]string{"N": "0.50", "B": "false", "L": "x,2", "M": `{"k":"v"}`, "Z": "<nil>"})
}

// A nested stack's template is found however the assembly names it; one
// that cannot be found is listed with its positions unknown, never taken
// for a stack without secrets.
func TestLoadNestedTemplates(t *testing.T) {
	const child = `{"Parameters": {"Pw": {"Type": "String", "NoEcho": true}},
		"Resources": {"P": {"Type": "AWS::SSM::Parameter", "Properties": {"Value": {"Ref": "Pw"}}}}}`
	const url = `"TemplateURL": {"Fn::Join": ["", ["https://s3.", {"Ref": "AWS::URLSuffix"}, "/", {"Fn::Sub": "cdk-assets-${AWS::AccountId}"}, "/0a1b2c.json"]]}`
	parent := func(meta string) string {
		return `{"Resources": {"N": {"Type": "AWS::CloudFormation::Stack", "Properties": {` + url + `}` + meta + `}}}`
	}
	const assets = `{"version": "55.0.0", "files": {"0a1b2c": {"source": {"path": "SN1234.nested.template.json", "packaging": "file"},
		"destinations": {"d": {"bucketName": "b", "objectKey": "0a1b2c.json"}}}}}`
	tests := []struct {
		name        string
		files       []fs.PathOp
		wantUnknown bool
	}{
		{name: "aws:asset:path metadata", files: []fs.PathOp{
			fs.WithFile("S.template.json", parent(`, "Metadata": {"aws:asset:path": "SN1234.nested.template.json"}`)),
			fs.WithFile("SN1234.nested.template.json", child)}},
		{name: "asset manifest only (--asset-metadata=false)", files: []fs.PathOp{
			fs.WithFile("S.template.json", parent("")), fs.WithFile("S.assets.json", assets),
			fs.WithFile("SN1234.nested.template.json", child)}},
		{name: "metadata names a missing file, the manifest the right one", files: []fs.PathOp{
			fs.WithFile("S.template.json", parent(`, "Metadata": {"aws:asset:path": "gone.json"}`)), fs.WithFile("S.assets.json", assets),
			fs.WithFile("SN1234.nested.template.json", child)}},
		{name: "cdkd's name for the nested stack", files: []fs.PathOp{
			fs.WithFile("S.template.json", parent("")), fs.WithFile("S~N.nested.template.json", child)}},
		{name: "not found", wantUnknown: true, files: []fs.PathOp{
			fs.WithFile("S.template.json", parent(`, "Metadata": {"aws:asset:path": "gone.json"}`))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := fs.NewDir(t, "assembly", append(tc.files, fs.WithFile("manifest.json", stackManifest("")))...)
			a, err := Load(dir.Path())
			assert.NilError(t, err)
			n, ok := a.Stack("S~N")
			assert.Assert(t, ok, "the nested stack is listed")
			s, _ := a.Stack("S")
			assert.Assert(t, s.Placed("N"))
			assert.Assert(t, !s.Placed("Gone"), "a resource the template does not hold is not placed")
			if tc.wantUnknown {
				assert.Assert(t, is.Contains(n.Unknown, "the template of nested stack S~N is not in the cloud assembly"))
				assert.Assert(t, !n.Placed("P"))
				return
			}
			assert.Equal(t, n.Unknown, "")
			assert.Assert(t, n.Placed("P"))
			assert.Equal(t, n.SecretAt("P", "Value"), model.SecretNoEcho)
		})
	}
}

// stackManifest is a manifest with one stack S (S.template.json) and extra
// artifacts.
func stackManifest(extra string) string {
	return `{"artifacts": {"S": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "S.template.json"}}` + extra + `}}`
}

// A NoEcho parameter's default is the stack's own, else the nearest
// ancestor's (a parent passes the value down); without the assembly only
// the stack's own is known.
func TestNoEchoDefault(t *testing.T) {
	top, mid := "top", "mid"
	root := Stack{Name: "Root", Region: "us-east-1", NoEchoParams: []Parameter{{Name: "Pw", Default: &top}, {Name: "Other", Default: &top}}}
	middle := Stack{Name: "Root~Mid", Parent: "Root", Region: "us-east-1", NoEchoParams: []Parameter{{Name: "Other", Default: &mid}, {Name: "NoDefault"}}}
	leaf := Stack{Name: "Root~Mid~Leaf", Parent: "Root~Mid", Region: "us-east-1"}
	a := &Assembly{Stacks: []Stack{root, middle, leaf}}
	for name, want := range map[string]string{"Pw": "top", "Other": "mid", "NoDefault": "", "Missing": ""} {
		got, ok := a.NoEchoDefault(leaf, name)
		assert.Equal(t, got, want, name)
		assert.Equal(t, ok, want != "", name)
	}
	var none *Assembly
	_, ok := none.NoEchoDefault(leaf, "Pw")
	assert.Assert(t, !ok, "without the assembly, a parent's default is not known")
	got, ok := none.NoEchoDefault(root, "Pw")
	assert.Assert(t, ok && got == "top")
}
