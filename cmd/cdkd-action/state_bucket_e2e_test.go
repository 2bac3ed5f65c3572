package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// ownerHeaders records the ExpectedBucketOwner of every request to bucket
// the action's steps make (the tests' own fixture calls are not recorded).
type ownerHeaders struct {
	mu      sync.Mutex
	headers []string
}

func recordOwners(e *awsEmulator, bucket string) *ownerHeaders {
	o := &ownerHeaders{}
	e.beforeRequest(func(r *http.Request) {
		b, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if b != bucket || strings.Contains(r.Header.Get("User-Agent"), "app/"+fixtureAppID) {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		o.headers = append(o.headers, r.Method+" "+r.URL.Path+" owner="+r.Header.Get("X-Amz-Expected-Bucket-Owner"))
	})
	return o
}

// assertAll checks that requests were made, and that each expected
// account as the bucket's owner.
func (o *ownerHeaders) assertAll(t *testing.T, account string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	assert.Assert(t, len(o.headers) > 0, "the action called the bucket")
	for _, h := range o.headers {
		assert.Assert(t, strings.HasSuffix(h, " owner="+account), "a request without the expected owner: %s", h)
	}
}

// With no state bucket named (no input, no CDKD_STATE_BUCKET, no
// cdk.json), the action uses cdkd's default for the account STS names, as
// cdkd does: the diff creates the fingerprint key there and the deploy
// reads it back. The log says which bucket and why, and every S3 call to
// the bucket expects the account as its owner.
func TestStateBucketDefaultsToCdkds(t *testing.T) {
	f := startAWS(t)
	account := f.ownAccount()
	bucket := "cdkd-state-" + account
	f.createBucket(t, bucket, nil)
	owners := recordOwners(f, bucket)
	w := newDeployWorkspace(t, reviewedSHA)
	w.useAWS(f)
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	reviewed := noEchoDiff(t, w, "reviewed.json", "hunter2-noecho-v1", "hunter2-noecho-v2")
	deployed := noEchoDiff(t, w, "deployed.json", "hunter2-noecho-v1", newSecretValue)
	stub := w.stub(bucketDiff(t, reviewed), bucketDiff(t, deployed))

	w.onPullRequest(reviewedSHA)
	review := w.run(diffInputs())
	assert.Equal(t, review.code, 0, review.stdout)
	why := "state bucket " + bucket + ", from cdkd's default for the account " + account + "; every S3 call to it expects it owned by that account"
	assert.Assert(t, is.Contains(review.stdout, why))
	stored, ok := f.object(t, bucket, "cdkd-action/key")
	assert.Assert(t, ok, "the key was created in cdkd's default bucket")
	w.secret(strings.TrimSpace(stored))
	assert.Assert(t, is.Contains(review.stdout, "Created the fingerprint key s3://"+bucket+"/cdkd-action/key"))

	w.onPush()
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "diff-changed", "the same key, read from the same bucket: the hidden values were compared")
	assert.Assert(t, is.Contains(res.stdout, why))
	owners.assertAll(t, account)
}

// cdkd's default name is derived from the account id, so anyone can
// create it in another account first. Every call then expects the
// account as owner, S3 refuses them, and the squatted bucket never
// receives the fingerprint key: the diff says the hidden values
// cannot be verified, and the log says why the bucket could not be used.
func TestStateBucketDefaultSquattedReceivesNothing(t *testing.T) {
	f := startAWS(t)
	account := f.ownAccount()
	bucket := "cdkd-state-" + account
	f.createBucket(t, bucket, nil) // in another account
	f.squat(bucket)
	owners := recordOwners(f, bucket)
	w := newWorkspace(t)
	w.useAWS(f)
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	w.stub(bucketDiff(t, noEchoDiff(t, w, "diff.json", "hunter2-noecho-v1", "hunter2-noecho-v2")))
	res := w.run(diffInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	_, written := f.object(t, bucket, "cdkd-action/key")
	assert.Assert(t, !written, "the squatted bucket received the fingerprint key")
	assert.Assert(t, is.Contains(res.stdout, "S3 refused HeadBucket on it: the role lacks s3:ListBucket, or another account owns it"))
	comment := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(comment, "(diff-unverifiable): no fingerprint key: the key in bucket "+bucket+" could not be read or created"), comment)
	owners.assertAll(t, account)
}

// Drift reads the state records from cdkd's default bucket too, each read
// expecting the account as the bucket's owner.
func TestStateBucketDefaultForDrift(t *testing.T) {
	f := startAWS(t)
	account := f.ownAccount()
	bucket := "cdkd-state-" + account
	f.createBucket(t, bucket, map[string]string{"cdkd/StackC/us-east-1/state.json": `{"version":8,"stackName":"StackC","region":"us-east-1","resources":{}}`})
	owners := recordOwners(f, bucket)
	w := newDriftWorkspace(t)
	w.useAWS(f)
	w.stub(detectStack(t, "clean.json", 0, "StackC"))
	res := w.run(map[string]string{"stacks": "StackC"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "state bucket "+bucket+", from cdkd's default for the account "+account))
	owners.assertAll(t, account)
}
