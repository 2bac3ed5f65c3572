// Package fingerprints runs package secrets/fingerprint for one run: the
// fingerprint key (the input, or the action's own in the state bucket),
// the record of each stack's secret positions in the state bucket, the
// values at those positions today, and the hidden-value tokens of a digest. It
// reads and writes through the store it is given; package fingerprint
// stays free of I/O.
package fingerprints

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cfnschema"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secreteffect"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// Run is one run's fingerprints: the key, the records and the hidden-value
// tokens' hasher, each built on first use from what the fields name.
type Run struct {
	// On is the fingerprints input: false turns every fingerprint off,
	// the hidden-value tokens of the digest included.
	On bool
	// KeyInput is the fingerprint-key input ("": the action's own key in
	// the state bucket).
	KeyInput string
	// Prefix is the fingerprint-prefix input: where the records and the
	// key live in the bucket.
	Prefix string
	// Bucket is the state bucket ("": none known), decided on first use.
	Bucket func(ctx context.Context) string
	// BaseApp is set when the assembly diffed is a pull request's, whose
	// author must not decide the values fingerprinted.
	BaseApp bool
	// Offline says why the run makes no AWS call of its own ("": it may).
	Offline string
	// Assembly is the cloud assembly secret positions are read from (nil:
	// none); it may be found late.
	Assembly func() *assembly.Assembly
	// RefValue is what a secret reference resolved to during discovery.
	RefValue func(raw string) (string, bool)
	// Objects reaches the store of the state bucket.
	Objects func(ctx context.Context, bucket string) (fingerprint.ObjectStore, error)
	// Params are the Argon2id parameters of new fingerprints (zero:
	// fingerprint.DefaultParams).
	Params fingerprint.Params
	// Secrets learns the key, so that it is masked; RegisterMasks then
	// registers it with the runner.
	Secrets       *secrets.Set
	RegisterMasks func()
	// Info, Notice and Warn print to the step's log.
	Info, Notice, Warn func(msg string)

	once    sync.Once
	records *Records // nil: fingerprints are off
	// tokens fingerprints the hidden values into the digest's tokens
	// (tokens.go).
	tokenOnce sync.Once
	tokens    *fingerprint.Hasher
	tokenErr  error
	// key is the fingerprint key (key.go); keyWhy says why there is none.
	keyOnce sync.Once
	key     []byte
	keyWhy  string
}

// Records fingerprints a run's secret positions and reads and writes
// their record in the state bucket.
type Records struct {
	Hasher *fingerprint.Hasher
	Store  fingerprint.ObjectStore // nil when Off is set
	Bucket string
	prefix string
	// Table tells what a deploy does with a changed value (secreteffect).
	Table *cfnschema.Table
	// Off, when set, says why no record is read: every position is unknown.
	Off string
}

// Records returns the run's fingerprint machinery, or nil when
// fingerprints are off: the input says so, no state bucket is known, or
// there is no cloud assembly to find secret positions in. Without a
// fingerprint key, every position is unknown and says why (off).
func (f *Run) Records(ctx context.Context) *Records {
	f.once.Do(func() {
		bucket := f.Bucket(ctx)
		if !f.On || bucket == "" || f.Assembly() == nil {
			return
		}
		if f.BaseApp {
			// The pull request's assembly decides the values at secret
			// positions (its NoEcho defaults): none is fingerprinted.
			f.Notice("fingerprints are off for this diff: with base-app, the assembly diffed is the pull request's, and its author must not decide the values fingerprinted; a change to a hidden value shows as unknown")
			return
		}
		table, err := cfnschema.Load()
		if err != nil {
			f.Warn(fmt.Sprintf("fingerprints are off: %v", err))
			return
		}
		fp := &Records{Bucket: bucket, prefix: f.Prefix, Table: table}
		key, why := f.Key(ctx)
		if key == nil {
			fp.Off = why
			f.records = fp
			return
		}
		h, err := fingerprint.NewHasher(fingerprint.Options{Key: key, Params: f.Params})
		if err != nil {
			f.Warn(fmt.Sprintf("fingerprints are off: %v", err))
			return
		}
		fp.Hasher = h
		switch {
		case f.Offline != "":
			fp.Off = "resolve-secrets is off in a local run, so no fingerprint was read"
		default:
			store, err := f.Objects(ctx, bucket)
			if err != nil {
				fp.Off = fmt.Sprintf("the state bucket could not be reached for fingerprints: %v", err)
			}
			fp.Store = store
		}
		f.records = fp
	})
	return f.records
}

// ObjectKey is where a stack's record lives.
func (rs *Records) ObjectKey(stack, region string) string {
	return fingerprint.ObjectKey(rs.prefix, stack, region)
}

// fingerprintReadTimeout bounds reading one stack's record.
const fingerprintReadTimeout = 30 * time.Second

// Load reads a stack's record. The reason, when set, makes every position
// unknown.
func (rs *Records) Load(ctx context.Context, stack, region string) (*fingerprint.Record, string) {
	if rs.Off != "" {
		return nil, rs.Off
	}
	ctx, cancel := context.WithTimeout(ctx, fingerprintReadTimeout)
	defer cancel()
	rec, err := fingerprint.Load(ctx, rs.Store, rs.ObjectKey(stack, region))
	if err != nil {
		return nil, "the fingerprints could not be read: " + err.Error()
	}
	return rec, ""
}

// Slot is one secret position of a stack: every source that fills it
// (usually one), the value it holds today when known, and what the
// record says about it.
type Slot struct {
	Pos          fingerprint.Position
	Sources      []string
	Value        string
	Known        bool
	Why          string // why the value is unknown
	ResourceType string
	// Kind is NoEcho when any source is a NoEcho parameter, else reference.
	Kind   model.SecretKind
	Status model.FingerprintStatus
	Reason string
}

// Slots lists a stack's secret positions with today's values. region is
// the stack's deployed region.
func (f *Run) Slots(st assembly.Stack, region string) []*Slot {
	byKey := map[string]*Slot{}
	var out []*Slot
	values := map[string][]string{}
	for _, p := range st.Positions {
		if !p.Secure {
			continue
		}
		pos := fingerprint.Position{Stack: st.Name, Region: region, Kind: fingerprint.KindResource, LogicalID: p.LogicalID, Path: p.Path}
		if p.Kind == assembly.KindOutput {
			pos = fingerprint.Position{Stack: st.Name, Region: region, Kind: fingerprint.KindOutput, Output: p.Output, Path: p.Path}
		}
		s, ok := byKey[pos.Key()]
		if !ok {
			s = &Slot{Pos: pos, Known: true, ResourceType: st.Types[p.LogicalID], Kind: p.Source}
			byKey[pos.Key()] = s
			out = append(out, s)
		}
		if p.Source == model.SecretNoEcho {
			// A value built from a NoEcho parameter is hidden whole.
			s.Kind = model.SecretNoEcho
		}
		source, v, why := f.positionValue(st, p)
		s.Sources = append(s.Sources, source)
		if why != "" {
			s.Known, s.Why = false, why
			continue
		}
		values[pos.Key()] = append(values[pos.Key()], source+"\x00"+v)
	}
	for _, s := range out {
		slices.Sort(s.Sources)
		s.Sources = slices.Compact(s.Sources)
		if !s.Known {
			continue
		}
		// One source (the usual case): the value itself. Several (a Join
		// of two secrets): each value named by its source, in order.
		vs := values[s.Pos.Key()]
		if len(vs) == 1 {
			_, s.Value, _ = strings.Cut(vs[0], "\x00")
			continue
		}
		slices.Sort(vs)
		s.Value = strings.Join(vs, "\x00\x00")
	}
	slices.SortFunc(out, func(a, b *Slot) int { return cmp.Compare(a.Pos.Key(), b.Pos.Key()) })
	return out
}

// positionValue is the value a position reads today, named by its source
// (template text, never the value); why says why it is not known.
func (f *Run) positionValue(st assembly.Stack, p assembly.Position) (source, value, why string) {
	switch p.Source {
	case model.SecretNoEcho:
		source = "NoEcho parameter " + p.Parameter
		if v, ok := f.Assembly().NoEchoDefault(st, p.Parameter); ok {
			return source, v, ""
		}
		return source, "", "the parameter has no default, so its value is not known before the deploy"
	default:
		source = p.Reference
		if strings.Contains(p.Reference, "${") {
			return source, "", "the reference names a resource of the stack, so its value is known only after the deploy"
		}
		if v, ok := f.RefValue(p.Reference); ok {
			return source, v, ""
		}
		return source, "", "the reference was not resolved (resolve-secrets is off, or the secret could not be read)"
	}
}

// Compare sets each slot's status against the record; reason, when set,
// makes every slot unknown.
func (rs *Records) Compare(ctx context.Context, slots []*Slot, rec *fingerprint.Record, reason string) {
	for _, s := range slots {
		switch {
		case reason != "":
			s.Status, s.Reason = model.FingerprintUnknown, reason
		case !s.Known:
			s.Status, s.Reason = model.FingerprintUnknown, s.Why
		default:
			st, why := rs.Hasher.Compare(ctx, rec.Lookup(s.Pos), s.Pos, s.Value)
			s.Status, s.Reason = model.FingerprintStatus(st), why
		}
	}
}

// Hashable lists every known slot the record has a fingerprint for: what
// Compare will hash, so that it can be hashed beforehand, in parallel.
func (rs *Records) Hashable(slots []*Slot, rec *fingerprint.Record) []fingerprint.Item {
	var items []fingerprint.Item
	for _, s := range slots {
		if s.Known && rec.Lookup(s.Pos) != nil {
			items = append(items, fingerprint.Item{Position: s.Pos, Value: s.Value})
		}
	}
	return items
}

// Effect is what the deploy does with a changed value at s, given what
// cdkd's diff says about its resource (nil: unchanged).
func (rs *Records) Effect(s *Slot, change *model.ResourceChange) secreteffect.Decision {
	return secreteffect.Decide(rs.Table, secreteffect.Position{
		Output:       s.Pos.Kind == fingerprint.KindOutput,
		ResourceType: s.ResourceType,
		Path:         s.Pos.Path,
		Source:       s.Kind,
	}, change)
}
