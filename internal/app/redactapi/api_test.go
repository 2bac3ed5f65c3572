package redactapi

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

func diffHolding(value string) model.Diff {
	return model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", Changes: []model.ResourceChange{{
		LogicalID: "Param", ChangeType: "UPDATE", ResourceType: "AWS::SSM::Parameter",
		PropertyChanges: []model.PropertyChange{{Path: "Value", Old: model.JSONValue(`"old"`), New: model.JSONValue(`"` + value + `"`)}},
	}}}}}
}

// The change set line is base64 of gzip: it is decoded and searched
// before posting, as the redactor decodes every blob. A line
// that holds one (a miss of the model's redaction) is left out; a clean
// one is posted as it is.
func TestRedactBodyRescansTheChangeSetLine(t *testing.T) {
	const secret = "missed-by-the-model-secret-42"
	set := secrets.NewSet()
	set.Add(secret, "test")

	for _, tc := range []struct {
		name string
		diff model.Diff
		kept bool
	}{
		{"holds a secret", diffHolding(secret), false},
		{"clean", diffHolding("plain-value"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := prcomment.EncodeChangeSet(tc.diff, 1<<20, nil)
			assert.Assert(t, strings.HasPrefix(line, "<!-- cdkd-action-changeset:v1 "))
			// The redactor decodes base64 of gzip too (docs/secrets.md
			// "Encoded blobs"): the line that holds a secret is found.
			assert.Equal(t, set.Contains(line), !tc.kept)
			h := marker.Header{Kind: "diff", Label: "pr", SHA: "abc", Digest: tc.diff.Digest()}
			body := h.String() + "\n" + line + "\nvisible report\n"
			got := redactBody(set, body)
			assert.Equal(t, strings.Contains(got, line), tc.kept, got)
			assert.Assert(t, strings.HasSuffix(got, "\nvisible report\n"))
			if _, err := prcomment.DecodeChangeSet(got, h.Digest); tc.kept {
				assert.NilError(t, err)
			} else {
				assert.ErrorIs(t, err, prcomment.ErrNoChangeSet)
			}
		})
	}
}

// A check run's external id skips the redactor only when it is exactly our
// review record: a look-alike that starts the same way is redacted.
func TestCheckRunExternalIDRedactedUnlessOurRecord(t *testing.T) {
	digest := model.DigestVersion + ":941e399571891236ef5eb164eda87b232e75feca34ef280c473662c257a6af2f"
	hash := prcomment.ReportHash("report")
	set := secrets.NewSet()
	set.Add("hunter2-secret", "test")
	set.Add("941e3995", "test") // a short hex-like secret inside our own digest
	a := API{Secrets: set}

	own := gate.DiffRecordV2(digest, 42, hash)
	assert.Equal(t, a.checkRun(github.CheckRun{ExternalID: own}).ExternalID, own, "the deploy must read its own review back")
	for _, look := range []string{"cdkd-action:hunter2-secret", gate.DiffRecordV2(digest+"hunter2-secret", 42, hash)} {
		got := a.checkRun(github.CheckRun{ExternalID: look}).ExternalID
		assert.Assert(t, !strings.Contains(got, "hunter2-secret"), got)
	}
}
