package security

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTableFromServiceSpec(t *testing.T) {
	for _, typ := range []string{"AWS::IAM::Role", "AWS::S3::BucketPolicy", "AWS::Lambda::Permission", "AWS::EC2::SecurityGroupIngress",
		"AWS::EC2::SecurityGroup", "AWS::KMS::Key", "AWS::SSO::Assignment", "AWS::SQS::QueuePolicy", "AWS::EC2::VPCEndpoint"} {
		if !Scrutinized(typ) {
			t.Errorf("%s is not scrutinized; the service spec database says it is", typ)
		}
	}
	for _, typ := range []string{"AWS::SQS::Queue.nothing", "AWS::SNS::Topic2", "AWS::Lambda::Function"} {
		if Scrutinized(typ) {
			t.Errorf("%s is scrutinized; it should not be", typ)
		}
	}
	if got := scrutinized().Types["AWS::S3::BucketPolicy"].Properties["PolicyDocument"]; got != propPolicyDocument {
		t.Errorf("BucketPolicy's PolicyDocument is %q, want the policy document", got)
	}
	if _, ok := scrutinized().Types["AWS::SecretsManager::ResourcePolicy"].Properties["BlockPublicPolicy"]; ok {
		t.Error("a boolean named *Policy* is read as a policy document")
	}
}

// TestRealCDKShapes reads templates aws-cdk-lib synthesized (testdata/cdk-app.js):
// what each construct's change puts in the table.
func TestRealCDKShapes(t *testing.T) {
	const bucketArn = "${Bucket83908E77.Arn}"
	tests := []struct {
		name string
		r    Resource
		want []row
	}{
		{"Role created: its trust and managed policy", created(t, "V1", "Role1ABCC5F0"), []row{
			{OpAdd, KindStatement, "Allow sts:AssumeRole to Service:lambda.amazonaws.com", Broadening, nil},
			{OpAdd, KindManagedPolicy, "managed policy arn:${AWS::Partition}:iam::aws:policy/ReadOnlyAccess", Broadening, nil},
		}},
		{"Role updated: trust to another account, AdministratorAccess", updated(t, "Role1ABCC5F0"), []row{
			{OpRemove, KindStatement, "Allow sts:AssumeRole to Service:lambda.amazonaws.com", Removed, nil},
			{OpAdd, KindStatement, "Allow sts:AssumeRole to AWS:arn:${AWS::Partition}:iam::999988887777:root", Broadening, []Finding{FindingCrossAccountTrust}},
			{OpRemove, KindManagedPolicy, "managed policy arn:${AWS::Partition}:iam::aws:policy/ReadOnlyAccess", Removed, nil},
			{OpAdd, KindManagedPolicy, "managed policy arn:${AWS::Partition}:iam::aws:policy/AdministratorAccess", Broadening, nil},
		}},
		{"Role.addToPolicy: one action dropped is narrowed (CDK: broadening)", updated(t, "RoleDefaultPolicy5FFB7DAB"), []row{
			{OpRemove, KindStatement, "Allow s3:GetObject, s3:PutObject on arn:aws:s3:::data-bucket/*", Removed, nil},
			{OpAdd, KindStatement, "Allow s3:GetObject on arn:aws:s3:::data-bucket/*", Narrowed, nil},
		}},
		{"Bucket.grantRead's BucketPolicy created", created(t, "V1", "BucketPolicyE9A3008A"), []row{
			{OpAdd, KindStatement, `Deny s3:* on ` + bucketArn + `, ` + bucketArn + `/* to AWS:* when {"Bool":{"aws:SecureTransport":"false"}}`, Narrowed, nil},
			{OpAdd, KindStatement, "Allow s3:GetBucket*, s3:GetObject*, s3:List* on " + bucketArn + ", " + bucketArn + "/* to AWS:arn:${AWS::Partition}:iam::111122223333:root", Broadening, nil},
		}},
		{"SecurityGroup.addIngressRule 10.0.0.0/8 -> 10.0.0.0/16 is narrowed (CDK: broadening)", updated(t, "SgD4954771"), []row{
			{OpRemove, KindRule, "${SgD4954771} ingress tcp:443 from 10.0.0.0/8", Removed, nil},
			{OpAdd, KindRule, "${SgD4954771} ingress tcp:443 from 10.0.0.0/16", Narrowed, nil},
		}},
		{"SecurityGroup.addIngressRule from another group: its own resource", created(t, "V1", "SgfromV1OtherSgC9AA1D5A5432B0FE4B7C"), []row{
			{OpAdd, KindRule, "${SgD4954771.GroupId} ingress tcp:5432 from ${OtherSg9BE4263A.GroupId}", Broadening, nil},
		}},
		{"SecurityGroup created: its default egress", created(t, "V1", "OtherSg9BE4263A"), []row{
			{OpAdd, KindRule, "${OtherSg9BE4263A} egress all to 0.0.0.0/0", Broadening, nil},
		}},
		{"Function.addPermission: a statement on the function's policy", created(t, "V1", "FnInvokeECF98ABE"), []row{
			{OpAdd, KindStatement, `Allow lambda:InvokeFunction on ${Fn9270CBC0.Arn} to Service:s3.amazonaws.com when {"ArnLike":{"AWS:SourceArn":"` + bucketArn + `"}}`, Broadening, nil},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rows(ResourceChanges(tt.r))); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWhereCDKIsWrong covers the four places this table disagrees with
// cdk diff, and the rules around them.
func TestWhereCDKIsWrong(t *testing.T) {
	policy := func(stmts ...string) string {
		return `{"Version":"2012-10-17","Statement":[` + strings.Join(stmts, ",") + `]}`
	}
	pol := func(id, oldDoc, newDoc string) Resource {
		o, n := props(), props()
		if oldDoc != "" {
			o = props("PolicyDocument", oldDoc)
		}
		if newDoc != "" {
			n = props("PolicyDocument", newDoc)
		}
		return update(id, "AWS::IAM::Policy", o, n)
	}
	const getObj = `{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}`
	ingress := func(group, cidr string) map[string]json.RawMessage {
		return props("GroupId", group, "IpProtocol", `"tcp"`, "FromPort", "22", "ToPort", "22", "CidrIp", `"`+cidr+`"`)
	}
	tests := []struct {
		name string
		r    Resource
		want []row
	}{
		{"Allow + NotAction is broadening (CDK: not)", pol("P", policy(getObj), policy(getObj, `{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}`)), []row{
			{OpAdd, KindStatement, "Allow NotAction iam:* on *", Broadening, nil},
		}},
		{"Allow + NotResource is broadening", pol("P", policy(getObj), policy(`{"Effect":"Allow","Action":"s3:GetObject","NotResource":"arn:aws:s3:::secret/*"}`)), []row{
			{OpRemove, KindStatement, "Allow s3:GetObject on arn:aws:s3:::b/*", Removed, nil},
			{OpAdd, KindStatement, "Allow s3:GetObject on NotResource arn:aws:s3:::secret/*", Broadening, nil},
		}},
		{"an Fn::If statement is unknown (CDK: not broadening)", pol("P", policy(getObj), policy(getObj, `{"Fn::If":["IsProd",{"Effect":"Allow","Action":"*","Resource":"*"},{"Ref":"AWS::NoValue"}]}`)), []row{
			{OpAdd, KindStatement, `unreadable statement {"Fn::If":["IsProd",{"Action":"*","Effect":"Allow","Resource":"*"},{"Ref":"AWS::NoValue"}]}`, Unknown, nil},
		}},
		{"moving a rule to another group is broadening (CDK: nothing)", update("In", "AWS::EC2::SecurityGroupIngress", ingress(`"sg-aaa"`, "0.0.0.0/0"), ingress(`"sg-bbb"`, "0.0.0.0/0")), []row{
			{OpRemove, KindRule, "sg-aaa ingress tcp:22 from 0.0.0.0/0", Removed, []Finding{FindingOpenIngress}},
			{OpAdd, KindRule, "sg-bbb ingress tcp:22 from 0.0.0.0/0", Broadening, []Finding{FindingOpenIngress}},
		}},
		{"a wider CIDR is broadening", update("In", "AWS::EC2::SecurityGroupIngress", ingress(`"sg-aaa"`, "10.0.0.0/16"), ingress(`"sg-aaa"`, "10.0.0.0/8")), []row{
			{OpRemove, KindRule, "sg-aaa ingress tcp:22 from 10.0.0.0/16", Removed, nil},
			{OpAdd, KindRule, "sg-aaa ingress tcp:22 from 10.0.0.0/8", Broadening, nil},
		}},
		{"one action dropped, wildcard kept: narrowed", pol("P", policy(`{"Effect":"Allow","Action":["s3:Get*","s3:Put*"],"Resource":"*"}`), policy(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}`)), []row{
			{OpRemove, KindStatement, "Allow s3:Get*, s3:Put* on *", Removed, nil},
			{OpAdd, KindStatement, "Allow s3:GetObject on *", Narrowed, nil},
		}},
		{"a condition dropped is broadening", pol("P", policy(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}`), policy(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}`)), []row{
			{OpRemove, KindStatement, `Allow s3:GetObject on * when {"Bool":{"aws:SecureTransport":"true"}}`, Removed, nil},
			{OpAdd, KindStatement, "Allow s3:GetObject on *", Broadening, nil},
		}},
		{"a Deny removed is broadening", pol("P", policy(getObj, `{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}`), policy(getObj)), []row{
			{OpRemove, KindStatement, "Deny s3:DeleteObject on *", Broadening, nil},
		}},
		{"a Deny widened covers the old one", pol("P", policy(`{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}`), policy(`{"Effect":"Deny","Action":"s3:Delete*","Resource":"*"}`)), []row{
			{OpRemove, KindStatement, "Deny s3:DeleteObject on *", Removed, nil},
			{OpAdd, KindStatement, "Deny s3:Delete* on *", Narrowed, nil},
		}},
		{"a value cdkd did not resolve is unresolved, not broadening", pol("P",
			policy(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::bucket-123/*"}`),
			policy(`{"Effect":"Allow","Action":"s3:GetObject","Resource":{"Fn::Join":["",[{"Fn::GetAtt":["Bucket","Arn"]},"/*"]]}}`)), []row{
			{OpRemove, KindStatement, "Allow s3:GetObject on arn:aws:s3:::bucket-123/*", Removed, nil},
			{OpAdd, KindStatement, "Allow s3:GetObject on ${Bucket.Arn}/*", Unresolved, nil},
		}},
		{"a CidrIp that becomes Fn::GetAtt of a new parameter is unresolved, which counts as broadening", update("In", "AWS::EC2::SecurityGroupIngress",
			ingress(`"sg-aaa"`, "10.0.0.0/8"), props("GroupId", `"sg-aaa"`, "IpProtocol", `"tcp"`, "FromPort", "22", "ToPort", "22", "CidrIp", `{"Fn::GetAtt":["Cidr","Value"]}`)), []row{
			{OpRemove, KindRule, "sg-aaa ingress tcp:22 from 10.0.0.0/8", Removed, nil},
			{OpAdd, KindRule, "sg-aaa ingress tcp:22 from ${Cidr.Value}", Unresolved, nil},
		}},
		{"a bucket policy principal that becomes a reference is unresolved", update("BP", "AWS::S3::BucketPolicy",
			props("PolicyDocument", policy(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Principal":{"AWS":"arn:aws:iam::111122223333:root"}}`)),
			props("PolicyDocument", policy(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Principal":{"AWS":{"Ref":"Who"}}}`))), []row{
			{OpRemove, KindStatement, "Allow s3:GetObject on arn:aws:s3:::b/* to AWS:arn:aws:iam::111122223333:root", Removed, nil},
			{OpAdd, KindStatement, "Allow s3:GetObject on arn:aws:s3:::b/* to AWS:${Who}", Unresolved, nil},
		}},
		{"a value redaction hid stays hidden and is unknown", pol("P", policy(getObj), `"***"`), []row{
			{OpRemove, KindStatement, "Allow s3:GetObject on arn:aws:s3:::b/*", Removed, nil},
			{OpAdd, KindStatement, `unreadable statement "***"`, Unknown, nil},
		}},
		{"a redrive policy is no policy document", update("Q", "AWS::SQS::Queue", props("RedriveAllowPolicy", `{"redrivePermission":"denyAll"}`), props("RedriveAllowPolicy", `{"redrivePermission":"allowAll"}`)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rows(ResourceChanges(tt.r))); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindings(t *testing.T) {
	tests := []struct {
		name string
		r    Resource
		want []row
	}{
		{"wildcard principal on a bucket policy", Resource{Stack: "App", LogicalID: "BP", Type: "AWS::S3::BucketPolicy",
			New: props("PolicyDocument", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`)}, []row{
			{OpAdd, KindStatement, "Allow s3:GetObject on arn:aws:s3:::b/* to *", Broadening, []Finding{FindingWildcardPrincipal}},
		}},
		{"wildcard principal on a Lambda permission", Resource{Stack: "App", LogicalID: "P", Type: "AWS::Lambda::Permission",
			New: props("Action", `"lambda:InvokeFunction"`, "FunctionName", `"fn"`, "Principal", `"*"`)}, []row{
			{OpAdd, KindStatement, "Allow lambda:InvokeFunction on fn to *", Broadening, []Finding{FindingWildcardPrincipal}},
		}},
		{"no wildcard finding on an identity policy", Resource{Stack: "App", LogicalID: "P", Type: "AWS::IAM::Policy",
			New: props("PolicyDocument", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)}, []row{
			{OpAdd, KindStatement, "Allow * on *", Broadening, nil},
		}},
		{"::/0 ingress inline", update("Sg", "AWS::EC2::SecurityGroup", props(),
			props("SecurityGroupIngress", `[{"CidrIpv6":"::/0","IpProtocol":"tcp","FromPort":443,"ToPort":443}]`)), []row{
			{OpAdd, KindRule, "${Sg} ingress tcp:443 from ::/0", Broadening, []Finding{FindingOpenIngress}},
		}},
		{"an SSO assignment created is broadening", Resource{Stack: "App", LogicalID: "A", Type: "AWS::SSO::Assignment",
			New: props("InstanceArn", `"arn:aws:sso:::instance/i"`, "PermissionSetArn", `{"Fn::GetAtt":["PS","PermissionSetArn"]}`, "PrincipalId", `"u-1"`, "PrincipalType", `"USER"`, "TargetId", `"111122223333"`, "TargetType", `"AWS_ACCOUNT"`)}, []row{
			{OpAdd, KindSSO, `{"InstanceArn":"arn:aws:sso:::instance/i","PermissionSetArn":"${PS.PermissionSetArn}","PrincipalId":"u-1","PrincipalType":"USER","TargetId":"111122223333","TargetType":"AWS_ACCOUNT"}`, Broadening, nil},
		}},
		{"an SSO permission set created: the item and its managed policy", Resource{Stack: "App", LogicalID: "PS", Type: "AWS::SSO::PermissionSet",
			New: props("InstanceArn", `"arn:aws:sso:::instance/i"`, "Name", `"Admins"`, "ManagedPolicies", `["arn:aws:iam::aws:policy/AdministratorAccess"]`)}, []row{
			{OpAdd, KindSSO, `{"InstanceArn":"arn:aws:sso:::instance/i","Name":"Admins"}`, Broadening, nil},
			{OpAdd, KindManagedPolicy, "managed policy arn:aws:iam::aws:policy/AdministratorAccess", Broadening, nil},
		}},
		{"trust to the stack's own account is no finding", Resource{Stack: "App", Account: "123456789012", LogicalID: "R", Type: "AWS::IAM::Role",
			New: props("AssumeRolePolicyDocument", `{"Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Principal":{"AWS":"arn:aws:iam::123456789012:root"}}]}`)}, []row{
			{OpAdd, KindStatement, "Allow sts:AssumeRole to AWS:arn:aws:iam::123456789012:root", Broadening, nil},
		}},
		{"permissions boundary removed", update("R", "AWS::IAM::Role", props("PermissionsBoundary", `"arn:aws:iam::123456789012:policy/b"`), props()), []row{
			{OpAdd, KindFinding, "permissions boundary removed: was arn:aws:iam::123456789012:policy/b", Broadening, []Finding{FindingBoundaryRemoved}},
		}},
		{"permissions boundary changed", update("R", "AWS::IAM::Role", props("PermissionsBoundary", `"arn:aws:iam::1:policy/a"`), props("PermissionsBoundary", `"arn:aws:iam::1:policy/b"`)), []row{
			{OpAdd, KindFinding, "permissions boundary changed: arn:aws:iam::1:policy/a → arn:aws:iam::1:policy/b", Broadening, []Finding{FindingBoundaryChanged}},
		}},
		{"permissions boundary added is no finding", update("R", "AWS::IAM::Role", props(), props("PermissionsBoundary", `"arn:aws:iam::1:policy/b"`)), nil},
		{"public access block loosened", update("B", "AWS::S3::Bucket",
			props("PublicAccessBlockConfiguration", `{"BlockPublicAcls":true,"BlockPublicPolicy":true,"IgnorePublicAcls":true,"RestrictPublicBuckets":true}`),
			props("PublicAccessBlockConfiguration", `{"BlockPublicAcls":true,"BlockPublicPolicy":false,"IgnorePublicAcls":true}`)), []row{
			{OpAdd, KindFinding, "S3 public access block loosened: BlockPublicPolicy: true → false, RestrictPublicBuckets: true → not set", Broadening, []Finding{FindingPublicAccessLoosened}},
		}},
		{"public access block tightened is no finding", update("B", "AWS::S3::Bucket", props(), props("PublicAccessBlockConfiguration", `{"BlockPublicAcls":true}`)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rows(ResourceChanges(tt.r))); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeletedPolicyLosesItsDeny(t *testing.T) {
	got := rows(ResourceChanges(Resource{Stack: "App", LogicalID: "BP", Type: "AWS::S3::BucketPolicy",
		Old: props("PolicyDocument", `{"Statement":[{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"s3:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`)}))
	want := []row{{OpRemove, KindStatement, `Deny s3:* on * to AWS:* when {"Bool":{"aws:SecureTransport":"false"}}`, Broadening, nil}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a deleted bucket policy's enforceSSL Deny (-want +got):\n%s", diff)
	}
	if !NeedsOldValues("AWS::S3::BucketPolicy") || NeedsOldValues("AWS::EC2::SecurityGroup") {
		t.Error("only a policy resource's deletion needs its state read")
	}
}

func TestUnknownSides(t *testing.T) {
	del := ResourceChanges(Resource{Stack: "App", LogicalID: "BP", Type: "AWS::S3::BucketPolicy", OldUnknown: "its state could not be read"})
	if len(del) != 1 || del[0].Status != Unknown || del[0].Op != OpRemove {
		t.Errorf("a deleted bucket policy without state: %+v, want one unknown removal (a Deny may go)", del)
	}
	if got := ResourceChanges(Resource{Stack: "App", LogicalID: "Sg", Type: "AWS::EC2::SecurityGroup", OldUnknown: "no state"}); len(got) != 0 {
		t.Errorf("a deleted security group without state: %+v, want nothing (removing rules never broadens)", got)
	}
	if got := ResourceChanges(Resource{Stack: "App", LogicalID: "Q", Type: "AWS::SQS::Queue", NewUnknown: "no cloud assembly"}); len(got) != 0 {
		t.Errorf("a created queue without its properties: %+v, want nothing (a queue grants nothing by being created)", got)
	}
	cr := ResourceChanges(Resource{Stack: "App", LogicalID: "In", Type: "AWS::EC2::SecurityGroupIngress", NewUnknown: "no cloud assembly"})
	if len(cr) != 1 || !cr[0].Broadening() || cr[0].Kind != KindRule {
		t.Errorf("a created rule without its properties: %+v, want one unknown rule", cr)
	}
}

// A change whose value redaction hid on a side cannot be compared: both
// sides read "***", yet something changed.
func TestHiddenValueIsUnknown(t *testing.T) {
	r := update("Sg", "AWS::EC2::SecurityGroup", props(), props())
	r.Hidden = []string{"SecurityGroupIngress", "GroupDescription"}
	got := rows(ResourceChanges(r))
	want := []row{{OpAdd, KindRule, "value hidden (***)", Unknown, nil}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestGlobIsContainment(t *testing.T) {
	for _, c := range []struct {
		p, v string
		want bool
	}{
		{"s3:Get*", "s3:GetObject", true},
		{"s3:Get*", "s3:GetObject*", true},
		{"s3:GetObject", "s3:Get*", false},
		{"s3:?etObject", "s3:GetObject", true},
		{"*", "anything", true},
		{"arn:aws:s3:::b/*", "arn:aws:s3:::b", false},
	} {
		if got := glob(c.p, c.v); got != c.want {
			t.Errorf("glob(%q, %q) = %v, want %v", c.p, c.v, got, c.want)
		}
	}
	if !slices.Contains([]tri{yes}, matchValue("AWS:*", "AWS:arn:aws:iam::1:root", false)) {
		t.Error(`"AWS:*" does not cover an account principal`)
	}
}

// without is a multiset difference in cs's order, whether the other side
// is small (compared in place) or large (counted in a map).
func TestWithoutIsAMultisetDifference(t *testing.T) {
	row := func(item string) Change { return Change{Kind: KindSSO, Item: item} }
	items := func(cs []Change) (out []string) {
		for _, c := range cs {
			out = append(out, c.Item)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		cs, other []string
		want      []string
	}{
		{"small", []string{"a", "b", "a", "c", "a"}, []string{"a", "c", "a", "d"}, []string{"b", "a"}},
		{"large", []string{"a", "b", "a", "c", "a"}, []string{"a", "c", "a", "d", "e", "f", "g", "h", "i"}, []string{"b", "a"}},
		{"none", []string{"a"}, nil, []string{"a"}},
		{"all", []string{"a", "a"}, []string{"a", "a", "a"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs, other []Change
			for _, s := range tc.cs {
				cs = append(cs, row(s))
			}
			for _, s := range tc.other {
				other = append(other, row(s))
			}
			if diff := cmp.Diff(tc.want, items(without(cs, keys(cs), keys(other)))); diff != "" {
				t.Errorf("without (-want +got):\n%s", diff)
			}
		})
	}
}
