package app

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
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secreteffect"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// fpState is the run's fingerprint side: the values secret references
// resolved to during discovery (kept in memory only, to be fingerprinted),
// and the machinery, built on first use.
type fpState struct {
	refs *recordingResolver
	once sync.Once
	fp   *fpRun // nil: fingerprints are off
	// mask fingerprints the values behind the masks for the digest
	// (masks.go).
	maskOnce sync.Once
	mask     *fingerprint.Hasher
	maskErr  error
	// key is the fingerprint key (fingerprints_key.go); keyWhy says why
	// there is none.
	keyOnce sync.Once
	key     []byte
	keyWhy  string
}

// fpRun fingerprints a run's secret positions and reads and writes their
// record in the state bucket.
type fpRun struct {
	hasher *fingerprint.Hasher
	store  fingerprint.ObjectStore // nil when off is set
	bucket string
	prefix string
	table  *cfnschema.Table
	// off, when set, says why no record is read: every position is unknown.
	off string
}

// recordingResolver remembers what each secret reference resolved to, so
// the value can be fingerprinted without a second read from AWS.
type recordingResolver struct {
	inner  discover.Resolver
	mu     sync.Mutex
	values map[string]string // by the reference's spelling
}

func (r *recordingResolver) Resolve(ctx context.Context, ref dynref.Ref) (string, bool, error) {
	v, secret, err := r.inner.Resolve(ctx, ref)
	if err == nil && secret {
		r.mu.Lock()
		r.values[ref.Raw] = v
		r.mu.Unlock()
	}
	return v, secret, err
}

func (r *recordingResolver) value(raw string) (string, bool) {
	if r == nil {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.values[raw]
	return v, ok
}

// recordRefs wraps discovery's resolver so resolved values can be
// fingerprinted later.
func (r *Env) recordRefs(inner discover.Resolver) discover.Resolver {
	if inner == nil {
		return nil
	}
	if r.fps.refs == nil {
		r.fps.refs = &recordingResolver{values: map[string]string{}}
	}
	r.fps.refs.inner = inner
	return r.fps.refs
}

// fingerprints returns the run's fingerprint machinery, or nil when
// fingerprints are off: the input says so, no state bucket is known, or
// there is no cloud assembly to find secret positions in. Without a
// fingerprint key, every position is unknown and says why (off).
func (r *Env) fingerprints(ctx context.Context) *fpRun {
	r.fps.once.Do(func() {
		bucket := r.stateBucket(ctx)
		if !r.cfg.Fingerprints || bucket == "" || r.asm == nil {
			return
		}
		if r.cfg.BaseApp != "" {
			// The pull request's assembly decides the values at secret
			// positions (its NoEcho defaults): none is fingerprinted.
			r.runner.Notice("fingerprints are off for this diff: with base-app, the assembly diffed is the pull request's, and its author must not decide the values fingerprinted; a change to a masked value shows as unknown")
			return
		}
		table, err := cfnschema.Load()
		if err != nil {
			r.runner.Warning(fmt.Sprintf("fingerprints are off: %v", err))
			return
		}
		fp := &fpRun{bucket: bucket, prefix: r.cfg.FingerprintPrefix, table: table}
		key, why := r.fingerprintKey(ctx)
		if key == nil {
			fp.off = why
			r.fps.fp = fp
			return
		}
		h, err := fingerprint.NewHasher(fingerprint.Options{Key: key, Params: r.fingerprintParams()})
		if err != nil {
			r.runner.Warning(fmt.Sprintf("fingerprints are off: %v", err))
			return
		}
		fp.hasher = h
		switch {
		case r.offlineAWS() != "":
			fp.off = "resolve-secrets is off in a local run, so no fingerprint was read"
		default:
			store, err := r.objectStore(ctx, bucket)
			if err != nil {
				fp.off = fmt.Sprintf("the state bucket could not be reached for fingerprints: %v", err)
			}
			fp.store = store
		}
		r.fps.fp = fp
	})
	return r.fps.fp
}

// fingerprintParams are the parameters new fingerprints are made with
// (zero: fingerprint.DefaultParams).
func (r *Env) fingerprintParams() fingerprint.Params {
	if r.app == nil {
		return fingerprint.Params{}
	}
	return r.app.Deps.FingerprintParams
}

// key is where a stack's record lives.
func (f *fpRun) key(stack, region string) string {
	return fingerprint.ObjectKey(f.prefix, stack, region)
}

// fingerprintReadTimeout bounds reading one stack's record.
const fingerprintReadTimeout = 30 * time.Second

// load reads a stack's record. The reason, when set, makes every position
// unknown.
func (f *fpRun) load(ctx context.Context, stack, region string) (*fingerprint.Record, string) {
	if f.off != "" {
		return nil, f.off
	}
	ctx, cancel := context.WithTimeout(ctx, fingerprintReadTimeout)
	defer cancel()
	rec, err := fingerprint.Load(ctx, f.store, f.key(stack, region))
	if err != nil {
		return nil, "the fingerprints could not be read: " + err.Error()
	}
	return rec, ""
}

// slot is one secret position of a stack: every source that fills it
// (usually one), the value it holds today when known, and what the
// record says about it.
type slot struct {
	pos          fingerprint.Position
	sources      []string
	value        string
	known        bool
	why          string // why the value is unknown
	resourceType string
	// kind is NoEcho when any source is a NoEcho parameter, else reference.
	kind   model.SecretKind
	status model.FingerprintStatus
	reason string
}

// slots lists a stack's secret positions with today's values. region is
// the stack's deployed region.
func (r *Env) slots(st assembly.Stack, region string) []*slot {
	byKey := map[string]*slot{}
	var out []*slot
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
			s = &slot{pos: pos, known: true, resourceType: st.Types[p.LogicalID], kind: p.Source}
			byKey[pos.Key()] = s
			out = append(out, s)
		}
		if p.Source == model.SecretNoEcho {
			// A value built from a NoEcho parameter is masked whole.
			s.kind = model.SecretNoEcho
		}
		source, v, why := r.positionValue(st, p)
		s.sources = append(s.sources, source)
		if why != "" {
			s.known, s.why = false, why
			continue
		}
		values[pos.Key()] = append(values[pos.Key()], source+"\x00"+v)
	}
	for _, s := range out {
		slices.Sort(s.sources)
		s.sources = slices.Compact(s.sources)
		if !s.known {
			continue
		}
		// One source (the usual case): the value itself. Several (a Join
		// of two secrets): each value named by its source, in order.
		vs := values[s.pos.Key()]
		if len(vs) == 1 {
			_, s.value, _ = strings.Cut(vs[0], "\x00")
			continue
		}
		slices.Sort(vs)
		s.value = strings.Join(vs, "\x00\x00")
	}
	slices.SortFunc(out, func(a, b *slot) int { return cmp.Compare(a.pos.Key(), b.pos.Key()) })
	return out
}

// positionValue is the value a position reads today, named by its source
// (template text, never the value); why says why it is not known.
func (r *Env) positionValue(st assembly.Stack, p assembly.Position) (source, value, why string) {
	switch p.Source {
	case model.SecretNoEcho:
		source = "NoEcho parameter " + p.Parameter
		if v, ok := r.asm.NoEchoDefault(st, p.Parameter); ok {
			return source, v, ""
		}
		return source, "", "the parameter has no default, so its value is not known before the deploy"
	default:
		source = p.Reference
		if strings.Contains(p.Reference, "${") {
			return source, "", "the reference names a resource of the stack, so its value is known only after the deploy"
		}
		if v, ok := r.fps.refs.value(p.Reference); ok {
			return source, v, ""
		}
		return source, "", "the reference was not resolved (resolve-secrets is off, or the secret could not be read)"
	}
}

// compare sets each slot's status against the record; reason, when set,
// makes every slot unknown.
func (f *fpRun) compare(ctx context.Context, slots []*slot, rec *fingerprint.Record, reason string) {
	for _, s := range slots {
		switch {
		case reason != "":
			s.status, s.reason = model.FingerprintUnknown, reason
		case !s.known:
			s.status, s.reason = model.FingerprintUnknown, s.why
		default:
			st, why := f.hasher.Compare(ctx, rec.Lookup(s.pos), s.pos, s.value)
			s.status, s.reason = model.FingerprintStatus(st), why
		}
	}
}

// hashable lists every known slot the record has a fingerprint for: what
// compare will hash, so that it can be hashed beforehand, in parallel.
func (f *fpRun) hashable(slots []*slot, rec *fingerprint.Record) []fingerprint.Item {
	var items []fingerprint.Item
	for _, s := range slots {
		if s.known && rec.Lookup(s.pos) != nil {
			items = append(items, fingerprint.Item{Position: s.pos, Value: s.value})
		}
	}
	return items
}

// effect is what the deploy does with a changed value at s, given what
// cdkd's diff says about its resource (nil: unchanged).
func (f *fpRun) effect(s *slot, change *model.ResourceChange) secreteffect.Decision {
	return secreteffect.Decide(f.table, secreteffect.Position{
		Output:       s.pos.Kind == fingerprint.KindOutput,
		ResourceType: s.resourceType,
		Path:         s.pos.Path,
		Source:       s.kind,
	}, change)
}
