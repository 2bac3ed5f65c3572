package security

import (
	"encoding/json"
	"strings"
)

// An endpoint published without authentication is broadening: anyone on
// the internet may call it. A Lambda function URL whose AuthType becomes
// NONE is public even when the function's public permission was deployed
// earlier (and so is no change now); an API Gateway REST method or HTTP or
// WebSocket route whose AuthorizationType becomes NONE publishes what it
// fronts. CORS preflights (an OPTIONS method, an "OPTIONS ..." route)
// carry no data and are unauthenticated by design: not counted.

// endpoint is how one type publishes: the property holding its
// authorization, whether an absent one is NONE (CloudFormation's default),
// and the property that names a preflight.
type endpoint struct {
	auth         string
	absentIsNone bool
	name         string
	preflight    func(name string) bool
}

var endpoints = map[string]endpoint{
	"AWS::Lambda::Url":         {auth: "AuthType"},
	"AWS::ApiGateway::Method":  {auth: "AuthorizationType", absentIsNone: true, name: "HttpMethod", preflight: func(m string) bool { return strings.EqualFold(m, "OPTIONS") }},
	"AWS::ApiGatewayV2::Route": {auth: "AuthorizationType", absentIsNone: true, name: "RouteKey", preflight: func(k string) bool { return strings.HasPrefix(strings.ToUpper(k), "OPTIONS ") }},
}

// publicEndpoint is the finding of an endpoint created without
// authentication, or whose authentication is turned off; false when it is
// none. An authorization not known before the deploy (an intrinsic) is an
// unknown row, which counts as broadening.
func publicEndpoint(r Resource) (Change, bool) {
	e, ok := endpoints[r.Type]
	if !ok || r.New == nil {
		return Change{}, false
	}
	created := r.Old == nil
	nRaw, nSet := r.New[e.auth]
	oRaw, oSet := r.Old[e.auth]
	switch {
	case created && !nSet && (!e.absentIsNone || r.New[e.name] == nil):
		return Change{}, false // nothing read says what it publishes
	case !created && !nSet && !(oSet && e.absentIsNone):
		return Change{}, false // its authorization did not change
	}
	auth := func(raw json.RawMessage, set bool) string {
		if !set {
			if e.absentIsNone {
				return "NONE"
			}
			return "not set"
		}
		v, err := decode(raw)
		if s, ok := v.(string); ok && err == nil {
			return s
		}
		return "${" + text(raw) + "}" // an intrinsic: known only at deploy time
	}
	n, o := auth(nRaw, nSet), auth(oRaw, oSet)
	if e.preflight != nil {
		if name, ok := r.New[e.name]; ok && e.preflight(text(name)) {
			return Change{}, false
		}
	}
	item := e.auth + ": " + n
	switch {
	case created:
		item += " (created)"
	case oSet || e.absentIsNone:
		item = e.auth + ": " + o + " → " + n
	}
	c := Change{Property: e.auth, Op: OpAdd, Kind: KindFinding, Findings: []Finding{FindingPublicEndpoint}, Item: item, Status: Broadening}
	switch {
	case symbolic(n):
		c.Status, c.Note = Unknown, "the authorization is not known before the deploy"
	case !strings.EqualFold(n, "NONE"):
		return Change{}, false
	case !created && strings.EqualFold(o, "NONE"):
		return Change{}, false // it was public already
	}
	return c, true
}
