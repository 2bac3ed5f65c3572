package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// BenchmarkDiffPipeline measures what a PR run spends between cdkd's stdout
// and the posted bodies: decode and validate a 10,000-resource, 50-stack
// `cdkd diff --json`, redact it (20 secrets), digest it, and render the
// comment, the check run and the job summary within their budgets.
// Target on the 2-core CI machine: under 100 ms and 100 MB per op.
func BenchmarkDiffPipeline(b *testing.B) {
	raw := []byte(generatedDiffJSON(50, 200))
	set := secrets.NewSet()
	for i := 0; i < 20; i++ {
		set.Add(fmt.Sprintf("bench-secret-value-%02d", i), "bench")
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := cdkd.DecodeDiff(raw)
		if err != nil {
			b.Fatal(err)
		}
		discover.RedactDiff(&d, nil, set)
		rep := reporters.DiffReport{Diff: d, Digest: d.Digest(), HeadSHA: "1111111", FullReportHint: "the job summary"}
		for _, budget := range []reporters.Budget{reporters.CommentBudget, reporters.CheckRunBudget, reporters.SummaryBudget} {
			_ = set.Redact(reporters.DiffMarkdown(rep, budget))
		}
	}
}

// generatedDiffJSON is cdkd's diff shape: every kind of change, with values.
func generatedDiffJSON(stacks, perStack int) string {
	var b strings.Builder
	b.WriteString("[")
	for s := 0; s < stacks; s++ {
		if s > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"stack":"Stack%02d","region":"us-east-1","changes":[`, s)
		for r := 0; r < perStack; r++ {
			if r > 0 {
				b.WriteString(",")
			}
			switch r % 4 {
			case 0:
				fmt.Fprintf(&b, `{"logicalId":"Queue%04d","changeType":"CREATE","resourceType":"AWS::SQS::Queue"}`, r)
			case 1:
				fmt.Fprintf(&b, `{"logicalId":"Topic%04d","changeType":"UPDATE","resourceType":"AWS::SNS::Topic","propertyChanges":[{"path":"DisplayName","oldValue":"topic-%d-old","newValue":"topic-%d-new","requiresReplacement":false}]}`, r, r, r)
			case 2:
				fmt.Fprintf(&b, `{"logicalId":"Policy%04d","changeType":"UPDATE","resourceType":"AWS::IAM::Policy","propertyChanges":[{"path":"PolicyDocument","oldValue":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::bucket-%d/*"}]},"newValue":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bucket-%d/*"}]},"requiresReplacement":false},{"path":"PolicyName","oldValue":"p%d","newValue":"q%d","requiresReplacement":true}]}`, r, r, r, r, r)
			case 3:
				fmt.Fprintf(&b, `{"logicalId":"Old%04d","changeType":"DELETE","resourceType":"AWS::SNS::Topic"}`, r)
			}
		}
		fmt.Fprintf(&b, `],"outputChanges":[{"name":"Out%02d","changeType":"MODIFY","oldValue":"a","newValue":"b","export":false}],"children":[]}`, s)
	}
	b.WriteString("]")
	return b.String()
}
