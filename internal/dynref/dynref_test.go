package dynref

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Ref
		ok   bool
	}{
		{
			in:   "{{resolve:secretsmanager:my-secret:SecretString:password}}",
			want: Ref{Service: SecretsManager, SecretID: "my-secret", JSONKey: "password"},
			ok:   true,
		},
		{
			in:   "{{resolve:secretsmanager:my-secret}}",
			want: Ref{Service: SecretsManager, SecretID: "my-secret"},
			ok:   true,
		},
		{
			in: "{{resolve:secretsmanager:arn:aws:secretsmanager:us-west-2:123456789012:secret:prod/db-AbCdEf:SecretString:password:AWSPREVIOUS}}",
			want: Ref{Service: SecretsManager, SecretID: "arn:aws:secretsmanager:us-west-2:123456789012:secret:prod/db-AbCdEf",
				JSONKey: "password", VersionStage: "AWSPREVIOUS"},
			ok: true,
		},
		{
			in:   "{{resolve:secretsmanager:s:SecretString::AWSCURRENT:abc-123}}",
			want: Ref{Service: SecretsManager, SecretID: "s", VersionStage: "AWSCURRENT", VersionID: "abc-123"},
			ok:   true,
		},
		{
			in:   "{{resolve:ssm-secure:/fixture/secure-value}}",
			want: Ref{Service: SSMSecure, Parameter: "/fixture/secure-value"},
			ok:   true,
		},
		{
			in:   "{{resolve:ssm:/app/name:3}}",
			want: Ref{Service: SSM, Parameter: "/app/name", Version: "3"},
			ok:   true,
		},
		{
			in:   "{{resolve:ssm:arn:aws:ssm:eu-west-1:123456789012:parameter/app/name:2}}",
			want: Ref{Service: SSM, Parameter: "arn:aws:ssm:eu-west-1:123456789012:parameter/app/name", Version: "2"},
			ok:   true,
		},
		{in: "prefix {{resolve:ssm:/x}}", ok: false},
		{in: "{{resolve:unknown:/x}}", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := Parse(tc.in)
			assert.Equal(t, ok, tc.ok)
			if !tc.ok {
				return
			}
			tc.want.Raw = tc.in
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestFindAllInLongerString(t *testing.T) {
	s := "user={{resolve:ssm:/a}};pw={{resolve:secretsmanager:db:SecretString:pw}}"
	refs := FindAll(s)
	assert.Equal(t, len(refs), 2)
	assert.Equal(t, refs[0].Parameter, "/a")
	assert.Equal(t, refs[1].SecretID, "db")
	assert.Equal(t, refs[1].JSONKey, "pw")
}

func TestRegion(t *testing.T) {
	r, _ := Parse("{{resolve:secretsmanager:arn:aws:secretsmanager:us-west-2:1:secret:x:SecretString:k}}")
	assert.Equal(t, r.Region(), "us-west-2")
	r, _ = Parse("{{resolve:secretsmanager:my-secret}}")
	assert.Equal(t, r.Region(), "")
}
