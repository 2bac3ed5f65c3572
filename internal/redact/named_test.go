package redact

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// TestDiffSaysWhenASecretNamesAResource: a NoEcho value that fills a
// queue's name stays hidden in the values that hold it, and the report
// says once per position that AWS shows it there.
func TestDiffSaysWhenASecretNamesAResource(t *testing.T) {
	asm := loadAssembly(t)
	set := redactSet()
	set.Add("queue-name-v1", "NoEcho parameter App/QName default")
	d := model.Diff{Stacks: []model.StackDiff{{
		Stack: "App", Region: "us-east-1",
		Changes: []model.ResourceChange{{LogicalID: "Plain", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic",
			PropertyChanges: []model.PropertyChange{{Path: "DisplayName",
				Old: str("arn:aws:sqs:us-east-1:1:queue-name-v1"), New: str("arn:aws:sqs:us-east-1:1:queue-name-v1-dlq")}}}},
	}}}
	rep := Diff(&d, Input{Set: set, Positions: asm})
	pc := d.Stacks[0].Changes[0].PropertyChanges[0]
	assert.Equal(t, pc.Old.Text(), "arn:aws:sqs:us-east-1:1:***", "hidden inside the ARN")
	assert.Equal(t, pc.New.Text(), "arn:aws:sqs:us-east-1:1:***-dlq")
	assert.DeepEqual(t, rep.NamedAfter, []NamedAfter{{Stack: "App", LogicalID: "NamedQueue", Path: "QueueName", Source: "QName"}})
	notes := NamedAfterNotes(append(rep.NamedAfter, rep.NamedAfter...), set)
	assert.DeepEqual(t, notes, []string{"The value of `QName` is part of the name of `NamedQueue` (QueueName in App): AWS shows it there, and in its ARN and every resource that refers to it; cdkd-action redacts it where it prints it, but cannot hide it in AWS. Do not use a secret as a name."})

	// A report placed by the run that made it (a shard's, aggregated)
	// carries its notes already.
	rep = Diff(&d, Input{Set: set, Positions: asm, Placed: true})
	assert.Assert(t, rep.NamedAfter == nil)
}
