package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reviewstore"
)

// largeDiff writes a diff of StackA with n updates whose logical ids do not
// compress: its change-set line (whole or fingerprints) is far over what
// the comment keeps.
func largeDiff(t *testing.T, dir string, n int) string {
	t.Helper()
	return largeDiffOf(t, dir, "StackA", n)
}

// largeDiffOf is largeDiff of stack.
func largeDiffOf(t *testing.T, dir, stack string, n int) string {
	t.Helper()
	changes := make([]string, n)
	for i := range changes {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		// An update whose values cdkd does not print: nothing is hidden,
		// and nothing is created that the assembly would have to bind.
		changes[i] = fmt.Sprintf(`{"logicalId":"Q%s","changeType":"UPDATE","resourceType":"AWS::SQS::Queue","propertyChanges":[{"path":"Tags","requiresReplacement":false}]}`, hex.EncodeToString(sum[:8]))
	}
	path := filepath.Join(dir, "large.json")
	writeFile(t, path, `[{"stack":"`+stack+`","region":"us-east-1","changes":[`+strings.Join(changes, ",")+`],"outputChanges":[],"children":[]}]`)
	return path
}

// largeReviewWorkspace is a deploy workspace with the AWS emulator, a
// state bucket and a diff of 3,000 changes (largeDiff).
func largeReviewWorkspace(t *testing.T) (w *workspace, aws *awsEmulator, bucket, diff string) {
	t.Helper()
	aws = startAWS(t)
	bucket = "reviews-" + unique(t)
	aws.createBucket(t, bucket, nil)
	w = newDeployWorkspace(t, reviewedSHA)
	w.useAWS(aws)
	return w, aws, bucket, largeDiff(t, w.dir, 3000)
}

// More changes than the comment's hidden line can hold (it used to leave
// the line out, and the gate refused every such deploy): the diff keeps
// the change set in the state bucket under its digest, its check run says
// so, and the gate fetches it, checks it and deploys.
func TestDeployOfAChangeSetTooLargeForTheComment(t *testing.T) {
	w, aws, bucket, diff := largeReviewWorkspace(t)
	stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, diff), gateDiff(t, diff), deployInvocation(t, changedStacks(t, diff)...)},
		resultInvocationsOf(t, "events-StackA-run.json", changedStacks(t, diff)...)...)...)
	h := w.review(reviewedSHA, diffInputs(), "CDKD_STATE_BUCKET="+bucket)
	comment := prComment(t, w.gh).Body
	assert.Assert(t, !strings.Contains(comment, "cdkd-action-changeset:"), "the line does not fit")
	key := reviewstore.Key("", h.Digest)
	_, ok := aws.object(t, bucket, key)
	assert.Assert(t, ok, "the change set is stored at %s", key)
	assert.Assert(t, strings.HasPrefix(diffCheck(t, w.gh).ExternalID, "cdkd-action:v3:diff:stored:r"+itoa(prcomment.RendererVersion)+":"), "the check run records that it is stored")

	res := w.run(deployInputs(), "CDKD_STATE_BUCKET="+bucket)
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Equal(t, res.outputs["digest"], h.Digest)
}

// The stored change set is checked against the digest it is named by: one
// swapped for another change set is refused, and so is one the deploy
// cannot read, each saying why.
func TestDeployRefusesAStoredChangeSetItCannotVerify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spoil  func(t *testing.T, aws *awsEmulator, bucket, key string)
		env    bool
		expect string
	}{
		{name: "swapped", spoil: func(t *testing.T, aws *awsEmulator, bucket, key string) {
			aws.putObject(t, bucket, key, "not the reviewed change set")
		}, env: true, expect: "is not the change set with that digest"},
		{name: "deleted", spoil: func(t *testing.T, aws *awsEmulator, bucket, key string) {
			_, err := aws.s3().DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &bucket, Key: &key})
			assert.NilError(t, err)
		}, env: true, expect: "no reviewed change set is stored under its digest"},
		{name: "no bucket at deploy", expect: "no state bucket is known here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, aws, bucket, diff := largeReviewWorkspace(t)
			w.stub(gateDiff(t, diff))
			h := w.review(reviewedSHA, diffInputs(), "CDKD_STATE_BUCKET="+bucket)
			if tc.spoil != nil {
				tc.spoil(t, aws, bucket, reviewstore.Key("", h.Digest))
			}
			var env []string
			if tc.env {
				env = append(env, "CDKD_STATE_BUCKET="+bucket)
			}
			res := w.run(deployInputs(), env...)
			assert.Equal(t, res.code, 1, res.stdout)
			assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
			assert.Assert(t, is.Contains(res.stdout, "The reviewed change set of pull request #8 cannot be verified: it did not fit in the comment and is kept in the state bucket, but "), res.stdout)
			assert.Assert(t, is.Contains(res.stdout, tc.expect), res.stdout)
		})
	}
}

// Without a state bucket the diff says, in its review, that a change set
// this large cannot be deployed through the gate, and why.
func TestReviewTooLargeWithoutABucketSaysSo(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	diff := largeDiff(t, w.dir, 3000)
	w.stub(gateDiff(t, diff))
	w.review(reviewedSHA, diffInputs())
	assert.Assert(t, is.Contains(prComment(t, w.gh).Body, "too large for the comment and no state bucket is known to keep it in"))
}

// A review of about 800 changes whose state bucket neither job can use:
// the change set is too large for the comment whole and is not stored, so
// the comment keeps its fingerprints, and the deploy renders the report
// again from the change set it is about to deploy. Its report used to
// list the secret values' fingerprint statuses, which only the diff's run
// had read, and the deploy called the honest review "edited". Whatever
// the report shows must come from what the review records.
func TestLargeReviewNotStoredIsNoEdit(t *testing.T) {
	aws := startAWS(t)
	w := newDeployWorkspace(t, reviewedSHA)
	key := w.vars["INPUT_FINGERPRINT-KEY"]
	w.useAWS(aws)
	w.vars["INPUT_FINGERPRINT-KEY"] = key // the bucket is not there to hold it
	asm := fpAssembly(t, fpDbV1, fpAdV1)
	diff := largeValueDiff(t, w.dir, "FpStack", 700)
	missing := "no-such-bucket-" + unique(t)
	cdkdDiff := cdkdtest.Invocation{ArgsContain: []string{"diff", "--all", "--json"}, StdoutFile: diff}
	stub := w.stub(cdkdDiff, cdkdDiff,
		fpInvocation(t, "deploy.stdout", "deploy", "FpStack", "--exclusively", "-y"),
		fpInvocation(t, "events.json", "events", "FpStack", "--json"),
		fpInvocation(t, "events-run-UPDATE.json", "events", "FpStack", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
		fpInvocation(t, "state.json", "state", "show", "FpStack", "--json"))
	in := diffInputs()
	in["app"], in["state-bucket"] = asm, missing
	w.review(reviewedSHA, in)
	comment := prComment(t, w.gh).Body
	assert.Assert(t, strings.Contains(comment, "could not be stored in the state bucket"), "the diff says the change set is not kept whole")
	assert.Assert(t, strings.Contains(comment, "cdkd-action-changeset:"), "the fingerprints fit in the comment")
	assert.Assert(t, strings.Contains(comment, "a gated deploy of exactly this change set goes ahead"), "the note says what the deploy will do")
	assert.Assert(t, !prcomment.IsWhole(strings.Split(comment, "\n")[1], headerDigest(t, comment)), "the whole change set does not")
	assert.Assert(t, strings.HasPrefix(diffCheck(t, w.gh).ExternalID, "cdkd-action:v3:diff:comment:r"+itoa(prcomment.RendererVersion)+":"))

	res := w.run(deployInputs("app", asm, "state-bucket", missing))
	stub.AssertAllUsed(t)
	assert.Assert(t, !strings.Contains(res.stdout, "altered after the diff wrote it"), "%s", lastLines(res.stdout, 30))
	assert.Equal(t, res.outputs["failure-reason"], "", "%s", lastLines(res.stdout, 30))
	assert.Equal(t, res.outputs["deployed"], "true")
}

// largeValueDiff writes a diff of stack with n updates, each of a value
// that does not compress (at a position no assembly places, so hidden):
// neither the whole change set nor, far beyond 800, its fingerprints fit
// in the comment's hidden line.
func largeValueDiff(t *testing.T, dir, stack string, n int) string {
	t.Helper()
	changes := make([]string, n)
	for i := range changes {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		id, v := hex.EncodeToString(sum[:8]), hex.EncodeToString(sum[8:])
		changes[i] = fmt.Sprintf(`{"logicalId":"Q%s","changeType":"UPDATE","resourceType":"AWS::SQS::Queue","propertyChanges":[{"path":"DelaySeconds","oldValue":"%s","newValue":"%s-new","requiresReplacement":false}]}`, id, v, v)
	}
	path := filepath.Join(dir, "large-values.json")
	writeFile(t, path, `[{"stack":"`+stack+`","region":"us-east-1","changes":[`+strings.Join(changes, ",")+`],"outputChanges":[],"children":[]}]`)
	return path
}

// lastLines is the end of a long log, for a failure message.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

func headerDigest(t *testing.T, body string) string {
	t.Helper()
	h, ok := marker.Parse(body)
	assert.Assert(t, ok)
	return h.Digest
}

// onReviews matches the requests of method for the stored change sets.
func onReviews(r *http.Request, method string) bool {
	return r.Method == method && strings.Contains(r.URL.Path, "/reviews/")
}

// refuseReviews answers the requests of method for the stored change sets
// with S3's error code at status.
func refuseReviews(method string, status int, code, message string) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if !onReviews(r, method) {
			return false
		}
		s3Error(w, status, code, message)
		return true
	}
}

// "Not stored" is not "edited". When the diff could not keep a change set
// too large for its comment, or the deploy could not read it, the deploy
// says what happened and what to do, and calls no one's review edited;
// the S3 faults that used to end that way now store it.
func TestReviewStoreFaultsSayWhatHappened(t *testing.T) {
	for _, tc := range []struct {
		name string
		// diffFault and deployFault answer S3 requests instead of kumo
		// during the diff and the deploy.
		diffFault, deployFault func(w http.ResponseWriter, r *http.Request) bool
		// stored: the diff stores the change set and the deploy goes
		// through the gate; else it refuses, saying refusal.
		stored  bool
		note    string
		refusal []string
	}{
		{
			name: "a 409 on the conditional write is written again",
			diffFault: once(refuseReviews(http.MethodPut, http.StatusConflict, "ConditionalRequestConflict",
				"A conflicting conditional operation is currently in progress against this resource.")),
			stored: true,
		},
		{
			name:      "the read-back after the write fails",
			diffFault: refuseReviews(http.MethodGet, http.StatusForbidden, "AccessDenied", "Access Denied"),
			stored:    true,
		},
		{
			name:      "PutObject denied",
			diffFault: refuseReviews(http.MethodPut, http.StatusForbidden, "AccessDenied", "Access Denied"),
			note:      "the diff job's role needs s3:PutObject and s3:GetObject on",
			refusal: []string{"The reviewed change set of pull request #8 cannot be verified: the diff did not keep it: it was too large for the diff comment and could not be stored in the state bucket",
				"re-run the pull request's diff"},
		},
		{
			name: "the deploy's read is cut off by the network",
			deployFault: func(w http.ResponseWriter, r *http.Request) bool {
				if !onReviews(r, http.MethodGet) {
					return false
				}
				cutAfterHeaders(w, 4096)
				return true
			},
			stored: true,
			refusal: []string{"cannot be verified: it did not fit in the comment and is kept in the state bucket, but it could not be read from s3://",
				"a network fault, not a missing permission; re-run the deploy job"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, aws, bucket, diff := largeReviewWorkspace(t)
			invocations := []cdkdtest.Invocation{gateDiff(t, diff)}
			if tc.stored && tc.refusal == nil {
				invocations = append(invocations, gateDiff(t, diff), deployInvocation(t, changedStacks(t, diff)...))
				invocations = append(invocations, resultInvocationsOf(t, "events-StackA-run.json", changedStacks(t, diff)...)...)
			}
			stub := w.stub(invocations...)
			aws.answerInstead(tc.diffFault)
			h := w.review(reviewedSHA, diffInputs(), "CDKD_STATE_BUCKET="+bucket)
			aws.answerInstead(nil)
			comment := prComment(t, w.gh).Body
			record := diffCheck(t, w.gh).ExternalID
			_, there := aws.object(t, bucket, reviewstore.Key("", h.Digest))
			if tc.stored {
				assert.Assert(t, there, "the change set is stored")
				assert.Assert(t, strings.HasPrefix(record, "cdkd-action:v3:diff:stored:"), record)
				assert.Assert(t, !strings.Contains(comment, "could not be stored"), "the comment says nothing went wrong")
			} else {
				assert.Assert(t, !there)
				assert.Assert(t, strings.HasPrefix(record, "cdkd-action:v3:diff:none:"), record)
				assert.Assert(t, strings.Contains(comment, tc.note), "the comment says why it is not stored: %s", lastLines(comment, 5))
				assert.Assert(t, !strings.Contains(comment, "<nil>"))
			}

			aws.answerInstead(tc.deployFault)
			res := w.run(deployInputs(), "CDKD_STATE_BUCKET="+bucket)
			stub.AssertAllUsed(t)
			if tc.refusal == nil {
				assert.Equal(t, res.code, 0, lastLines(res.stdout, 30))
				assert.Equal(t, res.outputs["deployed"], "true")
				return
			}
			assert.Equal(t, res.code, 1, lastLines(res.stdout, 30))
			assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
			assert.Assert(t, strings.Contains(res.stdout, "::error::Deploy refused: Review cannot be verified: "), lastLines(res.stdout, 30))
			assert.Assert(t, !strings.Contains(res.stdout, "altered after the diff wrote it"), lastLines(res.stdout, 30))
			assert.Assert(t, !strings.Contains(res.stdout, "edited"), lastLines(res.stdout, 30))
			for _, want := range tc.refusal {
				assert.Assert(t, strings.Contains(res.stdout, want), "%q in %s", want, lastLines(res.stdout, 30))
			}
			if tc.deployFault != nil {
				assert.Assert(t, !strings.Contains(res.stdout, "needs s3:GetObject"), "a network fault is no permission")
			}
		})
	}
}

// once answers with f until f has answered once.
func once(f func(http.ResponseWriter, *http.Request) bool) func(http.ResponseWriter, *http.Request) bool {
	var mu sync.Mutex
	done := false
	return func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return false
		}
		done = f(w, r)
		return done
	}
}
