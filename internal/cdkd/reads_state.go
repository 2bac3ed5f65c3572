package cdkd

import "strings"

// ProvidersVersion is the cdkd release whose provider list readsCurrentState
// copies. A newer cdkd may read more types; until the list is checked
// against it, such a type reported as unsupported shows as "drift unknown",
// not as possibly deleted (the cautious reading: no claim of deletion).
const ProvidersVersion = "0.284"

// readsCurrentState lists the resource types whose cdkd SDK provider reads
// current state itself (cdkd ProvidersVersion; the seeds' list for cdkd
// drift). Such a type reported as unsupported was not read as expected:
// most likely the resource was deleted out of band, which cdkd 0.284
// reports this way.
var readsCurrentState = typeSet(`
AWS::Lambda::Function AWS::S3::Bucket AWS::DynamoDB::Table AWS::IAM::Role AWS::SQS::Queue
AWS::SNS::Topic AWS::Logs::LogGroup
AWS::CloudFront::CloudFrontOriginAccessIdentity AWS::Events::EventBus AWS::Events::Rule
AWS::SSM::Parameter AWS::SecretsManager::Secret AWS::ECR::Repository
AWS::StepFunctions::StateMachine AWS::ECS::Cluster AWS::ECS::Service AWS::ECS::TaskDefinition
AWS::RDS::DBInstance AWS::RDS::DBCluster AWS::RDS::DBSubnetGroup AWS::KMS::Key AWS::KMS::Alias
AWS::ApiGateway::Account AWS::ApiGateway::Method AWS::ApiGatewayV2::Api AWS::Cognito::UserPool
AWS::AppSync::GraphQLApi AWS::AppSync::DataSource AWS::AppSync::Resolver AWS::AppSync::ApiKey
AWS::EFS::FileSystem AWS::EFS::AccessPoint AWS::EFS::MountTarget AWS::ElastiCache::CacheCluster
AWS::ElastiCache::SubnetGroup AWS::ElasticLoadBalancingV2::LoadBalancer
AWS::ElasticLoadBalancingV2::TargetGroup AWS::ElasticLoadBalancingV2::Listener
AWS::Route53::HostedZone AWS::Route53::RecordSet AWS::WAFv2::WebACL
AWS::KinesisFirehose::DeliveryStream AWS::Kinesis::Stream AWS::Glue::Database AWS::Glue::Table
AWS::CloudTrail::Trail AWS::CloudWatch::Alarm AWS::CodeBuild::Project
AWS::ServiceDiscovery::PrivateDnsNamespace AWS::ServiceDiscovery::Service AWS::SNS::Subscription
AWS::IAM::Policy AWS::Lambda::Permission AWS::ApiGateway::Authorizer AWS::ApiGateway::Resource
AWS::ApiGateway::Deployment AWS::ApiGateway::Stage AWS::ApiGatewayV2::Stage
AWS::ApiGatewayV2::Integration AWS::ApiGatewayV2::Route AWS::ApiGatewayV2::Authorizer
AWS::ServiceDiscovery::HttpNamespace AWS::ServiceDiscovery::PublicDnsNamespace
AWS::CloudFront::OriginAccessControl`)

func typeSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(list) {
		m[t] = true
	}
	return m
}

// ReadsCurrentState reports whether cdkd reads the type's current state with
// its own SDK provider, so "unsupported" for it means "not read as expected".
// It is a model.ReadsState.
func ReadsCurrentState(resourceType string) bool { return readsCurrentState[resourceType] }
