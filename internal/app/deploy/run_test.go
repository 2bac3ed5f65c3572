package deploy

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

func TestOutputFilter(t *testing.T) {
	secret := func(stack, output string) bool {
		return (stack == "StackA" || stack == "Stage-StackB") && strings.HasPrefix(output, "Db")
	}
	declared := func(stack, output string) bool {
		return output == "BucketName" || output == "QueueUrl" || output == "Other" || strings.HasPrefix(output, "Db")
	}
	tests := []struct {
		name  string
		in    string
		want  string
		found []string // values added to the set
	}{
		{
			name:  "a secret output's value is hidden, others stay",
			in:    "Outputs:\n  StackA.BucketName = stacka-bucket\n  StackA.DbPassword = rotated-pw-9f8e7d\n  StackA.QueueUrl = http://q\n",
			want:  "Outputs:\n  StackA.BucketName = stacka-bucket\n  StackA.DbPassword = ***\n  StackA.QueueUrl = http://q\n",
			found: []string{"rotated-pw-9f8e7d"},
		},
		{
			name:  "outputs of another stack of the same name are not secret",
			in:    "  StackB.DbPassword = visible\n  Stage-StackB.DbUser = admin-user\n",
			want:  "  StackB.DbPassword = visible\n  Stage-StackB.DbUser = ***\n",
			found: []string{"admin-user"},
		},
		{
			name:  "a multi-line value's continuation lines are left out up to the end of the outputs",
			in:    "  StackA.DbJson = {\n  \"pw\": \"rotated-pw-9f8e7d\"\n}\n\n✓ Deployment completed successfully\n",
			want:  "  StackA.DbJson = ***\n\n✓ Deployment completed successfully\n",
			found: []string{"{", `"pw": "rotated-pw-9f8e7d"`, "}"},
		},
		{
			name:  "or up to the next output line",
			in:    "  StackA.DbPem = -----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END KEY-----\n  StackA.Other = shown\nshown too\r\n",
			want:  "  StackA.DbPem = ***\n  StackA.Other = shown\nshown too\r\n",
			found: []string{"-----BEGIN KEY-----", "MIIBOgIBAAJBAKj34GkxFhD9", "-----END KEY-----"},
		},
		{
			name:  "CRLF and a partial last line",
			in:    "  StackA.DbPassword = pw-crlf-value\r\n  StackA.DbOther = pw-no-newline",
			want:  "  StackA.DbPassword = ***\r\n  StackA.DbOther = ***",
			found: []string{"pw-crlf-value", "pw-no-newline"},
		},
		{
			name:  "progress lines pass; a value may hold \" = \"",
			in:    "Deploying stack: StackA\n[1/2] ✓ DbParam (AWS::SSM::Parameter) created\nStackA.Db = x = y\n",
			want:  "Deploying stack: StackA\n[1/2] ✓ DbParam (AWS::SSM::Parameter) created\nStackA.Db = ***\n",
			found: []string{"x = y"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, split := range []string{"lines", "bytes"} {
				var out strings.Builder
				set := secrets.NewSet()
				f := &outputFilter{dst: &out, log: redact.OutputLog{Secret: secret, Declared: declared, Set: set}}
				if split == "lines" {
					for _, l := range strings.SplitAfter(tc.in, "\n") {
						_, err := f.Write([]byte(l))
						assert.NilError(t, err)
					}
				} else {
					for i := range len(tc.in) {
						_, err := f.Write([]byte{tc.in[i]})
						assert.NilError(t, err)
					}
				}
				assert.NilError(t, f.Close())
				assert.Equal(t, out.String(), tc.want, split)
				assert.Equal(t, set.Len(), len(tc.found), split)
				for _, v := range tc.found {
					if len(v) >= secrets.MinRedactRunes {
						assert.Equal(t, set.Redact(v), secrets.Replacement, "%s: %q is registered", split, v)
					}
				}
			}
		})
	}
}
