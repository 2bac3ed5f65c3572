package assembly

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

func TestCustomResponseAt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "S.template.json")
	assert.NilError(t, os.WriteFile(file, []byte(`{"Resources":{
		"Cr":{"Type":"Custom::Token","Properties":{}},
		"Param":{"Type":"AWS::SSM::Parameter","Properties":{"Value":{"Fn::GetAtt":["Cr","Token"]},
			"Description":{"Fn::Sub":"x-${Cr.Other}"},"Name":{"Ref":"Cr"},"Tags":[{"Key":"k","Value":"plain"}]}},
		"Fn":{"Type":"AWS::Lambda::Function","Properties":{"Environment":{"Variables":{"T":{"Fn::GetAtt":"Cr.Token"}}}}}
	}}`), 0o644))
	s := Stack{TemplateFile: file}
	for _, tc := range []struct {
		id, path      string
		custom, known bool
	}{
		{"Param", "Value", true, true},
		{"Param", "Description", true, true},
		{"Param", "Name", false, true},
		{"Param", "Tags.0.Value", false, true},
		{"Fn", "Environment", true, true},
		{"Fn", "Environment.Variables.T", true, true},
		{"Fn", "Environment.Variables.T.x", true, true},
		{"Missing", "Value", false, false},
	} {
		custom, known := s.CustomResponseAt(tc.id, tc.path)
		assert.Equal(t, custom, tc.custom, "%s %s", tc.id, tc.path)
		assert.Equal(t, known, tc.known, "%s %s", tc.id, tc.path)
	}
	_, known := Stack{TemplateFile: filepath.Join(dir, "none.json")}.CustomResponseAt("Param", "Value")
	assert.Equal(t, known, false)
}
