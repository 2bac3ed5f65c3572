package gate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

const (
	headSHA  = "1111111111111111111111111111111111111111"
	otherSHA = "2222222222222222222222222222222222222222"
)

type fakeReviews struct {
	rv  Review
	err error
}

func (f fakeReviews) Review(context.Context) (Review, error) { return f.rv, f.err }

type fakeChangeSets struct {
	cur    Current
	err    error
	called *bool
}

func (f fakeChangeSets) ChangeSet(context.Context, int) (Current, error) {
	*f.called = true
	return f.cur, f.err
}

func safeDiff() model.Diff {
	return model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", Changes: []model.ResourceChange{
		{LogicalID: "Topic", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic", PropertyChanges: []model.PropertyChange{
			{Path: "DisplayName", Old: model.StringValue("v1"), New: model.StringValue("v2")}}},
	}}}}
}

func changedDiff() model.Diff {
	d := safeDiff()
	d.Stacks[0].Changes[0].PropertyChanges[0].New = model.StringValue("v3")
	return d
}

// destructiveDiff deletes a Lambda version and replaces a queue.
func destructiveDiff() model.Diff {
	d := safeDiff()
	d.Stacks[0].Changes = append(d.Stacks[0].Changes,
		model.ResourceChange{LogicalID: "Version1", ChangeType: model.ChangeDelete, ResourceType: "AWS::Lambda::Version"},
		model.ResourceChange{LogicalID: "Queue", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SQS::Queue", PropertyChanges: []model.PropertyChange{
			{Path: "QueueName", Old: model.StringValue("q1"), New: model.StringValue("q2"), RequiresReplacement: true}}},
	)
	d.Sort()
	return d
}

// unboundDiff creates a role whose properties no assembly bound.
func unboundDiff() model.Diff {
	d := safeDiff()
	d.Stacks[0].Changes = append(d.Stacks[0].Changes, model.ResourceChange{LogicalID: "Role", ChangeType: model.ChangeCreate, ResourceType: "AWS::IAM::Role", Unbound: "no cloud assembly"})
	d.Sort()
	return d
}

// importDiff imports a bucket: a change type a later cdkd may add.
func importDiff() model.Diff {
	d := safeDiff()
	d.Stacks[0].Changes = append(d.Stacks[0].Changes, model.ResourceChange{LogicalID: "Bucket", ChangeType: "IMPORT", ResourceType: "AWS::S3::Bucket"})
	d.Sort()
	return d
}

// hiddenDiff changes a NoEcho value: both sides read "***", tok stands
// for the new value.
func hiddenDiff(tok model.HiddenToken) model.Diff {
	d := safeDiff()
	p := &d.Stacks[0].Changes[0].PropertyChanges[0]
	p.Old, p.New, p.Secret, p.OldToken, p.NewToken = model.HiddenValue(), model.HiddenValue(), model.SecretNoEcho, tok, tok
	return d
}

func current(d model.Diff) Current { return Current{Diff: d, Digest: d.Digest()} }

// reviewOf is a fresh, trusted review of d, carrying d in the comment,
// that the diff check run recorded; carol added labels to it, in a way
// that counts.
func reviewOf(d model.Diff, labels ...string) Review {
	rv := Review{PR: 7, HeadSHA: headSHA, Commit: "commit 9999999", Comment: true, ReviewedSHA: headSHA,
		Digest: d.Digest(), ChangeSet: &ChangeSet{Digest: d.Digest(), Diff: &d}, Record: record(d.Digest())}
	for _, l := range labels {
		if strings.EqualFold(l, "cdkd:allow-destructive") {
			rv.Approvals.DestructiveBy = "carol"
		}
	}
	return rv
}

func record(digest string) *Record {
	return &Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 1, URL: "https://github.com/o/r/runs/1"}
}

func withCdkd(rv Review, v string) Review { rv.CdkdVersion = v; return rv }

func withCdkdNow(cur Current, v string) Current { cur.CdkdVersion = v; return cur }

func policy(require bool) Policy {
	return Policy{RequireReviewedDiff: require, DestructiveLabel: "cdkd:allow-destructive", Bot: "github-actions[bot]"}
}

func TestEvaluate(t *testing.T) {
	fingerprinted := reviewOf(safeDiff())
	fingerprinted.ChangeSet = &ChangeSet{Digest: fingerprinted.Digest, Fingerprints: safeDiff().Fingerprints()}
	bare := reviewOf(safeDiff())
	bare.ChangeSet = nil
	oldDigest := reviewOf(safeDiff())
	oldDigest.Digest, oldDigest.ChangeSet, oldDigest.Record = "v0:abc", nil, record("v0:abc")
	stale := reviewOf(safeDiff())
	stale.HeadSHA = otherSHA
	noSHA := reviewOf(safeDiff())
	noSHA.ReviewedSHA = ""
	failed := reviewOf(safeDiff())
	failed.Digest, failed.ChangeSet = "", nil
	noComment := Review{PR: 7, HeadSHA: headSHA, Commit: "commit 9999999"}
	// Someone with write access edited the comment to claim the current
	// change set: the check run still records the reviewed one.
	edited := reviewOf(changedDiff())
	edited.Record = record(safeDiff().Digest())
	unrecorded := reviewOf(safeDiff())
	unrecorded.Record = record("")
	unanchored := reviewOf(safeDiff())
	unanchored.Record = nil
	unnamed := reviewOf(safeDiff())
	unnamed.Record.CommentID = 0
	lateLabel := reviewOf(destructiveDiff())
	lateLabel.Approvals.DestructiveIgnored, lateLabel.MergedAt = []string{`the label "cdkd:allow-destructive" was added by carol after the merge`}, "2026-12-01T10:00:00Z"
	tampered := reviewOf(changedDiff())
	tampered.ChangeSet, tampered.Tampered = nil, "the stored change set does not match the header's digest"
	noPR := Review{Commit: "commit 9999999", Note: "a direct push"}
	unverifiable := current(safeDiff())
	unverifiable.Unverifiable = "more than 500 distinct values"
	keyed := reviewOf(hiddenDiff(model.FingerprintToken("a")))
	keyed.KeyID = "k1:old"
	keyedCurrent := current(hiddenDiff(model.FingerprintToken("a")))
	keyedCurrent.KeyID = "k1:old"
	keyedSafe := reviewOf(safeDiff())
	keyedSafe.KeyID = "k1:old"

	tests := []struct {
		name    string
		policy  Policy
		review  Review
		reviewE error
		current Current
		changeE error

		deploy      bool
		reason      Reason
		reviewed    bool
		message     []string // substrings of the message
		warnings    []string // substrings, one per warning
		noChangeSet bool     // refused before computing the change set
		compared    int      // items in the comparison; -1: no comparison
		detailed    bool
		note        string
		destructive []string // "LogicalID allowedBy"
		err         string
	}{
		{
			name: "reviewed and unchanged", policy: policy(true), review: reviewOf(safeDiff()), current: current(safeDiff()),
			deploy: true, reviewed: true, message: []string{"reviewed in pull request #7 at 1111111"}, compared: -1,
		},
		{
			name: "no pull request", policy: policy(true), review: noPR, current: current(safeDiff()),
			reason: reason.NoReviewedDiff, message: []string{"No pull request was found for commit 9999999 (a direct push)", "not deploying"},
			noChangeSet: true, compared: -1,
		},
		{
			name: "no trusted comment", policy: policy(true), review: noComment, current: current(safeDiff()),
			reason: reason.NoReviewedDiff, message: []string{"#7 has no diff comment written by github-actions[bot]"}, noChangeSet: true, compared: -1,
		},
		{
			name: "a failed diff is not a review", policy: policy(true), review: failed, current: current(safeDiff()),
			reason: reason.NoReviewedDiff, message: []string{"reports a failed diff"}, noChangeSet: true, compared: -1,
		},
		{
			name: "stale review", policy: policy(true), review: stale, current: current(safeDiff()),
			reason: reason.StaleReview, message: []string{"reviewed at 1111111", "final head is 2222222"}, noChangeSet: true, compared: -1,
		},
		{
			name: "header without a SHA is stale", policy: policy(true), review: noSHA, current: current(safeDiff()),
			reason: reason.StaleReview, message: []string{"reviewed at an unknown commit"}, noChangeSet: true, compared: -1,
		},
		{
			name: "diff changed, whole change set", policy: policy(true), review: reviewOf(safeDiff()), current: current(changedDiff()),
			reason: reason.DiffChanged, message: []string{"differs from the one reviewed in pull request #7", "(reviewed digest " + safeDiff().Digest()[:15] + ", now " + changedDiff().Digest()[:15] + ")"},
			compared: 1, detailed: true,
		},
		{
			name: "an unbound creation", policy: policy(true), review: reviewOf(unboundDiff()), current: current(unboundDiff()),
			reason: reason.DiffUnverifiable, message: []string{"creates StackA/Role, whose properties are not bound to the review (no cloud assembly)", "Pass the cloud assembly"}, compared: -1,
		},
		{
			name: "an unbound creation, gate off", policy: policy(false), review: reviewOf(unboundDiff()), current: current(unboundDiff()),
			deploy: true, compared: -1, warnings: []string{"creates StackA/Role, whose properties are not bound; deploying anyway"},
		},
		{
			name: "diff changed after a cdkd upgrade", policy: policy(true), review: withCdkd(reviewOf(safeDiff()), "0.284.40"), current: withCdkdNow(current(changedDiff()), "0.285.0"),
			reason: reason.DiffChanged, message: []string{"the reviewed diff ran cdkd 0.284.40 and this deploy runs cdkd 0.285.0", "re-run the pull request's diff with cdkd 0.285.0"},
			compared: 1, detailed: true,
		},
		{
			name: "diff changed, fingerprints", policy: policy(true), review: fingerprinted, current: current(changedDiff()),
			reason: reason.DiffChanged, compared: 1, note: "items that differ are listed, not how",
		},
		{
			name: "diff changed, no change set stored", policy: policy(true), review: bare, current: current(changedDiff()),
			reason: reason.DiffChanged, compared: -1, note: "cannot be listed",
		},
		{
			name: "digest from another version is stale", policy: policy(true), review: oldDigest, current: current(safeDiff()),
			reason: reason.StaleReview, message: []string{"another version of cdkd-action (v0, this one computes " + model.DigestVersion + ")", "does not cover the hidden values", "re-run the pull request's diff"}, compared: -1,
		},
		{
			name: "digest from another version, gate off", policy: policy(false), review: oldDigest, current: current(safeDiff()),
			deploy: true, compared: -1, warnings: []string{"another version of cdkd-action; deploying anyway", "computed by different versions; deploying anyway"},
		},
		{
			name: "hidden values not fingerprinted", policy: policy(true), review: reviewOf(hiddenDiff(model.TokenUnverifiable)), current: current(hiddenDiff(model.TokenUnverifiable)),
			reason: reason.DiffUnverifiable, message: []string{"cannot be compared with the review: 2 hidden values not fingerprinted: not deploying.", "Pass the cloud assembly"}, compared: -1,
		},
		{
			name: "unverifiable as the run said", policy: policy(true), review: reviewOf(safeDiff()), current: unverifiable,
			reason: reason.DiffUnverifiable, message: []string{"cannot be compared with the review: more than 500 distinct values"}, compared: -1,
		},
		{
			name: "key changed since the review", policy: policy(true), review: keyed, current: current(hiddenDiff(model.FingerprintToken("a"))),
			reason: reason.KeyMismatch, message: []string{"with fingerprint key k1:old, and this deploy has none", "same fingerprint-key"}, compared: -1,
		},
		{
			name: "key changed, nothing hidden", policy: policy(true), review: keyedSafe, current: current(safeDiff()),
			deploy: true, reviewed: true, compared: -1, message: []string{"is the one reviewed"},
		},
		{
			name: "same key, same hidden values", policy: policy(true), review: keyed, current: keyedCurrent,
			deploy: true, reviewed: true, compared: -1,
		},
		{
			name: "comment edited to the current digest", policy: policy(true), review: edited, current: current(changedDiff()),
			reason: reason.NoReviewedDiff, noChangeSet: true, compared: -1,
			message: []string{"comment on pull request #7 (" + changedDiff().Digest()[:15] + ") is not the one the diff check run recorded (" + safeDiff().Digest()[:15],
				`"cdkd diff (prod)" on 1111111, https://github.com/o/r/runs/1`, "may have been edited", "not deploying"},
		},
		{
			name: "check run records no digest", policy: policy(true), review: unrecorded, current: current(safeDiff()),
			reason: reason.NoReviewedDiff, noChangeSet: true, compared: -1,
			message: []string{`newest "cdkd diff (prod)" check run on 1111111 (https://github.com/o/r/runs/1) records no reviewed digest`, "re-run the pull request's diff"},
		},
		{
			name: "check run names no comment: none is the review", policy: policy(true), review: unnamed, current: current(safeDiff()),
			reason: reason.NoReviewedDiff, noChangeSet: true, compared: -1,
			message: []string{`newest "cdkd diff (prod)" check run on 1111111 (https://github.com/o/r/runs/1) names no diff comment it vouches for`, "re-run the pull request's diff"},
		},
		{
			name: "no check run: nothing vouches for the comment, refused", policy: policy(true), review: unanchored, current: current(safeDiff()),
			reason: reason.NoReviewedDiff, message: []string{"No diff check run on 1111111 records the review of pull request #7", "not deploying"}, compared: -1,
		},
		{
			name: "no check run with the gate off: deployed with a warning, not called reviewed", policy: policy(false), review: unanchored, current: current(safeDiff()),
			deploy: true, reviewed: false, compared: -1,
			warnings: []string{"No diff check run on 1111111 records the review of pull request #7; deploying anyway because require-reviewed-diff is false"},
		},
		{
			name: "change set line does not match the header", policy: policy(true), review: tampered, current: current(changedDiff()),
			reason: reason.NoReviewedDiff, noChangeSet: true, compared: -1,
			message: []string{"comment on pull request #7 was altered after the diff wrote it (the stored change set does not match"},
		},
		{
			name: "gate off, comment edited", policy: policy(false), review: edited, current: current(changedDiff()),
			deploy: true, compared: -1, warnings: []string{"not the one the diff check run recorded; deploying anyway"},
		},
		{
			name: "destructive refused", policy: policy(true), review: reviewOf(destructiveDiff()), current: current(destructiveDiff()),
			reason: reason.DestructiveRefused, reviewed: true, compared: -1,
			message:     []string{"2 resources would be destroyed", "replace Queue (AWS::SQS::Queue) in StackA, forced by QueueName", "delete Version1 (AWS::Lambda::Version) in StackA", `label "cdkd:allow-destructive"`},
			destructive: []string{"Queue ", "Version1 "},
		},
		{
			name: "approval label added after the merge", policy: policy(true), review: lateLabel, current: current(destructiveDiff()),
			reason: reason.DestructiveRefused, reviewed: true, compared: -1,
			message:     []string{"2 resources would be destroyed", `Not counted: the label "cdkd:allow-destructive" was added by carol after the merge.`},
			destructive: []string{"Queue ", "Version1 "},
		},
		{
			name: "several pull requests hold the commit", policy: policy(true), review: Review{Commit: "commit 9999999", Ambiguous: []int{7, 9}}, current: current(safeDiff()),
			reason: reason.NoReviewedDiff, noChangeSet: true, compared: -1,
			message: []string{"Commit 9999999 belongs to several merged pull requests (#7, #9)", "not deploying"},
		},
		{
			name: "destructive allowed by input", policy: Policy{RequireReviewedDiff: true, AllowDestructive: true, DestructiveLabel: "x"},
			review: reviewOf(destructiveDiff()), current: current(destructiveDiff()), deploy: true, reviewed: true, compared: -1,
			destructive: []string{"Queue allow-destructive: true", "Version1 allow-destructive: true"},
		},
		{
			name: "destructive allowed by label", policy: policy(true), review: reviewOf(destructiveDiff(), "bug", "CDKD:Allow-Destructive"),
			current: current(destructiveDiff()), deploy: true, reviewed: true, compared: -1,
			destructive: []string{"Queue the pull request label cdkd:allow-destructive", "Version1 the pull request label cdkd:allow-destructive"},
		},
		{
			name: "one type allowed, the other refused", policy: Policy{RequireReviewedDiff: true, DestructiveLabel: "l", AllowDestroyTypes: []string{"AWS::Lambda::Version"}},
			review: reviewOf(destructiveDiff()), current: current(destructiveDiff()), reason: reason.DestructiveRefused, reviewed: true, compared: -1,
			message:     []string{"1 resource would be destroyed", "replace Queue"},
			destructive: []string{"Queue ", "Version1 allow-destroy-types (AWS::Lambda::Version)"},
		},
		{
			name: "every type allowed", policy: Policy{RequireReviewedDiff: true, DestructiveLabel: "l", AllowDestroyTypes: []string{"AWS::Lambda::Version", "AWS::SQS::Queue"}},
			review: reviewOf(destructiveDiff()), current: current(destructiveDiff()), deploy: true, reviewed: true, compared: -1,
			destructive: []string{"Queue allow-destroy-types (AWS::SQS::Queue)", "Version1 allow-destroy-types (AWS::Lambda::Version)"},
		},
		{
			name: "unknown change type refused, allow-destroy-types does not approve it", policy: Policy{RequireReviewedDiff: true, DestructiveLabel: "l", AllowDestroyTypes: []string{"AWS::S3::Bucket"}},
			review: reviewOf(importDiff()), current: current(importDiff()), reason: reason.DestructiveRefused, reviewed: true, compared: -1,
			message: []string{"IMPORT Bucket (AWS::S3::Bucket)"}, destructive: []string{"Bucket "},
		},
		{
			name: "unknown change type allowed by label", policy: policy(true), review: reviewOf(importDiff(), "cdkd:allow-destructive"),
			current: current(importDiff()), deploy: true, reviewed: true, compared: -1,
			destructive: []string{"Bucket the pull request label cdkd:allow-destructive"},
		},
		{
			name: "unknown change type allowed by input", policy: Policy{RequireReviewedDiff: true, AllowDestructive: true},
			review: reviewOf(importDiff()), current: current(importDiff()), deploy: true, reviewed: true, compared: -1,
			destructive: []string{"Bucket allow-destructive: true"},
		},
		{
			name: "gate off, no pull request", policy: policy(false), review: noPR, current: current(safeDiff()),
			deploy: true, message: []string{"not verified against a review", "its digest is " + safeDiff().Digest()[:15] + "."}, compared: -1,
			warnings: []string{"No pull request was found; deploying anyway"},
		},
		{
			name: "gate off, diff changed", policy: policy(false), review: reviewOf(safeDiff()), current: current(changedDiff()),
			deploy: true, compared: 1, detailed: true, warnings: []string{"differs from the one reviewed; deploying anyway"},
		},
		{
			name: "gate off, stale", policy: policy(false), review: stale, current: current(safeDiff()),
			deploy: true, compared: -1, warnings: []string{"final head is 2222222; deploying anyway"},
		},
		{
			name: "gate off, no pull request, destructive: no label can allow it", policy: policy(false), review: Review{Approvals: Approvals{DestructiveBy: "carol"}},
			current: current(destructiveDiff()), reason: reason.DestructiveRefused, compared: -1, warnings: []string{"No pull request"},
			destructive: []string{"Queue ", "Version1 "},
		},
		{
			name: "gate on, review unreadable", policy: policy(true), reviewE: errors.New("list comments: 502"), current: current(safeDiff()),
			err: "find the reviewed diff: list comments: 502", noChangeSet: true,
		},
		{
			name: "gate off, review unreadable", policy: policy(false), reviewE: errors.New("list comments: 502"), current: current(safeDiff()),
			deploy: true, compared: -1, warnings: []string{"could not read the reviewed diff (list comments: 502)", "review could not be read"},
		},
		{
			name: "change set fails", policy: policy(true), review: reviewOf(safeDiff()), changeE: errors.New("cdkd diff failed"),
			err: "cdkd diff failed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			d, err := Evaluate(context.Background(), tc.policy, fakeReviews{tc.review, tc.reviewE}, fakeChangeSets{tc.current, tc.changeE, &called})
			assert.Equal(t, called, !tc.noChangeSet, "change set computed")
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, d.Deploy, tc.deploy, d.Message)
			// The current digest is never printed whole: it would be the
			// value to paste into the comment.
			for _, text := range append([]string{d.Message}, d.Warnings...) {
				assert.Assert(t, tc.current.Digest == "" || !strings.Contains(text, tc.current.Digest), text)
			}
			assert.Equal(t, d.Reason, tc.reason)
			assert.Equal(t, d.Reviewed, tc.reviewed)
			assert.Assert(t, d.Title != "")
			for _, m := range tc.message {
				assert.Assert(t, is.Contains(d.Message, m))
			}
			assert.Equal(t, len(d.Warnings), len(tc.warnings), d.Warnings)
			for i, w := range tc.warnings {
				for _, part := range strings.Split(w, "; ") {
					assert.Assert(t, is.Contains(d.Warnings[i], part))
				}
			}
			if tc.compared < 0 {
				assert.Assert(t, d.Comparison == nil)
			} else {
				assert.Assert(t, d.Comparison != nil)
				assert.Equal(t, len(d.Comparison.Items), tc.compared)
				assert.Equal(t, d.Comparison.Detailed, tc.detailed)
			}
			if tc.note != "" {
				assert.Assert(t, is.Contains(d.ComparisonNote, tc.note))
			}
			var got []string
			for _, x := range d.Destructive {
				got = append(got, x.LogicalID+" "+x.AllowedBy)
			}
			assert.DeepEqual(t, got, tc.destructive)
			if !tc.noChangeSet {
				assert.Assert(t, d.Current != nil)
			}
		})
	}
}

// The invariant: with require-reviewed-diff, nothing but the reviewed
// change set, at the final head, is ever deployed.
func TestNeverDeploysUnreviewed(t *testing.T) {
	diffs := []model.Diff{safeDiff(), changedDiff(), destructiveDiff(), {}}
	reviews := []Review{{}, {PR: 7, HeadSHA: headSHA}}
	for _, d := range diffs {
		for _, sha := range []string{headSHA, otherSHA, ""} {
			for _, digest := range []string{"", d.Digest(), safeDiff().Digest()} {
				for _, rec := range []*Record{nil, record(""), record(d.Digest()), record(safeDiff().Digest())} {
					for _, tampered := range []string{"", "altered"} {
						reviews = append(reviews, Review{PR: 7, HeadSHA: headSHA, Comment: true, ReviewedSHA: sha, Digest: digest, Record: rec, Tampered: tampered})
					}
				}
			}
		}
	}
	p := Policy{RequireReviewedDiff: true, AllowDestructive: true}
	for _, rv := range reviews {
		for _, d := range diffs {
			dec := Decide(p, rv, current(d))
			if dec.Deploy {
				assert.Assert(t, rv.Comment && rv.ReviewedSHA == rv.HeadSHA && rv.Digest == d.Digest(), "deployed %+v against %+v", d, rv)
				// What the check run recorded, when there is one, is what
				// was reviewed; an altered comment is never trusted.
				assert.Assert(t, rv.Record != nil && rv.Record.Digest == d.Digest(), "deployed %+v against %+v", d, rv)
				assert.Assert(t, rv.Tampered == "", "deployed %+v against %+v", d, rv)
				assert.Assert(t, dec.Reviewed)
			}
		}
	}
}

func TestDiffRecordV2(t *testing.T) {
	const digest = "v1:941e399571891236ef5eb164eda87b232e75feca34ef280c473662c257a6af2f"
	m := DiffRecordV2(digest, 1234567890123, "0123456789abcdef01234567")
	assert.Equal(t, m, "cdkd-action:v2:diff:1234567890123:0123456789abcdef01234567:"+digest)
	assert.Assert(t, len(m) <= 255, "GitHub's limit... a compact record")
	got, ok := ParseDiffRecord(m)
	assert.Assert(t, ok)
	assert.DeepEqual(t, got, Record{Digest: digest, CommentID: 1234567890123, ReportHash: "0123456789abcdef01234567", Renderer: 1})
	// The older form records the digest alone: it names no comment.
	got, ok = ParseDiffRecord("cdkd-action:v1:diff:" + digest)
	assert.Assert(t, ok)
	assert.DeepEqual(t, got, Record{Digest: digest})
	for _, bad := range []string{"", "prod", "cdkd-action:v1:diff:", "cdkd-action:v2:diff:" + digest, "cdkd-action:v2:diff:x:abc:" + digest, "cdkd-action:v2:diff:1:abc:"} {
		_, ok := ParseDiffRecord(bad)
		assert.Assert(t, !ok, bad)
	}
}

// The v3 record binds where the change set is kept and the layout of the
// comment's report; v2's were all written in layout 1.
func TestDiffRecord(t *testing.T) {
	const digest = "v3:941e399571891236ef5eb164eda87b232e75feca34ef280c473662c257a6af2f"
	for _, kept := range []string{KeptInComment, KeptStored, KeptNowhere} {
		m := DiffRecord(digest, 1234567890123, "0123456789abcdef01234567", 2, kept)
		assert.Equal(t, m, "cdkd-action:v3:diff:"+kept+":r2:1234567890123:0123456789abcdef01234567:"+digest)
		assert.Assert(t, len(m) <= 255)
		got, ok := ParseDiffRecord(m)
		assert.Assert(t, ok)
		assert.DeepEqual(t, got, Record{Digest: digest, CommentID: 1234567890123, ReportHash: "0123456789abcdef01234567",
			Stored: kept == KeptStored, Kept: kept, Renderer: 2})
		assert.Assert(t, IsOwnRecord(m), "passes the sink's redactor untouched")
	}
	got, ok := ParseDiffRecord(StoredDiffRecordV2(digest, 7, "0123456789abcdef01234567"))
	assert.Assert(t, ok)
	assert.Equal(t, got.Renderer, 1)
	assert.Equal(t, got.Kept, KeptStored)
	for _, bad := range []string{"cdkd-action:v3:diff:", "cdkd-action:v3:diff:elsewhere:r1:1:abc:" + digest, "cdkd-action:v3:diff:comment:r0:1:abc:" + digest,
		"cdkd-action:v3:diff:comment:1:1:abc:" + digest, "cdkd-action:v3:diff:comment:r01:1:abc:" + digest, "cdkd-action:v3:diff:comment:r1:x:abc:" + digest,
		"cdkd-action:v3:diff:comment:r1:1:abc:"} {
		_, ok := ParseDiffRecord(bad)
		assert.Assert(t, !ok, bad)
	}
}

func TestDeployRecord(t *testing.T) {
	m := DeployRecord(100001, "0123abcd")
	assert.Equal(t, m, "cdkd-action:v2:deploy:100001:0123abcd")
	id, hash, ok := ParseDeployRecord(m)
	assert.Assert(t, ok)
	assert.Equal(t, id, int64(100001))
	assert.Equal(t, hash, "0123abcd")
	for _, bad := range []string{"", "cdkd-action:v2:deploy:", "cdkd-action:v2:deploy:0:ab", "cdkd-action:v2:deploy:x:ab", "cdkd-action:v2:deploy:5:", DiffRecordV2("v1:00", 5, "ab")} {
		_, _, ok := ParseDeployRecord(bad)
		assert.Assert(t, !ok, bad)
	}
}

// Only a record exactly as this code writes it may skip the redactor at the
// sink; anything that merely starts like one is text.
func TestIsOwnRecord(t *testing.T) {
	digest := model.DigestVersion + ":941e399571891236ef5eb164eda87b232e75feca34ef280c473662c257a6af2f"
	hash := prcomment.ReportHash("report")
	for _, own := range []string{DiffRecordV2(digest, 42, hash), DiffRecordV2(digest, 0, hash), DeployRecord(7, hash)} {
		assert.Assert(t, IsOwnRecord(own), own)
	}
	for _, look := range []string{
		"cdkd-action:my-secret-value",                                     // the old prefix rule let this through
		DiffRecordV2(digest+"hunter2", 42, hash),                          // a tail after the digest
		DiffRecordV2(digest, 42, hash+"x"),                                // a longer hash
		DiffRecordV2(strings.ToUpper(digest), 42, hash),                   // not our digest's spelling
		DiffRecordV2("v1:"+digest[len(model.DigestVersion)+1:], 42, hash), // another digest version
		DiffRecordV2(digest, 42, "secret-secret-secret-sec"),              // right length, not hex
		"cdkd-action:v2:diff:+42:" + hash + ":" + digest,                  // a number spelled otherwise
		"cdkd-action:v2:diff:042:" + hash + ":" + digest,
		"cdkd-action:v1:diff:" + digest, // the older form: we no longer write it
		DeployRecord(7, hash) + ":hunter2",
		DeployRecord(7, "hunter2"),
		"",
	} {
		assert.Assert(t, !IsOwnRecord(look), look)
	}
}
