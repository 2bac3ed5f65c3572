package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// selectionApp writes a cloud assembly of n small stacks, S000 to S<n-1>,
// each holding one SSM parameter whose value is "v<version>" for the first
// changed stacks and "v1" for the rest: deploying version 2 over version 1
// changes exactly `changed` stacks. With queue > 0, it adds Exporter (a
// queue named after queue, its URL exported as rc<u>-QueueUrl: a new queue
// version replaces it) and Importer (a parameter holding that export,
// through Fn::ImportValue, with no change of its own between versions).
func selectionApp(t *testing.T, u string, n, changed, version, queue int) string {
	t.Helper()
	dir := t.TempDir()
	artifacts := map[string]any{}
	stack := func(name string, tpl map[string]any, deps ...string) {
		a := map[string]any{
			"type":        "aws:cloudformation:stack",
			"environment": "aws://unknown-account/us-east-1",
			"properties":  map[string]any{"templateFile": name + ".template.json", "validateOnSynth": false},
			"displayName": name,
		}
		if len(deps) > 0 {
			a["dependencies"] = deps
		}
		artifacts[name] = a
		writeJSON(t, filepath.Join(dir, name+".template.json"), tpl)
	}
	param := func(name, value any) map[string]any {
		return map[string]any{"Type": "AWS::SSM::Parameter", "Properties": map[string]any{"Name": name, "Type": "String", "Value": value}}
	}
	for i := range n {
		v := 1
		if i < changed {
			v = version
		}
		stack(fmt.Sprintf("S%03d", i), map[string]any{"Resources": map[string]any{
			"Param": param(fmt.Sprintf("/rc%s/s%03d", u, i), fmt.Sprintf("v%d", v))}})
	}
	if queue > 0 {
		export := "rc" + u + "-QueueUrl"
		stack("Exporter", map[string]any{
			"Resources": map[string]any{"Queue": map[string]any{"Type": "AWS::SQS::Queue",
				"Properties": map[string]any{"QueueName": fmt.Sprintf("rc%s-q-v%d", u, queue)}}},
			"Outputs": map[string]any{"QueueUrl": map[string]any{"Value": map[string]any{"Ref": "Queue"},
				"Export": map[string]any{"Name": export}}},
		})
		stack("Importer", map[string]any{"Resources": map[string]any{
			"UrlParam": param("/rc"+u+"/queue-url", map[string]any{"Fn::ImportValue": export})}}, "Exporter")
	}
	writeJSON(t, filepath.Join(dir, "manifest.json"), map[string]any{"version": "36.0.0", "artifacts": artifacts})
	return dir
}
