package security

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An endpoint published without authentication is a broadening row,
// created so or turned so; a CORS preflight and an endpoint that was
// public already are not.
func TestPublicEndpoints(t *testing.T) {
	public := func(what string) []row {
		return []row{{OpAdd, KindFinding, "endpoint published without authentication: " + what, Broadening, []Finding{FindingPublicEndpoint}}}
	}
	created := func(typ string, kv ...string) Resource {
		return Resource{Stack: "App", LogicalID: "E", Type: typ, New: props(kv...)}
	}
	tests := []struct {
		name string
		r    Resource
		want []row
	}{
		{"a function URL created with AuthType NONE", created("AWS::Lambda::Url", "AuthType", `"NONE"`, "TargetFunctionArn", `"arn:aws:lambda:us-east-1:1:function:f"`),
			public("AuthType: NONE (created)")},
		{"a function URL flipped from AWS_IAM to NONE", update("E", "AWS::Lambda::Url", props("AuthType", `"AWS_IAM"`), props("AuthType", `"NONE"`)),
			public("AuthType: AWS_IAM → NONE")},
		{"a function URL created with AWS_IAM", created("AWS::Lambda::Url", "AuthType", `"AWS_IAM"`), nil},
		{"a function URL turned to AWS_IAM", update("E", "AWS::Lambda::Url", props("AuthType", `"NONE"`), props("AuthType", `"AWS_IAM"`)), nil},
		{"a function URL whose AuthType is known only at deploy time", created("AWS::Lambda::Url", "AuthType", `{"Fn::If":["Public","NONE","AWS_IAM"]}`),
			[]row{{OpAdd, KindFinding, `endpoint published without authentication: AuthType: ${{"Fn::If":["Public","NONE","AWS_IAM"]}} (created)`, Unknown, []Finding{FindingPublicEndpoint}}}},
		{"a REST method created without authorization", created("AWS::ApiGateway::Method", "HttpMethod", `"GET"`, "AuthorizationType", `"NONE"`),
			public("AuthorizationType: NONE (created)")},
		{"a REST method created with no AuthorizationType (CloudFormation's NONE)", created("AWS::ApiGateway::Method", "HttpMethod", `"POST"`),
			public("AuthorizationType: NONE (created)")},
		{"a REST method behind IAM", created("AWS::ApiGateway::Method", "HttpMethod", `"GET"`, "AuthorizationType", `"AWS_IAM"`), nil},
		{"a CORS preflight method is not counted", created("AWS::ApiGateway::Method", "HttpMethod", `"OPTIONS"`, "AuthorizationType", `"NONE"`), nil},
		{"a REST method's authorizer removed", update("E", "AWS::ApiGateway::Method", props("AuthorizationType", `"COGNITO_USER_POOLS"`), props("AuthorizationType", `"NONE"`)),
			public("AuthorizationType: COGNITO_USER_POOLS → NONE")},
		{"a REST method's AuthorizationType removed", update("E", "AWS::ApiGateway::Method", props("AuthorizationType", `"CUSTOM"`), props()),
			public("AuthorizationType: CUSTOM → NONE")},
		{"an HTTP API route created without authorization", created("AWS::ApiGatewayV2::Route", "RouteKey", `"GET /items"`),
			public("AuthorizationType: NONE (created)")},
		{"an HTTP API preflight route is not counted", created("AWS::ApiGatewayV2::Route", "RouteKey", `"OPTIONS /items"`), nil},
		{"a route with a JWT authorizer", created("AWS::ApiGatewayV2::Route", "RouteKey", `"GET /items"`, "AuthorizationType", `"JWT"`), nil},
		{"a public method updated otherwise is no new publication", update("E", "AWS::ApiGateway::Method", props("HttpMethod", `"GET"`), props("HttpMethod", `"POST"`)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rows(ResourceChanges(tt.r))); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}
