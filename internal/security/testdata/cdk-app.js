// Synthesized with aws-cdk-lib 2.276.0 into V1.template.json and V2.template.json
// (npm install aws-cdk-lib@2.276.0 constructs@10; CDK_OUTDIR=out node cdk-app.js;
// Metadata, CDKMetadata, Parameters and Rules stripped): real CDK shapes for the tests.
// Synthesizes the CDK shapes internal/security's tests read.
const cdk = require('aws-cdk-lib');
const { aws_iam: iam, aws_s3: s3, aws_ec2: ec2, aws_lambda: lambda } = cdk;

function build(app, name, v) {
  const stack = new cdk.Stack(app, name, { env: { account: '123456789012', region: 'us-east-1' } });
  const role = new iam.Role(stack, 'Role', {
    assumedBy: v.trust ? new iam.AccountPrincipal(v.trust) : new iam.ServicePrincipal('lambda.amazonaws.com'),
    managedPolicies: v.admin ? [iam.ManagedPolicy.fromAwsManagedPolicyName('AdministratorAccess')] : [iam.ManagedPolicy.fromAwsManagedPolicyName('ReadOnlyAccess')],
  });
  role.addToPolicy(new iam.PolicyStatement({ actions: v.actions, resources: ['arn:aws:s3:::data-bucket/*'] }));
  const bucket = new s3.Bucket(stack, 'Bucket', { enforceSSL: v.enforceSSL });
  bucket.grantRead(new iam.AccountPrincipal('111122223333'));
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', { vpcId: 'vpc-12345', availabilityZones: ['us-east-1a'] });
  const sg = new ec2.SecurityGroup(stack, 'Sg', { vpc });
  sg.addIngressRule(ec2.Peer.ipv4(v.cidr), ec2.Port.tcp(443));
  const other = new ec2.SecurityGroup(stack, 'OtherSg', { vpc });
  sg.addIngressRule(other, ec2.Port.tcp(5432));
  const fn = new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_20_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler=async()=>{}') });
  fn.addPermission('Invoke', { principal: new iam.ServicePrincipal('s3.amazonaws.com'), sourceArn: bucket.bucketArn });
}

const app = new cdk.App();
build(app, 'V1', { actions: ['s3:GetObject', 's3:PutObject'], cidr: '10.0.0.0/8', enforceSSL: true });
build(app, 'V2', { actions: ['s3:GetObject'], cidr: '10.0.0.0/16', enforceSSL: true, admin: true, trust: '999988887777' });
app.synth();
