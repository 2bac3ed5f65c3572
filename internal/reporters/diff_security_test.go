package reporters

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// securityDiff is a diff whose stack carries security rows built from CDK
// shapes: a Role trusting another account with AdministratorAccess, a
// bucket policy with a hidden value, a rule narrowed and one opened to
// the internet, a Function.addPermission.
func securityDiff(t *testing.T) model.Diff {
	t.Helper()
	props := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	rs := []security.Resource{
		{Stack: "App", Region: "us-east-1", Account: "123456789012", LogicalID: "Role1ABCC5F0", Type: "AWS::IAM::Role",
			Old: props("AssumeRolePolicyDocument", `{"Statement":[{"Action":"sts:AssumeRole","Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"}}]}`,
				"ManagedPolicyArns", `["arn:aws:iam::aws:policy/ReadOnlyAccess"]`),
			New: props("AssumeRolePolicyDocument", `{"Statement":[{"Action":"sts:AssumeRole","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::999988887777:root"}}]}`,
				"ManagedPolicyArns", `["arn:aws:iam::aws:policy/AdministratorAccess"]`)},
		{Stack: "App", Region: "us-east-1", LogicalID: "BucketPolicyE9A3008A", Type: "AWS::S3::BucketPolicy",
			New: props("Bucket", `{"Ref":"Bucket83908E77"}`, "PolicyDocument", `{"Statement":[{"Action":["s3:GetObject*","s3:List*"],"Effect":"Allow","Principal":"*","Resource":"arn:aws:s3:::b|x/***"},{"Fn::If":["C",{},{}]}]}`)},
		{Stack: "App", Region: "us-east-1", LogicalID: "SgD4954771", Type: "AWS::EC2::SecurityGroup",
			Old: props("SecurityGroupIngress", `[{"CidrIp":"10.0.0.0/8","FromPort":443,"IpProtocol":"tcp","ToPort":443}]`),
			New: props("SecurityGroupIngress", `[{"CidrIp":"10.0.0.0/16","FromPort":443,"IpProtocol":"tcp","ToPort":443},{"CidrIp":"0.0.0.0/0","FromPort":22,"IpProtocol":"tcp","ToPort":22}]`)},
		{Stack: "App", Region: "us-east-1", LogicalID: "FnInvokeECF98ABE", Type: "AWS::Lambda::Permission",
			New: props("Action", `"lambda:InvokeFunction"`, "FunctionName", `{"Fn::GetAtt":["Fn9270CBC0","Arn"]}`, "Principal", `"s3.amazonaws.com"`, "SourceArn", `{"Fn::GetAtt":["Bucket83908E77","Arn"]}`)},
		{Stack: "App", Region: "us-east-1", LogicalID: "Bucket83908E77", Type: "AWS::S3::Bucket",
			Old: props("PublicAccessBlockConfiguration", `{"BlockPublicAcls":true,"BlockPublicPolicy":true,"IgnorePublicAcls":true,"RestrictPublicBuckets":true}`), New: props()},
	}
	cs := security.Changes(rs)
	security.Sort(cs)
	return model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Security: cs,
		Changes: []model.ResourceChange{{LogicalID: "Role1ABCC5F0", ChangeType: model.ChangeUpdate, ResourceType: "AWS::IAM::Role"}}}}}
}

func TestSecuritySection(t *testing.T) {
	got := DiffMarkdown(report(securityDiff(t)), CommentBudget)
	golden.Assert(t, got, "diff-security.golden")
	sec := got[strings.Index(got, "### 🔐 Security changes"):strings.Index(got, "<details")]
	for _, want := range []string{
		"⚠️ **7 broadening** of 11 security changes",
		"arn:aws:s3:::b&#124;x/&#42;&#42;&#42;", // a hidden value stays hidden; a pipe cannot split the cell
		"🚩 role trusts another account",
		"🚩 ingress open to the internet",
		"🚩 wildcard principal on a resource policy",
		"trusts account 999988887777, not the stack's (123456789012)",
	} {
		assert.Assert(t, strings.Contains(sec, want), "the security section lacks %q:\n%s", want, sec)
	}
	assert.Assert(t, strings.Index(got, "### 🔐 Security changes") < strings.Index(got, "🔄 **update** `Role1ABCC5F0`"),
		"the security section is not above the resource list")
}

// TestSecuritySectionRendersInGitHubMarkdown renders the comment with
// cmark-gfm, GitHub's Markdown engine, and checks what a reviewer sees:
// every row a table row with all its cells.
func TestSecuritySectionRendersInGitHubMarkdown(t *testing.T) {
	cmark, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Skip("cmark-gfm is not installed (apt-get install cmark-gfm)")
	}
	md := DiffMarkdown(report(securityDiff(t)), CommentBudget)
	cmd := exec.Command(cmark, "--unsafe", "-e", "table", "-e", "autolink", "-e", "tagfilter")
	cmd.Stdin = strings.NewReader(md)
	out, err := cmd.Output()
	assert.NilError(t, err)
	html := string(out)
	golden.Assert(t, html, "diff-security.html.golden")
	tables := regexp.MustCompile(`(?s)<table>.*?</table>`).FindAllString(html, -1)
	assert.Equal(t, len(tables), 4, "statement, managed policy, security group and findings tables; got:\n%s", html)
	rows := 0
	for _, tb := range tables {
		head := len(regexp.MustCompile(`<th[ >]`).FindAllString(tb, -1))
		for _, tr := range regexp.MustCompile(`(?s)<tbody>.*</tbody>`).FindAllString(tb, -1) {
			for _, row := range strings.Split(tr, "<tr>")[1:] {
				rows++
				assert.Equal(t, len(regexp.MustCompile(`<td[ >]`).FindAllString(row, -1)), head, "a row has another number of cells than its header: %s", row)
			}
		}
	}
	assert.Equal(t, rows, 11)
	assert.Assert(t, !strings.Contains(html, "<p>|"), "a table did not render: %s", html)
}

func TestSecuritySectionOnTheLadder(t *testing.T) {
	d := securityDiff(t)
	for _, tt := range []struct {
		level      int
		want, lack []string
	}{
		{levelPaths, []string{"**IAM statement changes**", "| ± |"}, nil},
		{levelResources, []string{"- ⚠️ **broadening**", "Allow sts:AssumeRole to AWS:arn:aws:iam::999988887777:root"}, []string{"| ± |"}},
		{levelTotals, []string{"⚠️ **7 broadening** of 11 security changes"}, []string{"| ± |", "- ⚠️"}},
	} {
		w := NewWriter(Unlimited)
		_, render, _ := diffRenderer(report(d), Unlimited)
		render(w, tt.level)
		got := w.String()
		for _, s := range tt.want {
			assert.Assert(t, strings.Contains(got, s), "level %d lacks %q:\n%s", tt.level, s, got)
		}
		for _, s := range tt.lack {
			assert.Assert(t, !strings.Contains(got, s), "level %d has %q:\n%s", tt.level, s, got)
		}
	}
}

// Thousands of rules fit the comment: the tables give way to the
// broadening rows, then to the counts, never to nothing.
func TestSecuritySectionFitsTheComment(t *testing.T) {
	var cs []security.Change
	for i := range 3000 {
		cs = append(cs, security.Change{Stack: "App", Region: "us-east-1", LogicalID: "Sg" + strconv.Itoa(i), ResourceType: "AWS::EC2::SecurityGroup",
			Property: "SecurityGroupIngress", Op: security.OpAdd, Kind: security.KindRule, Status: security.Broadening,
			Rule: &security.Rule{Direction: "ingress", Group: "${Sg" + strconv.Itoa(i) + "}", Protocol: "tcp", FromPort: "22", ToPort: "22", Peer: "0.0.0.0/0", PeerKind: "cidr"}})
	}
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Security: cs}}}
	got := DiffMarkdown(report(d), CommentBudget)
	assert.Assert(t, utf8.RuneCountInString(got) <= CommentBudget.MaxChars)
	assert.Assert(t, strings.Contains(got, "⚠️ **3000 broadening** of 3000 security changes"))
	assert.Assert(t, strings.Contains(got, "- ⚠️ **broadening**"), "the broadening rows are listed")
	assert.Assert(t, strings.Contains(got, "… and 2980 more"), "and the rest counted")
}

// TestSecuritySectionEdgeRows pins the cells of the rows the CDK shapes
// above do not make: an element that could not be read, a rule written as
// is, a removal with only a finding, two findings, SSO and Not* fields, at
// full fidelity, with short cells and as the broadening list.
func TestSecuritySectionEdgeRows(t *testing.T) {
	row := func(id string, op security.Op, kind security.Kind, st security.Status) security.Change {
		return security.Change{Stack: "App", Region: "us-east-1", LogicalID: id, ResourceType: "AWS::IAM::Policy", Property: "PolicyDocument", Op: op, Kind: kind, Status: st}
	}
	unread := row("Hidden", security.OpAdd, security.KindStatement, security.Unknown)
	unread.Item, unread.Note = "PolicyDocument", "a value redaction hides"
	unreadRule := row("HiddenSg", security.OpAdd, security.KindRule, security.Unknown)
	unreadRule.Note = "the rule is an Fn::If"
	rawRule := row("RawSg", security.OpAdd, security.KindRule, security.Unknown)
	rawRule.Rule = &security.Rule{Direction: "ingress", Group: "sg-1|2", Raw: `{"Fn::If":["C",{"CidrIp":"0.0.0.0/0"},{}]}`}
	boundary := row("Role", security.OpRemove, security.KindFinding, security.Removed)
	boundary.Item, boundary.Findings = "PermissionsBoundary", []security.Finding{security.FindingBoundaryRemoved}
	two := row("Trust", security.OpAdd, security.KindStatement, security.Broadening)
	two.Findings = []security.Finding{security.FindingWildcardPrincipal, security.FindingCrossAccountTrust}
	two.Statement = &security.Statement{Effect: "Allow", Actions: []string{"s3:*"}, NotAction: true, Resources: []string{"arn:aws:s3:::" + strings.Repeat("b", 120)},
		NotResource: true, Principals: []string{"*"}, NotPrincipal: true, Condition: `{"Bool":{"aws:SecureTransport":"false"}}`}
	two.Note = "trusts account 999988887777"
	sso := row("Assignment", security.OpAdd, security.KindSSO, security.Broadening)
	sso.Item = "permission set AdministratorAccess to group @admins"
	mp := row("Managed", security.OpAdd, security.KindManagedPolicy, security.Unresolved)
	mp.ManagedPolicy = "${Token[TOKEN.123]}"
	cs := []security.Change{unread, unreadRule, rawRule, boundary, two, sso, mp}
	security.Sort(cs)
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Security: cs}}}
	var got strings.Builder
	for _, level := range []int{levelFull, levelShortValues, levelResources} {
		w := NewWriter(Unlimited)
		_, render, _ := diffRenderer(report(d), Unlimited)
		render(w, level)
		got.WriteString("==== level " + strconv.Itoa(level) + "\n" + w.String())
	}
	golden.Assert(t, got.String(), "diff-security-edges.golden")

	// A review written in layout 2 is rendered again as it was written:
	// there an unresolved row was no broadening, and said nothing more.
	old := report(d)
	old.Layout = Layout2
	w := NewWriter(Unlimited)
	_, render, _ := diffRenderer(old, Unlimited)
	render(w, levelFull)
	assert.Assert(t, is.Contains(w.String(), "5 broadening** of 7 security changes: they widen who can do what"))
	assert.Assert(t, is.Contains(w.String(), "| + | unresolved | <code>Managed</code>"))
}
