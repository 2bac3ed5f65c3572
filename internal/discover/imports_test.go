package discover

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// writeImportAssembly writes an app of four stacks: Exporter exports a
// NoEcho value without a default (known only from its state), Relay
// imports it and exports it again, Importer imports Relay's export, and
// Unrelated exports nothing anyone imports.
func writeImportAssembly(t *testing.T) *assembly.Assembly {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"manifest.json": `{"version":"55.0.0","artifacts":{
  "Exporter":{"type":"aws:cloudformation:stack","environment":"aws://1/us-east-1","properties":{"templateFile":"Exporter.template.json"}},
  "Relay":{"type":"aws:cloudformation:stack","environment":"aws://1/us-east-1","properties":{"templateFile":"Relay.template.json"}},
  "Importer":{"type":"aws:cloudformation:stack","environment":"aws://1/us-east-1","properties":{"templateFile":"Importer.template.json"}},
  "Unrelated":{"type":"aws:cloudformation:stack","environment":"aws://1/us-east-1","properties":{"templateFile":"Unrelated.template.json"}}}}`,
		"Exporter.template.json": `{"Parameters":{
  "DbPw":{"Type":"String","NoEcho":true},
  "Other":{"Type":"String","NoEcho":true,"Default":"exporter-default-pw"}},
 "Resources":{"T":{"Type":"AWS::SNS::Topic"},"Inner":{"Type":"AWS::CloudFormation::Stack","Properties":{"TemplateURL":"x"}}},
 "Outputs":{"Pw":{"Value":{"Ref":"DbPw"},"Export":{"Name":{"Fn::Sub":"${AWS::StackName}:Pw"}}}}}`,
		"Exporter~Inner.nested.template.json": `{"Resources":{"T":{"Type":"AWS::SNS::Topic"}}}`,
		"Relay.template.json": `{"Resources":{"T":{"Type":"AWS::SNS::Topic"}},
 "Outputs":{"Pw":{"Value":{"Fn::ImportValue":"Exporter:Pw"},"Export":{"Name":"Relay:Pw"}}}}`,
		"Importer.template.json": `{"Resources":{"Fn":{"Type":"AWS::Lambda::Function","Properties":{
  "Environment":{"Variables":{"PW":{"Fn::ImportValue":"Relay:Pw"}}}}}}}`,
		"Unrelated.template.json": `{"Parameters":{"Pw":{"Type":"String","NoEcho":true}},
 "Resources":{"T":{"Type":"AWS::SNS::Topic"}},
 "Outputs":{"Pw":{"Value":{"Ref":"Pw"}}}}`,
	}
	for name, body := range files {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	asm, err := assembly.Load(dir)
	assert.NilError(t, err)
	return asm
}

func importStates(t *testing.T) *fakeState {
	t.Helper()
	state := func(stack, outputs string) *awsx.State {
		st, err := awsx.DecodeState([]byte(`{"version":12,"stackName":"` + stack + `","region":"us-east-1","resources":{},"outputs":` + outputs + `}`))
		assert.NilError(t, err)
		return st
	}
	return &fakeState{records: map[string]*awsx.State{
		"bucket/cdkd/Exporter/us-east-1/state.json":  state("Exporter", `{"Pw":"exported-secret-value"}`),
		"bucket/cdkd/Relay/us-east-1/state.json":     state("Relay", `{"Pw":"exported-secret-value"}`),
		"bucket/cdkd/Importer/us-east-1/state.json":  state("Importer", `{}`),
		"bucket/cdkd/Unrelated/us-east-1/state.json": state("Unrelated", `{"Pw":"unrelated-secret"}`),
	}, errs: map[string]error{}}
}

// A run over some stacks (a shard, stacks: Importer) hides what another
// stack exports to them, as a run over all stacks does: the exporters'
// state is read, through a stack that passes the import on, and what
// every template says is learned whatever is selected.
func TestDiscoverLearnsWhatImportedStacksKnow(t *testing.T) {
	tests := []struct {
		name      string
		stacks    []string
		wantReads []string
	}{
		{name: "all stacks", wantReads: []string{"Exporter", "Exporter~Inner", "Importer", "Relay", "Unrelated"}},
		{name: "the importer alone", stacks: []string{"Importer"}, wantReads: []string{"Exporter", "Exporter~Inner", "Importer", "Relay"}},
		{name: "the relay alone", stacks: []string{"Relay"}, wantReads: []string{"Exporter", "Exporter~Inner", "Relay"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asm := writeImportAssembly(t)
			in := baseInput(asm)
			in.Stacks = tc.stacks
			st := importStates(t)
			set := secrets.NewSet()
			Discover(context.Background(), set, in, Deps{State: st, Resolver: newResolver()})
			var reads []string
			for _, r := range st.reads {
				reads = append(reads, filepath.Base(filepath.Dir(filepath.Dir(r))))
			}
			slices.Sort(reads)
			assert.DeepEqual(t, reads, tc.wantReads)
			got := registered(set)
			assert.Assert(t, got["exported-secret-value"], "the imported secret is not known")
			assert.Assert(t, got["exporter-default-pw"], "another stack's NoEcho default is not known")
		})
	}
}

// An import whose name cannot be spelled before deploying could read any
// export: every stack that exports something is read.
func TestExportersOfAnUnspelledImport(t *testing.T) {
	asm := writeImportAssembly(t)
	imp, ok := asm.Stack("Importer")
	assert.Assert(t, ok)
	assert.DeepEqual(t, imp.Imports, []string{"Relay:Pw"})
	names := func(ss []assembly.Stack) (out []string) {
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	assert.DeepEqual(t, names(asm.Exporters(imp)), []string{"Relay"})
	imp.Imports, imp.ImportsUnknown = nil, true
	assert.DeepEqual(t, names(asm.Exporters(imp)), []string{"Exporter", "Relay"}) // not Exporter~Inner: it exports nothing
}
