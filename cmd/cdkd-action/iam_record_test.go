package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/cdkd-action/cdkd-action/internal/app"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// The e2e tests record every AWS call the action makes at the emulator, as
// the IAM action and resource a real role would be asked to allow, tagged
// with the role of the step that made it (the command input; a plan or
// aggregate takes the role of what it is for). docs/aws.md's policies are
// checked against these calls after the tests ran (iam_policy_test.go),
// so the documented roles are what the tests needed, not a hand-kept list.
//
// A step's SDK clients carry its tag as their app id (User-Agent
// app/cdkd-action-e2e-step-N, see stepAWSConfig); the tests' own fixture
// calls carry app/cdkd-action-e2e-fixture and are not the action's; the
// real cdkd's calls (aws-sdk-js) are cdkd's, documented by cdkd.

// emulatorAccount is the account kumo puts in the ARNs it makes.
const emulatorAccount = "000000000000"

const (
	fixtureAppID = "cdkd-action-e2e-fixture"
	stepAppID    = "cdkd-action-e2e-step-"
)

// iamStep is what the policy check needs to know of the step that made a
// call: its role and the values docs/aws.md's placeholders stand for.
type iamStep struct {
	role string // diff, deploy or drift; "" when the inputs did not load
	why  string // why role is "": the step's input error
	vars map[string]string
}

// iamCall is one AWS call the action made.
type iamCall struct {
	test     string
	step     iamStep
	action   string // "s3:GetObject"
	resource string // "arn:aws:s3:::bucket/key"
	// context holds the request's condition keys the policies test
	// (s3:if-none-match, s3:if-match), present only when sent.
	context map[string]string
}

func (c iamCall) String() string {
	s := c.action + " on " + c.resource
	for _, k := range []string{"s3:if-none-match", "s3:if-match"} {
		if v, ok := c.context[k]; ok {
			s += fmt.Sprintf(" (%s: %s)", k, v)
		}
	}
	return s
}

// iamRecord is every call of the test process, across emulators.
var iamRecord struct {
	mu    sync.Mutex
	steps []iamStep
	calls []iamCall
}

// tagStep registers a step and returns the app id its SDK clients send.
func tagStep(dir string, getenv func(string) string, args []string) string {
	s := stepRole(dir, getenv, args)
	iamRecord.mu.Lock()
	defer iamRecord.mu.Unlock()
	iamRecord.steps = append(iamRecord.steps, s)
	return stepAppID + strconv.Itoa(len(iamRecord.steps)-1)
}

// processEnv is the environment of step s run as a process of the
// binary (with args), tagged: the SDK's default configuration, which the
// binary loads, takes AWS_SDK_UA_APP_ID as its app id.
func (s *step) processEnv(dir string, args []string) []string {
	tag := tagStep(dir, func(k string) string { return s.env[k] }, args)
	return append(s.environ(), "AWS_SDK_UA_APP_ID="+tag)
}

// stepRole reads the step's inputs as the action does and names its role.
func stepRole(dir string, getenv func(string) string, args []string) iamStep {
	cfg, err := config.LoadIn(app.Commands(), dir, getenv, args)
	if err != nil {
		return iamStep{why: err.Error()}
	}
	role := cfg.Command
	if role == config.CommandPlan || role == config.CommandAggregate {
		role = cmp.Or(cfg.For, config.CommandDiff)
	}
	return iamStep{role: string(role), vars: map[string]string{
		"STATE_BUCKET":       cmp.Or(cfg.StateBucket, getenv("CDKD_STATE_BUCKET")),
		"STATE_PREFIX":       cfg.StatePrefix,
		"FINGERPRINT_PREFIX": cmp.Or(cfg.FingerprintPrefix, fingerprint.DefaultPrefix),
	}}
}

// record notes r as the calls it makes of the action's step, if it is
// one; the body is read and put back for kumo.
func (e *awsEmulator) record(r *http.Request) {
	ua := r.Header.Get("User-Agent")
	if strings.Contains(ua, "aws-sdk-js") || strings.Contains(ua, "app/"+fixtureAppID) {
		return
	}
	step := iamStep{why: "the request carries no step tag (User-Agent " + ua + "): a step the harness did not tag"}
	if _, id, ok := strings.Cut(ua, "app/"+stepAppID); ok {
		id, _, _ = strings.Cut(id, " ")
		n, err := strconv.Atoi(id)
		iamRecord.mu.Lock()
		if err == nil && n >= 0 && n < len(iamRecord.steps) {
			step = iamRecord.steps[n]
		}
		iamRecord.mu.Unlock()
	}
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	calls := iamCalls(r, body)
	e.mu.Lock()
	if e.account != "" && step.vars != nil {
		// The test's own account (ownAccount) is the ACCOUNT_ID of its
		// calls, and a step that names no bucket uses cdkd's default,
		// named after it.
		step.vars = maps.Clone(step.vars)
		step.vars["ACCOUNT_ID"] = e.account
		step.vars["STATE_BUCKET"] = cmp.Or(step.vars["STATE_BUCKET"], "cdkd-state-"+e.account)
	}
	e.mu.Unlock()
	iamRecord.mu.Lock()
	defer iamRecord.mu.Unlock()
	for _, c := range calls {
		c.test, c.step = e.test, step
		iamRecord.calls = append(iamRecord.calls, c)
	}
}

// iamCalls names what r asks of IAM: S3 by method, path and query
// (path-style, as awsx.NewS3 addresses an emulator), JSON services by
// X-Amz-Target. An operation it does not know is named so that no policy
// allows it, and the check says which.
func iamCalls(r *http.Request, body []byte) []iamCall {
	service, region := "", "us-east-1"
	if m := credentialScope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
		region, service = m[1], m[2]
	}
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		_, op, _ := strings.Cut(target, ".")
		var calls []iamCall
		for _, arn := range jsonResources(service, op, region, body) {
			calls = append(calls, iamCall{action: service + ":" + op, resource: arn})
		}
		return calls
	}
	if service == "s3" {
		return s3Calls(r)
	}
	if q, _ := url.ParseQuery(string(body)); service == "sts" && q.Get("Action") == "GetCallerIdentity" {
		return nil // needs no permission, and cannot be denied
	}
	return []iamCall{{action: service + ":(unknown operation " + r.Method + " " + r.URL.Path + ")"}}
}

// s3Calls maps a path-style S3 request to its IAM action and resource.
func s3Calls(r *http.Request) []iamCall {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	has := func(k string) bool { _, ok := q[k]; return ok }
	unknown := []iamCall{{action: "s3:(unknown operation " + r.Method + " " + r.URL.RequestURI() + ")", resource: "arn:aws:s3:::" + bucket}}
	if key == "" {
		arn := "arn:aws:s3:::" + bucket
		switch {
		case (r.Method == http.MethodGet && (len(q) == 0 || q.Get("list-type") == "2" || has("prefix"))) || r.Method == http.MethodHead:
			return []iamCall{{action: "s3:ListBucket", resource: arn}} // ListObjects(V2), HeadBucket
		case r.Method == http.MethodGet && has("versions"):
			return []iamCall{{action: "s3:ListBucketVersions", resource: arn}}
		case r.Method == http.MethodGet && has("location"):
			return []iamCall{{action: "s3:GetBucketLocation", resource: arn}}
		case r.Method == http.MethodPut && len(q) == 0:
			return []iamCall{{action: "s3:CreateBucket", resource: arn}}
		}
		return unknown
	}
	arn := "arn:aws:s3:::" + bucket + "/" + key
	conditions := map[string]string{}
	for h, k := range map[string]string{"If-None-Match": "s3:if-none-match", "If-Match": "s3:if-match"} {
		if v := r.Header.Get(h); v != "" {
			conditions[k] = v
		}
	}
	sub := func(names ...string) bool {
		for _, n := range names {
			if has(n) {
				return true
			}
		}
		return false
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case sub("tagging", "acl", "attributes", "retention", "legal-hold", "torrent"):
			return unknown
		case has("versionId"):
			return []iamCall{{action: "s3:GetObjectVersion", resource: arn}}
		}
		return []iamCall{{action: "s3:GetObject", resource: arn}} // GetObject, HeadObject
	case http.MethodPut:
		switch {
		case sub("tagging", "acl", "retention", "legal-hold"):
			return unknown
		case r.Header.Get("X-Amz-Copy-Source") != "":
			src, _ := url.PathUnescape(strings.TrimPrefix(r.Header.Get("X-Amz-Copy-Source"), "/"))
			src, _, _ = strings.Cut(src, "?")
			return []iamCall{{action: "s3:PutObject", resource: arn, context: conditions}, {action: "s3:GetObject", resource: "arn:aws:s3:::" + src}}
		}
		return []iamCall{{action: "s3:PutObject", resource: arn, context: conditions}} // PutObject, UploadPart
	case http.MethodPost:
		if sub("uploads", "uploadId") {
			return []iamCall{{action: "s3:PutObject", resource: arn, context: conditions}} // a multipart upload
		}
	case http.MethodDelete:
		switch {
		case has("uploadId"):
			return []iamCall{{action: "s3:AbortMultipartUpload", resource: arn}}
		case has("versionId"):
			return []iamCall{{action: "s3:DeleteObjectVersion", resource: arn}}
		}
		return []iamCall{{action: "s3:DeleteObject", resource: arn}}
	}
	return unknown
}

// jsonResources are the ARNs a Secrets Manager or SSM call is authorized
// on. A secret named by name gets the six-character suffix AWS adds to
// its ARN, so a policy naming the secret without a wildcard fails as it
// would.
func jsonResources(service, op, region string, body []byte) []string {
	var in struct {
		SecretID string   `json:"SecretId"`
		Name     string   `json:"Name"`
		Names    []string `json:"Names"`
	}
	_ = json.Unmarshal(body, &in)
	switch service {
	case "secretsmanager":
		if strings.HasPrefix(in.SecretID, "arn:") {
			return []string{in.SecretID}
		}
		return []string{fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s-AbCdEf", region, emulatorAccount, in.SecretID)}
	case "ssm":
		var arns []string
		for _, name := range append(in.Names, in.Name) {
			switch {
			case name == "":
			case strings.HasPrefix(name, "arn:"):
				arns = append(arns, name)
			default:
				arns = append(arns, fmt.Sprintf("arn:aws:ssm:%s:%s:parameter/%s", region, emulatorAccount, strings.TrimPrefix(name, "/")))
			}
		}
		if len(arns) > 0 {
			return arns
		}
	}
	return []string{"(resource of " + service + ":" + op + " unknown)"}
}
