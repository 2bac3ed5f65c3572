package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// docPolicies reads docs/aws.md's policies.
func docPolicies(t *testing.T) map[string]policy {
	t.Helper()
	doc, err := os.ReadFile(awsDoc)
	assert.NilError(t, err)
	p, err := parsePolicies(string(doc))
	assert.NilError(t, err)
	return p
}

// call is a call of a step of role, its placeholders the defaults.
func call(role, action, resource string, context ...string) iamCall {
	c := iamCall{test: "TestX", action: action, resource: resource, context: map[string]string{},
		step: iamStep{role: role, vars: map[string]string{"STATE_BUCKET": "state", "STATE_PREFIX": "cdkd", "FINGERPRINT_PREFIX": "cdkd-action"}}}
	for i := 0; i+1 < len(context); i += 2 {
		c.context[context[i]] = context[i+1]
	}
	return c
}

// The documented policies allow what each role must do and refuse what it
// must not: above all, the diff role cannot overwrite a write-once object
// and no role writes without a condition.
func TestDocumentedPoliciesAllowEachRoleItsOwnCalls(t *testing.T) {
	policies := docPolicies(t)
	const (
		bucket = "arn:aws:s3:::state"
		key    = bucket + "/cdkd-action/key"
		review = bucket + "/cdkd-action/reviews/0123abcd.json.gz"
		fps    = bucket + "/cdkd-action/StackA/us-east-1/fingerprints.json"
		record = bucket + "/cdkd/Parent~Child/eu-west-1/state.json"
		secret = "arn:aws:secretsmanager:us-east-1:" + emulatorAccount + ":secret:prod/db-AbCdEf"
		param  = "arn:aws:ssm:eu-west-1:" + emulatorAccount + ":parameter/prod/token"
	)
	for _, tc := range []struct {
		name  string
		call  iamCall
		allow bool
	}{
		{"diff reads a nested stack's record", call("diff", "s3:GetObject", record), true},
		{"diff reads fingerprints", call("diff", "s3:GetObject", fps), true},
		{"diff creates the key once", call("diff", "s3:PutObject", key, "s3:if-none-match", "*"), true},
		{"diff cannot overwrite the key", call("diff", "s3:PutObject", key), false},
		{"diff cannot replace the key it read", call("diff", "s3:PutObject", key, "s3:if-match", `"etag"`), false},
		{"diff stores a review once", call("diff", "s3:PutObject", review, "s3:if-none-match", "*"), true},
		{"diff cannot overwrite a review", call("diff", "s3:PutObject", review), false},
		{"diff writes no fingerprints", call("diff", "s3:PutObject", fps, "s3:if-none-match", "*"), false},
		{"diff writes no state", call("diff", "s3:PutObject", record, "s3:if-none-match", "*"), false},
		{"diff deletes nothing", call("diff", "s3:DeleteObject", review), false},
		{"diff resolves a secret", call("diff", "secretsmanager:GetSecretValue", secret), true},
		{"diff resolves a parameter in another region", call("diff", "ssm:GetParameter", param), true},
		{"a secret of another account", call("diff", "secretsmanager:GetSecretValue", strings.Replace(secret, emulatorAccount, "999999999999", 1)), false},
		{"another bucket", call("diff", "s3:GetObject", "arn:aws:s3:::other/cdkd/A/us-east-1/state.json"), false},
		{"action names are case-insensitive", call("diff", "S3:getobject", record), true},
		{"deploy creates fingerprints", call("deploy", "s3:PutObject", fps, "s3:if-none-match", "*"), true},
		{"deploy updates the fingerprints it read", call("deploy", "s3:PutObject", fps, "s3:if-match", `"etag"`), true},
		{"deploy never overwrites blindly", call("deploy", "s3:PutObject", fps), false},
		{"deploy cannot replace the key", call("deploy", "s3:PutObject", key, "s3:if-match", `"etag"`), false},
		{"deploy cannot store a review", call("deploy", "s3:PutObject", review, "s3:if-none-match", "*"), false},
		{"deploy reads a review", call("deploy", "s3:GetObject", review), true},
		{"drift lists the bucket", call("drift", "s3:ListBucket", bucket), true},
		{"drift writes nothing", call("drift", "s3:PutObject", fps, "s3:if-none-match", "*"), false},
		{"drift reads no fingerprints", call("drift", "s3:GetObject", fps), false},
		{"a step of unknown role", call("", "s3:GetObject", record), false},
		{"kms is only through a service", call("diff", "kms:Decrypt", "arn:aws:kms:us-east-1:"+emulatorAccount+":key/KEY_ID"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := checkCalls(policies, []iamCall{tc.call})
			assert.Equal(t, len(res.denied) == 0, tc.allow, "%s: %v", tc.call, res.denied)
		})
	}
}

// The check fails when a policy misses what a call needs, and names the
// test, the call and the role; an action no call needed is said.
func TestIAMCheckFailsWhenAPolicyMissesAnAction(t *testing.T) {
	policies := docPolicies(t)
	resolve := call("drift", "ssm:GetParameter", "arn:aws:ssm:us-east-1:"+emulatorAccount+":parameter/fixture/secure-value")
	assert.Assert(t, is.Len(checkCalls(policies, []iamCall{resolve}).denied, 0))

	drift := policies["drift"]
	var kept []statement
	for _, s := range drift.Statement {
		if s.Sid != "ResolveParameters" {
			kept = append(kept, s)
		}
	}
	assert.Assert(t, len(kept) < len(drift.Statement), "the drift policy resolves parameters")
	policies["drift"] = policy{Version: drift.Version, Statement: kept}
	res := checkCalls(policies, []iamCall{resolve})
	assert.DeepEqual(t, res.denied, []string{"TestX: ssm:GetParameter on arn:aws:ssm:us-east-1:000000000000:parameter/fixture/secure-value by a drift step is not allowed by the drift policy of docs/aws.md"})
	assert.Assert(t, is.Contains(strings.Join(res.unused, "\n"), "the drift policy's statement 0 (ListStateRecords) allows s3:ListBucket"))
}

// A condition the check cannot evaluate is refused, not taken as met.
func TestIAMCheckRefusesWhatItCannotEvaluate(t *testing.T) {
	for _, tc := range []struct{ name, statement, want string }{
		{"condition key", `{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"StringEquals": {"aws:SourceIp": "1.2.3.4"}}}`, "condition key aws:SourceIp"},
		{"operator", `{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*", "Condition": {"StringNotEquals": {"s3:if-none-match": "*"}}}`, "condition operator StringNotEquals"},
		{"NotAction", `{"Effect": "Allow", "NotAction": "s3:PutObject", "Resource": "*"}`, "NotAction"},
		{"effect", `{"Effect": "allow", "Action": "s3:GetObject", "Resource": "*"}`, `Effect "allow"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := ""
			for _, r := range iamRoles {
				doc += "<!-- policy: " + r + " -->\n```json\n{\"Version\": \"2012-10-17\", \"Statement\": [" + tc.statement + "]}\n```\n"
			}
			_, err := parsePolicies(doc)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := parsePolicies("<!-- policy: diff -->\n```json\n{\"Statement\": []}\n```\n")
	assert.ErrorContains(t, err, "no policy for role deploy")
}

func TestIAMWildcard(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"arn:aws:s3:::b/cdkd/*/state.json", "arn:aws:s3:::b/cdkd/A~B/us-east-1/state.json", true},
		{"arn:aws:s3:::b/cdkd/*/state.json", "arn:aws:s3:::b/cdkd-action/A/us-east-1/state.json", false},
		{"arn:aws:s3:::b/k?y", "arn:aws:s3:::b/key", true},
		{"arn:aws:s3:::b/[k]ey", "arn:aws:s3:::b/key", false},
		{"arn:aws:s3:::b/key", "arn:aws:s3:::b/key/x", false},
	} {
		assert.Equal(t, wildcard(tc.pattern, tc.s), tc.want, "%s ~ %s", tc.pattern, tc.s)
	}
}

// The recorder names S3 requests as IAM does: a HeadObject is a GetObject,
// a listing is ListBucket on the bucket, and a put carries its condition.
func TestIAMCallsOfS3Requests(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		header         map[string]string
		want           string
	}{
		{"GET", "/b/cdkd/A/us-east-1/state.json?x-id=GetObject", nil, "s3:GetObject on arn:aws:s3:::b/cdkd/A/us-east-1/state.json"},
		{"HEAD", "/b/cdkd-action/key", nil, "s3:GetObject on arn:aws:s3:::b/cdkd-action/key"},
		{"GET", "/b?list-type=2&prefix=cdkd%2F", nil, "s3:ListBucket on arn:aws:s3:::b"},
		{"PUT", "/b/cdkd-action/key?x-id=PutObject", map[string]string{"If-None-Match": "*"}, "s3:PutObject on arn:aws:s3:::b/cdkd-action/key (s3:if-none-match: *)"},
		{"PUT", "/b/k", map[string]string{"If-Match": `"e"`}, `s3:PutObject on arn:aws:s3:::b/k (s3:if-match: "e")`},
		{"DELETE", "/b/k?x-id=DeleteObject", nil, "s3:DeleteObject on arn:aws:s3:::b/k"},
		{"GET", "/b/k?tagging", nil, "s3:(unknown operation GET /b/k?tagging) on arn:aws:s3:::b"},
	} {
		r := httptest.NewRequest(tc.method, "http://emulator"+tc.target, nil)
		r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=x")
		for k, v := range tc.header {
			r.Header.Set(k, v)
		}
		calls := iamCalls(r, nil)
		assert.Assert(t, is.Len(calls, 1))
		assert.Equal(t, calls[0].String(), tc.want)
	}
}

// Every JSON block of docs/aws.md is JSON, the trust policies included,
// and each trust policy binds a subject.
func TestAWSDocJSONBlocksParse(t *testing.T) {
	doc, err := os.ReadFile(awsDoc)
	assert.NilError(t, err)
	blocks := regexp.MustCompile("(?s)```json\\n(.*?)\\n```").FindAllStringSubmatch(string(doc), -1)
	assert.Assert(t, len(blocks) >= len(iamRoles)+2)
	trust := 0
	for _, b := range blocks {
		var v map[string]any
		assert.NilError(t, json.Unmarshal([]byte(b[1]), &v), b[1])
		if strings.Contains(b[1], "AssumeRoleWithWebIdentity") {
			trust++
			assert.Assert(t, is.Contains(b[1], "token.actions.githubusercontent.com:sub"))
		}
	}
	assert.Assert(t, trust >= 2)
}

// Placeholders stand for the step's values, in one pass; a step without a
// state bucket matches none.
func TestIAMSubstitute(t *testing.T) {
	vars := map[string]string{"STATE_BUCKET": "b", "STATE_PREFIX": "SECRETS", "FINGERPRINT_PREFIX": "fp"}
	assert.Equal(t, substitute("arn:aws:s3:::STATE_BUCKET/STATE_PREFIX/*/FINGERPRINT_PREFIX", vars), "arn:aws:s3:::b/SECRETS/*/fp")
	assert.Equal(t, substitute("arn:aws:secretsmanager:*:ACCOUNT_ID:secret:SECRETS", vars), "arn:aws:secretsmanager:*:"+emulatorAccount+":secret:*")
	assert.Equal(t, substitute("arn:aws:s3:::STATE_BUCKET", map[string]string{"STATE_BUCKET": ""}), "arn:aws:s3:::(no STATE_BUCKET)")
}
