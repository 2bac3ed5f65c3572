package awsx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
)

// SecretsManagerAPI is the part of the Secrets Manager client the resolver uses.
type SecretsManagerAPI interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// SSMAPI is the part of the SSM client the resolver uses.
type SSMAPI interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, optFns ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// Resolver reads the values behind {{resolve:...}} references, so the action
// knows which strings to redact and mask. It keeps one client per region, built on
// first use; it is safe for concurrent use.
type Resolver struct {
	// Region is used for references that name no region.
	Region string
	// NewSecretsManager and NewSSM build a client for a region. NewResolver
	// sets them from an aws.Config; tests replace them.
	NewSecretsManager func(region string) SecretsManagerAPI
	NewSSM            func(region string) SSMAPI

	mu  sync.Mutex
	sm  map[string]SecretsManagerAPI
	ssm map[string]SSMAPI
}

// NewResolver returns a Resolver whose clients share cfg (credentials,
// endpoint overrides) and differ only in region.
func NewResolver(cfg aws.Config) *Resolver {
	return &Resolver{
		Region: cfg.Region,
		NewSecretsManager: func(region string) SecretsManagerAPI {
			return secretsmanager.NewFromConfig(cfg, func(o *secretsmanager.Options) { o.Region = region })
		},
		NewSSM: func(region string) SSMAPI {
			return ssm.NewFromConfig(cfg, func(o *ssm.Options) { o.Region = region })
		},
	}
}

// Resolve returns the value of a dynamic reference and whether it is a
// secret (Secrets Manager values and SecureString parameters are; plain
// String parameters are not). A reference whose ARN names a region is read
// in that region. Errors name the reference, never the value.
func (r *Resolver) Resolve(ctx context.Context, ref dynref.Ref) (value string, secret bool, err error) {
	switch ref.Service {
	case dynref.SecretsManager:
		value, err = r.resolveSecret(ctx, ref)
		secret = true
	case dynref.SSM, dynref.SSMSecure:
		value, secret, err = r.resolveParameter(ctx, ref)
	default:
		err = fmt.Errorf("unsupported service %q", ref.Service)
	}
	if err != nil {
		return "", false, fmt.Errorf("resolve %s: %w", spelling(ref), err)
	}
	return value, secret, nil
}

// spelling is how errors name a reference: its own text, or one rebuilt
// from its fields when the caller built the Ref by hand.
func spelling(ref dynref.Ref) string {
	if ref.Raw != "" {
		return ref.Raw
	}
	id := ref.SecretID
	if id == "" {
		id = ref.Parameter
	}
	return fmt.Sprintf("{{resolve:%s:%s}}", ref.Service, id)
}

func (r *Resolver) region(ref dynref.Ref) string {
	if region := ref.Region(); region != "" {
		return region
	}
	return r.Region
}

func (r *Resolver) secretsManager(region string) SecretsManagerAPI {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sm == nil {
		r.sm = map[string]SecretsManagerAPI{}
	}
	c, ok := r.sm[region]
	if !ok {
		c = r.NewSecretsManager(region)
		r.sm[region] = c
	}
	return c
}

func (r *Resolver) ssmClient(region string) SSMAPI {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ssm == nil {
		r.ssm = map[string]SSMAPI{}
	}
	c, ok := r.ssm[region]
	if !ok {
		c = r.NewSSM(region)
		r.ssm[region] = c
	}
	return c
}

func (r *Resolver) resolveSecret(ctx context.Context, ref dynref.Ref) (string, error) {
	in := &secretsmanager.GetSecretValueInput{SecretId: aws.String(ref.SecretID)}
	if ref.VersionStage != "" {
		in.VersionStage = aws.String(ref.VersionStage)
	}
	if ref.VersionID != "" {
		in.VersionId = aws.String(ref.VersionID)
	}
	out, err := r.secretsManager(r.region(ref)).GetSecretValue(ctx, in)
	if err != nil {
		if isDenied(err) {
			return "", &AccessDeniedError{Action: "secretsmanager:GetSecretValue", Resource: ref.SecretID,
				Hint: "and kms:Decrypt on its key when it is a customer managed key", Err: err}
		}
		return "", fmt.Errorf("get secret value: %w", err)
	}
	if out.SecretString == nil {
		return "", errors.New("the secret has no SecretString (binary secrets cannot be referenced)")
	}
	if ref.JSONKey == "" {
		return *out.SecretString, nil
	}
	return jsonKey(*out.SecretString, ref.JSONKey)
}

// jsonKey extracts one key of a SecretString holding a JSON object, as
// CloudFormation does: a string as is, any other JSON value as its text.
// Errors never quote the secret.
func jsonKey(secretString, key string) (string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(secretString), &obj); err != nil || obj == nil {
		return "", fmt.Errorf("json key %q: the SecretString is not a JSON object", key)
	}
	raw, ok := obj[key]
	if !ok {
		return "", fmt.Errorf("json key %q: not found in the SecretString", key)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", fmt.Errorf("json key %q: invalid JSON value", key)
	}
	return buf.String(), nil
}

func (r *Resolver) resolveParameter(ctx context.Context, ref dynref.Ref) (string, bool, error) {
	name := ref.Parameter
	if ref.Version != "" {
		name += ":" + ref.Version
	}
	out, err := r.ssmClient(r.region(ref)).GetParameter(ctx, &ssm.GetParameterInput{
		Name:           aws.String(name),
		WithDecryption: aws.Bool(true),
	})
	if err != nil {
		if isDenied(err) {
			return "", false, &AccessDeniedError{Action: "ssm:GetParameter", Resource: ref.Parameter,
				Hint: "and kms:Decrypt on its key for a SecureString", Err: err}
		}
		return "", false, fmt.Errorf("get parameter: %w", err)
	}
	if out.Parameter == nil || out.Parameter.Value == nil {
		return "", false, errors.New("get parameter: the response has no value")
	}
	secret := ref.Service == dynref.SSMSecure || out.Parameter.Type == ssmtypes.ParameterTypeSecureString
	return *out.Parameter.Value, secret, nil
}

func isDenied(err error) bool {
	switch apiErrorCode(err) {
	case "AccessDenied", "AccessDeniedException":
		return true
	}
	return false
}
