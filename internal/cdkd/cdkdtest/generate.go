package cdkdtest

import (
	"fmt"
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
