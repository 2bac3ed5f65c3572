package cdkd

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestReadsCurrentState(t *testing.T) {
	for _, typ := range []string{"AWS::Lambda::Function", "AWS::SQS::Queue", "AWS::SNS::Subscription", "AWS::CloudFront::OriginAccessControl", "AWS::ApiGatewayV2::Authorizer"} {
		assert.Check(t, ReadsCurrentState(typ), typ)
	}
	for _, typ := range []string{"AWS::CloudFront::Distribution", "AWS::AppSync::GraphQLSchema", "AWS::Kinesis::StreamConsumer", "Custom::Thing", ""} {
		assert.Check(t, !ReadsCurrentState(typ), typ)
	}
}
