package cdkdtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DiffJSON generates `cdkd diff --json` output of the real shape with
// stacks × perStack changed resources: creates, in-place updates, updates
// that replace (with JSON policy values) and deletes, plus one output change
// per stack. Size tests and benchmarks use it.
func DiffJSON(stacks, perStack int) string {
	var b strings.Builder
	b.WriteString("[")
	for s := 0; s < stacks; s++ {
		if s > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"stack":"Stack%02d","region":"us-east-1","changes":[`, s)
		for r := 0; r < perStack; r++ {
			if r > 0 {
				b.WriteString(",")
			}
			switch r % 4 {
			case 0:
				fmt.Fprintf(&b, `{"logicalId":"Queue%04d","changeType":"CREATE","resourceType":"AWS::SQS::Queue"}`, r)
			case 1:
				fmt.Fprintf(&b, `{"logicalId":"Topic%04d","changeType":"UPDATE","resourceType":"AWS::SNS::Topic","propertyChanges":[{"path":"DisplayName","oldValue":"topic-%d-old","newValue":"topic-%d-new","requiresReplacement":false}]}`, r, r, r)
			case 2:
				fmt.Fprintf(&b, `{"logicalId":"Policy%04d","changeType":"UPDATE","resourceType":"AWS::IAM::Policy","propertyChanges":[{"path":"PolicyDocument","oldValue":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::bucket-%d/*"}]},"newValue":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bucket-%d/*"}]},"requiresReplacement":false},{"path":"PolicyName","oldValue":"p%d","newValue":"q%d","requiresReplacement":true}]}`, r, r, r, r, r)
			case 3:
				fmt.Fprintf(&b, `{"logicalId":"Old%04d","changeType":"DELETE","resourceType":"AWS::SNS::Topic"}`, r)
			}
		}
		fmt.Fprintf(&b, `],"outputChanges":[{"name":"Out%02d","changeType":"MODIFY","oldValue":"a","newValue":"b","export":false}],"children":[]}`, s)
	}
	b.WriteString("]")
	return b.String()
}

// WriteAssembly writes into dir the synthesized cloud assembly DiffJSON's
// diff comes from: stacks templates of the resources it creates and
// updates (the deleted ones are gone from the code), so a benchmark can
// render with the cloud assembly as every README workflow does.
func WriteAssembly(dir string, stacks, perStack int) error {
	return WriteAssemblyNoEcho(dir, stacks, perStack, 0)
}

// NoEchoChanges is the part of `cdkd diff --json` that WriteAssemblyNoEcho's
// secret positions add to one stack's changes: noEcho database instances
// whose password, a NoEcho parameter, changes (cdkd prints both values in
// plaintext). It starts with a comma when there is any.
func NoEchoChanges(stack, noEcho int) string {
	var b strings.Builder
	for i := 0; i < noEcho; i++ {
		fmt.Fprintf(&b, `,{"logicalId":"Db%03d","changeType":"UPDATE","resourceType":"AWS::RDS::DBInstance","propertyChanges":[{"path":"MasterUserPassword","oldValue":"pw-old-%02d-Zq8","newValue":"pw-new-%02d-Zq8","requiresReplacement":false}]}`, i, stack, stack)
	}
	return b.String()
}

// DiffJSONNoEcho is DiffJSON with noEcho changed NoEcho positions per
// stack (NoEchoChanges).
func DiffJSONNoEcho(stacks, perStack, noEcho int) string {
	d := DiffJSON(stacks, perStack)
	for s := 0; s < stacks; s++ {
		marker := fmt.Sprintf(`],"outputChanges":[{"name":"Out%02d"`, s)
		d = strings.Replace(d, marker, NoEchoChanges(s, noEcho)+marker, 1)
	}
	return d
}

// WriteAssemblyNoEcho is WriteAssembly with noEcho database instances per
// stack whose MasterUserPassword reads the stack's NoEcho parameter
// DbPassword (its default is the new value of NoEchoChanges).
func WriteAssemblyNoEcho(dir string, stacks, perStack, noEcho int) error {
	var manifest strings.Builder
	manifest.WriteString(`{"version":"55.0.0","artifacts":{`)
	for s := 0; s < stacks; s++ {
		name := fmt.Sprintf("Stack%02d", s)
		if s > 0 {
			manifest.WriteString(",")
		}
		fmt.Fprintf(&manifest, `%q:{"type":"aws:cloudformation:stack","environment":"aws://123456789012/us-east-1","properties":{"templateFile":"%s.template.json"},"displayName":%q}`, name, name, name)
		var t strings.Builder
		t.WriteString(`{"Resources":{`)
		first := true
		for r := 0; r < perStack; r++ {
			var res string
			switch r % 4 {
			case 0:
				res = fmt.Sprintf(`"Queue%04d":{"Type":"AWS::SQS::Queue","Properties":{"VisibilityTimeout":30}}`, r)
			case 1:
				res = fmt.Sprintf(`"Topic%04d":{"Type":"AWS::SNS::Topic","Properties":{"DisplayName":"topic-%d-new"}}`, r, r)
			case 2:
				res = fmt.Sprintf(`"Policy%04d":{"Type":"AWS::IAM::Policy","Properties":{"PolicyName":"q%d","PolicyDocument":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bucket-%d/*"}]}}}`, r, r, r)
			default:
				continue // deleted
			}
			if !first {
				t.WriteString(",")
			}
			first = false
			t.WriteString(res)
		}
		for i := 0; i < noEcho; i++ {
			if !first {
				t.WriteString(",")
			}
			first = false
			fmt.Fprintf(&t, `"Db%03d":{"Type":"AWS::RDS::DBInstance","Properties":{"MasterUserPassword":{"Ref":"DbPassword"}}}`, i)
		}
		t.WriteString("}")
		if noEcho > 0 {
			fmt.Fprintf(&t, `,"Parameters":{"DbPassword":{"Type":"String","NoEcho":true,"Default":"pw-new-%02d-Zq8"}}`, s)
		}
		fmt.Fprintf(&t, `,"Outputs":{"Out%02d":{"Value":"b"}}}`, s)
		if err := os.WriteFile(filepath.Join(dir, name+".template.json"), []byte(t.String()), 0o644); err != nil {
			return err
		}
	}
	manifest.WriteString("}}")
	return os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest.String()), 0o644)
}
