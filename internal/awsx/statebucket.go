package awsx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/middleware"
)

// BucketSource says where the state bucket's name came from, in cdkd's
// order: the first that names one wins.
type BucketSource string

const (
	// BucketFromInput is the state-bucket input (cdkd's --state-bucket).
	BucketFromInput BucketSource = "the state-bucket input"
	// BucketFromEnv is the CDKD_STATE_BUCKET environment variable.
	BucketFromEnv BucketSource = "CDKD_STATE_BUCKET"
	// BucketFromCdkJSON is cdk.json's context.cdkd.stateBucket.
	BucketFromCdkJSON BucketSource = "cdk.json's context.cdkd.stateBucket"
	// BucketDefault is cdkd's default, cdkd-state-<account id>.
	BucketDefault BucketSource = "cdkd's default for the account"
	// BucketLegacyDefault is cdkd's legacy default,
	// cdkd-state-<account id>-<region>, which cdkd still reads.
	BucketLegacyDefault BucketSource = "cdkd's legacy default for the account and region"
)

// StateBucket is the bucket cdkd keeps its state in, and where its name
// came from.
type StateBucket struct {
	Name   string
	Source BucketSource
	// Owner is the account that must own the bucket: set when the name is
	// a default derived from the account id, which anyone can create in
	// another account first. Every S3 call to the bucket then carries it
	// as ExpectedBucketOwner (see ExpectBucketOwner), as cdkd's do, so a
	// bucket squatted by someone else is refused by S3 and never receives
	// the fingerprint key or a stored review.
	Owner string
	// Note says more about the choice: why the legacy name was chosen, or
	// that S3 refused to say whether the bucket exists.
	Note string
}

// Why is the log line that says which bucket was chosen and why.
func (b StateBucket) Why() string {
	if b.Name == "" {
		return "no state bucket"
	}
	s := fmt.Sprintf("state bucket %s, from %s", b.Name, b.Source)
	if b.Owner != "" {
		s += fmt.Sprintf(" %s; every S3 call to it expects it owned by that account", b.Owner)
	}
	if b.Note != "" {
		s += " (" + b.Note + ")"
	}
	return s
}

// NamedStateBucket returns the bucket the run names, in cdkd's order: the
// state-bucket input, CDKD_STATE_BUCKET, then cdk.json's
// context.cdkd.stateBucket in the working directory. false when none
// does: then cdkd falls back to DefaultStateBucket.
func NamedStateBucket(input string, getenv func(string) string, cdkJSON string) (StateBucket, bool) {
	if input != "" {
		return StateBucket{Name: input, Source: BucketFromInput}, true
	}
	if b := getenv("CDKD_STATE_BUCKET"); b != "" {
		return StateBucket{Name: b, Source: BucketFromEnv}, true
	}
	if b := cdkJSONStateBucket(cdkJSON); b != "" {
		return StateBucket{Name: b, Source: BucketFromCdkJSON}, true
	}
	return StateBucket{}, false
}

// cdkJSONStateBucket reads context.cdkd.stateBucket from cdk.json, if any.
func cdkJSONStateBucket(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var f struct {
		Context struct {
			Cdkd struct {
				StateBucket string `json:"stateBucket"`
			} `json:"cdkd"`
		} `json:"context"`
	}
	if json.Unmarshal(b, &f) != nil {
		return ""
	}
	return f.Context.Cdkd.StateBucket
}

// BucketProbeAPI is what finding cdkd's default bucket calls: STS for the
// account, S3 to see which of the two default names exist.
type BucketProbeAPI struct {
	STS interface {
		GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, optFns ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
	}
	S3 interface {
		HeadBucket(ctx context.Context, in *s3.HeadBucketInput, optFns ...func(*s3.Options)) (*s3.HeadBucketOutput, error)
		ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
	}
	// Region is the run's region, which cdkd's legacy default name
	// carries; "" skips the legacy name.
	Region string
}

// NewBucketProbe builds the probe's clients from cfg.
func NewBucketProbe(cfg aws.Config) BucketProbeAPI {
	return BucketProbeAPI{STS: sts.NewFromConfig(cfg), S3: NewS3(cfg), Region: cfg.Region}
}

// DefaultStateBucket finds the bucket cdkd uses when none is named, by
// cdkd's own rule (0.284's resolveStateBucketWithDefaultAndSource): the
// account from STS GetCallerIdentity; cdkd-state-<account> and the legacy
// cdkd-state-<account>-<region> probed with HeadBucket, each expecting
// that account as owner (404 is missing; 301, a bucket in another region,
// exists; 403 is taken to exist, as cdkd does: the role may lack
// s3:ListBucket, or another account owns it, and then every later call is
// refused too); the new name unless only the legacy one exists, or both do
// and only the legacy one holds state under cdkd/. An error when neither
// exists, as cdkd's own.
func DefaultStateBucket(ctx context.Context, api BucketProbeAPI) (StateBucket, error) {
	region := api.Region
	id, err := api.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return StateBucket{}, fmt.Errorf("find the account (sts:GetCallerIdentity): %w", err)
	}
	account := aws.ToString(id.Account)
	if account == "" {
		return StateBucket{}, errors.New("find the account: STS named none")
	}
	current := StateBucket{Name: "cdkd-state-" + account, Source: BucketDefault, Owner: account}
	legacy := StateBucket{Name: fmt.Sprintf("cdkd-state-%s-%s", account, region), Source: BucketLegacyDefault, Owner: account}
	currentProbe, err := probeBucket(ctx, api, current)
	if err != nil {
		return StateBucket{}, err
	}
	legacyProbe := probeMissing
	if region != "" {
		if legacyProbe, err = probeBucket(ctx, api, legacy); err != nil {
			return StateBucket{}, err
		}
	}
	switch {
	case currentProbe != probeMissing && legacyProbe != probeMissing:
		if !hasState(ctx, api, current) && hasState(ctx, api, legacy) {
			legacy.Note = fmt.Sprintf("%s exists too but holds no state; cdkd reads the legacy bucket until `cdkd state migrate` copies it", current.Name)
			return legacy.noted(legacyProbe), nil
		}
		return current.noted(currentProbe), nil
	case currentProbe != probeMissing:
		return current.noted(currentProbe), nil
	case legacyProbe != probeMissing:
		legacy.Note = fmt.Sprintf("%s does not exist; cdkd reads the legacy name until `cdkd state migrate` moves it", current.Name)
		return legacy.noted(legacyProbe), nil
	}
	if region == "" {
		return StateBucket{}, fmt.Errorf("%s does not exist (cdkd bootstrap creates it)", current.Name)
	}
	return StateBucket{}, fmt.Errorf("neither %s nor the legacy %s exists (cdkd bootstrap creates the first)", current.Name, legacy.Name)
}

type probe int

const (
	probeOK probe = iota
	probeMissing
	probeDenied
)

// noted adds to b's note that S3 refused to say whether it exists.
func (b StateBucket) noted(p probe) StateBucket {
	if p != probeDenied {
		return b
	}
	denied := "S3 refused HeadBucket on it: the role lacks s3:ListBucket, or another account owns it and every call to it is refused"
	if b.Note != "" {
		denied = b.Note + "; " + denied
	}
	b.Note = denied
	return b
}

// probeBucket is cdkd's probeBucket: HeadBucket, expecting b's owner.
func probeBucket(ctx context.Context, api BucketProbeAPI, b StateBucket) (probe, error) {
	_, err := api.S3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(b.Name), ExpectedBucketOwner: aws.String(b.Owner)})
	switch {
	case err == nil:
		return probeOK, nil
	case isNotFound(err):
		return probeMissing, nil
	case httpStatus(err) == http.StatusMovedPermanently:
		return probeOK, nil // in another region
	case httpStatus(err) == http.StatusForbidden:
		return probeDenied, nil
	}
	return 0, fmt.Errorf("see whether %s exists (s3:HeadBucket): %w", b.Name, err)
}

// hasState is cdkd's bucketHasAnyState: an object under cdkd/ (cdkd's
// fixed prefix here, whatever state-prefix says); an error counts as
// state, as cdkd counts it.
func hasState(ctx context.Context, api BucketProbeAPI, b StateBucket) bool {
	out, err := api.S3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
		Bucket: aws.String(b.Name), Prefix: aws.String(DefaultPrefix + "/"), MaxKeys: aws.Int32(1), ExpectedBucketOwner: aws.String(b.Owner),
	})
	return err != nil || aws.ToInt32(out.KeyCount) > 0
}

// ExpectBucketOwner is an S3 client option that makes every call of the
// client carry ExpectedBucketOwner: account, so that S3 refuses it unless
// that account owns the bucket. A call of a kind it does not know fails
// instead of going out unchecked. "" changes nothing.
func ExpectBucketOwner(account string) func(*s3.Options) {
	return func(o *s3.Options) {
		if account == "" {
			return
		}
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("ExpectBucketOwner",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					owner := aws.String(account)
					switch p := in.Parameters.(type) {
					case *s3.GetObjectInput:
						in.Parameters = withOwner(p, func(c *s3.GetObjectInput) { c.ExpectedBucketOwner = owner })
					case *s3.PutObjectInput:
						in.Parameters = withOwner(p, func(c *s3.PutObjectInput) { c.ExpectedBucketOwner = owner })
					case *s3.ListObjectsV2Input:
						in.Parameters = withOwner(p, func(c *s3.ListObjectsV2Input) { c.ExpectedBucketOwner = owner })
					case *s3.HeadBucketInput:
						in.Parameters = withOwner(p, func(c *s3.HeadBucketInput) { c.ExpectedBucketOwner = owner })
					default:
						return middleware.InitializeOutput{}, middleware.Metadata{}, fmt.Errorf("S3 %s: this call cannot say which account must own the bucket (ExpectedBucketOwner), so it is not made", awsmiddleware.GetOperationName(ctx))
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
}

// withOwner is a copy of the caller's input with its owner set: the
// caller's own input is left as it was.
func withOwner[T any](in *T, set func(*T)) *T {
	c := *in
	set(&c)
	return &c
}
