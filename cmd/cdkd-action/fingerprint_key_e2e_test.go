package main

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// bucketDiff is gateDiff for a run that names its state bucket.
func bucketDiff(t *testing.T, file string) cdkdtest.Invocation {
	t.Helper()
	inv := gateDiff(t, file)
	inv.Args, inv.ArgsContain = nil, []string{"diff", "--all", "--json"}
	return inv
}

// Without fingerprint-key, the diff keys its tokens with a random key it
// creates once in the state bucket; the deploy reads the same key, so the
// gate compares the hidden values (here: they differ) instead
// of refusing a key mismatch. The key never reaches a channel.
func TestFingerprintKeyKeptInTheBucket(t *testing.T) {
	f := startAWS(t)
	bucket := "fpkey-" + unique(t)
	f.createBucket(t, bucket, nil)
	w := newDeployWorkspace(t, reviewedSHA)
	w.useAWS(f)
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	reviewed := noEchoDiff(t, w, "reviewed.json", "hunter2-noecho-v1", "hunter2-noecho-v2")
	deployed := noEchoDiff(t, w, "deployed.json", "hunter2-noecho-v1", newSecretValue)
	stub := w.stub(bucketDiff(t, reviewed), bucketDiff(t, deployed))

	in := diffInputs()
	in["state-bucket"] = bucket
	w.onPullRequest(reviewedSHA)
	review := w.run(in)
	assert.Equal(t, review.code, 0, review.stdout)
	stored, ok := f.object(t, bucket, "cdkd-action/key")
	assert.Assert(t, ok, "the key was created in the state bucket")
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(stored))
	assert.NilError(t, err)
	assert.Equal(t, len(key), 32)
	assertHidden(t, review.channels, strings.TrimSpace(stored), string(key))
	w.secret(strings.TrimSpace(stored))
	assert.Assert(t, is.Contains(review.stdout, "Created the fingerprint key s3://"+bucket+"/cdkd-action/key"))
	assert.Assert(t, is.Contains(readFile(t, review.outputs["report-json"]), `"newMask":"fp1:`))
	h, err := fingerprint.NewHasher(fingerprint.Options{Key: key})
	assert.NilError(t, err)
	comments := w.gh.Comments(owner, repo, deployPR)
	header, ok := marker.Parse(comments[len(comments)-1].Body)
	assert.Assert(t, ok)
	assert.Equal(t, header.Extra["fingerprintKeyId"], h.KeyID(), "the review records the bucket key's id")

	w.onPush()
	res := w.run(deployInputs("state-bucket", bucket))
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "diff-changed", "the same key: the hidden values were compared")
	again, _ := f.object(t, bucket, "cdkd-action/key")
	assert.Equal(t, again, stored, "the key is created once")
	assert.Assert(t, !strings.Contains(res.stdout, "Created the fingerprint key"))
}

// When the key can be neither read nor created, nothing is fingerprinted:
// the hidden values cannot be verified, and the report says why
// in plain words.
func TestFingerprintKeyUnreadable(t *testing.T) {
	f := startAWS(t)
	w := newWorkspace(t)
	w.useAWS(f)
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	w.stub(bucketDiff(t, noEchoDiff(t, w, "diff.json", "hunter2-noecho-v1", "hunter2-noecho-v2")))
	in := diffInputs()
	in["state-bucket"] = "no-such-bucket-" + unique(t)
	res := w.run(in)
	assert.Equal(t, res.code, 0, res.stdout)
	report := readFile(t, res.outputs["report-json"])
	assert.Assert(t, !strings.Contains(report, "fp1:"), report)
	assert.Assert(t, is.Contains(report, `"newMask":"unverifiable"`), report)
	comment := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(comment, "The hidden values cannot be verified, so a deploy of this change set is refused (diff-unverifiable): no fingerprint key: the key in bucket "+in["state-bucket"]+" could not be read or created (the role needs s3:GetObject on it, and s3:PutObject to create it once): create the fingerprint key cdkd-action/key"), comment)
}

// fingerprints: false turns all of it off: no key is read or created, no
// token is published, and the hidden values cannot be verified.
func TestFingerprintsOffPublishesNoToken(t *testing.T) {
	f := startAWS(t)
	bucket := "fpoff-" + unique(t)
	f.createBucket(t, bucket, nil)
	w := newWorkspace(t)
	w.useAWS(f)
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	w.stub(bucketDiff(t, noEchoDiff(t, w, "diff.json", "hunter2-noecho-v1", "hunter2-noecho-v2")))
	in := diffInputs()
	in["state-bucket"], in["fingerprints"] = bucket, "false"
	res := w.run(in)
	assert.Equal(t, res.code, 0, res.stdout)
	_, created := f.object(t, bucket, "cdkd-action/key")
	assert.Assert(t, !created, "no key is created")
	comment := w.gh.Comments(owner, repo, prNum)[0].Body
	for where, text := range map[string]string{"report JSON": readFile(t, res.outputs["report-json"]), "comment": comment, "log": res.stdout} {
		assert.Assert(t, !strings.Contains(text, "fp1:"), "a token in the %s", where)
	}
	header, ok := marker.Parse(comment)
	assert.Assert(t, ok)
	assert.Equal(t, header.Extra["fingerprintKeyId"], "")
	assert.Assert(t, is.Contains(comment, "(diff-unverifiable): fingerprints is false, which turns every fingerprint off"), comment)
}

// A fingerprint-key that is not 32 random bytes is bad input: one sentence
// saying how to make one, exit 2, never the key.
func TestFingerprintKeyPassphraseRefused(t *testing.T) {
	for _, key := range []string{"changeme", "correct horse battery staple", "k3yk3yk3yk3yk3yk3yk3y"} {
		w := newWorkspace(t)
		res := w.run(map[string]string{"all": "true", "fingerprint-key": key, "cdkd-path": "/nonexistent/cdkd"})
		assert.Equal(t, res.code, 2, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "bad-input")
		assert.Assert(t, is.Regexp("::error::input fingerprint-key: expected at least 32 random bytes written as hex or base64 \\(a passphrase is not a key\\), got [^;]+; make one with `openssl rand -base64 32` and store it as a repository secret", res.stdout))
		assert.Assert(t, res.summary != "", "the job summary is written")
		assertHidden(t, res.channels, key)
	}
}

// An aggregate whose key is not the shards' cannot vouch for their tokens:
// the review would name one key for tokens made with another, so it says
// which shard differs, and a deploy of it is refused (diff-unverifiable).
func TestAggregateOfShardsWithAnotherKey(t *testing.T) {
	fixture := "../../testdata/fixtures/diff-v2.json"
	w := newWorkspace(t)
	matrix := planSampleAssembly(t, w)
	reports := runShards(t, w, matrix, splitDiff(t, fixture))
	assert.Assert(t, is.Contains(readFile(t, filepath.Join(reports, "cdkd-diff-1-of-2", "diff.json")), `"fingerprintKeyId":"k2:`))
	const other = "pEmdc0HzWLCys+DLyrZJoUkS4b0EPoyQppfSch11n5E="
	agg := w.run(map[string]string{"command": "aggregate", "reports": reports, "matrix": matrix, "fingerprint-key": other})
	assert.Equal(t, agg.code, 0, agg.stdout)
	body := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Regexp(`\(diff-unverifiable\): shard 1-of-2 fingerprinted its hidden values with key k2:\S+, and this aggregate's key is k2:`, body), body)
}
