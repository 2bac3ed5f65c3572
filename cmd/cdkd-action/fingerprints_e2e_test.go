package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// The NoEcho values of the fingerprint tests: v1 is deployed first, v2
// replaces it in a later pull request.
const (
	fpDbV1 = "fp-db-password-v1"
	fpDbV2 = "fp-db-password-v2"
	fpAdV1 = "fp-ad-password-v1"
	fpAdV2 = "fp-ad-password-v2"
)

const fpKey = "cdkd-action/FpStack/us-east-1/fingerprints.json"

// fpBucket is the AWS emulator's state bucket, where another writer can
// write the fingerprint object right before the action's own conditional
// write, as a concurrent deploy would.
type fpBucket struct {
	*awsEmulator
	bucket string
}

func startFingerprintBucket(t *testing.T) *fpBucket {
	t.Helper()
	b := &fpBucket{awsEmulator: startAWS(t), bucket: "fp-state-" + unique(t)}
	b.createBucket(t, b.bucket, nil)
	return b
}

// object reads the fingerprint record as stored, raw and decoded.
func (b *fpBucket) object(t *testing.T) (string, *fingerprint.Record) {
	t.Helper()
	raw, ok := b.awsEmulator.object(t, b.bucket, fpKey)
	assert.Assert(t, ok, "the fingerprint object exists")
	rec, err := fingerprint.Decode([]byte(raw))
	assert.NilError(t, err)
	return raw, rec
}

// raceWith makes another writer add a position of its own right before the
// action's next write of the object.
func (b *fpBucket) raceWith(t *testing.T, pos fingerprint.Position) {
	b.beforeRequest(func(r *http.Request) {
		if r.Method != http.MethodPut || !strings.HasSuffix(r.URL.Path, "/fingerprints.json") {
			return
		}
		b.beforeRequest(nil)
		rec := fingerprint.NewRecord("FpStack", "us-east-1")
		if out, err := b.s3().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(fpKey)}); err == nil {
			raw, _ := io.ReadAll(out.Body)
			out.Body.Close()
			if r, err := fingerprint.Decode(raw); err == nil {
				rec = r
			}
		}
		rec.Positions[pos.Key()] = fingerprint.Entry{Position: pos, Fingerprint: fingerprint.Fingerprint{Hash: "written-by-another-run", Params: e2eFingerprintParams}}
		body, err := rec.Encode()
		assert.Check(t, err)
		// Not putObject: this runs on the emulator's goroutine, where a
		// test may not stop.
		_, err = b.s3().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(fpKey), Body: bytes.NewReader(body)})
		assert.Check(t, err)
	})
}

// fpAssembly writes the test assembly with the given NoEcho defaults.
func fpAssembly(t *testing.T, db, ad string) string {
	t.Helper()
	dir := t.TempDir()
	r := strings.NewReplacer("__DB_PASSWORD__", db, "__AD_PASSWORD__", ad)
	for _, name := range []string{"manifest.json", "FpStack.template.json"} {
		b, err := os.ReadFile(filepath.Join("testdata/fingerprints/assembly", name))
		assert.NilError(t, err)
		writeFile(t, filepath.Join(dir, name), r.Replace(string(b)))
	}
	return dir
}

func fpInvocation(t *testing.T, file string, args ...string) cdkdtest.Invocation {
	t.Helper()
	return cdkdtest.Invocation{ArgsContain: args, StdoutFile: abs(t, "testdata/fingerprints/"+file)}
}

// fpDeploy deploys the assembly; the run's events report each resource
// with op (CREATE or UPDATE).
func fpDeploy(t *testing.T, w *workspace, b *fpBucket, asm, diff, op string) result {
	t.Helper()
	w.onPush()
	stub := w.stub(
		fpInvocation(t, diff, "diff", "--all", "--json"),
		fpInvocation(t, "deploy.stdout", "deploy", "FpStack", "--exclusively", "-y"),
		fpInvocation(t, "events.json", "events", "FpStack", "--json"),
		fpInvocation(t, "events-run-"+op+".json", "events", "FpStack", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
		fpInvocation(t, "state.json", "state", "show", "FpStack", "--json"),
	)
	res := w.run(map[string]string{"command": "deploy", "all": "true", "app": asm, "state-bucket": b.bucket, "require-reviewed-diff": "false"}, b.env()...)
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	return res
}

// fpDiff runs the diff on the pull request; cdkd's own diff reports nothing.
func fpDiff(t *testing.T, w *workspace, b *fpBucket, asm string) (result, string, githubtest.CheckRun) {
	t.Helper()
	w.onPullRequest(reviewedSHA)
	stub := w.stub(fpInvocation(t, "diff-none.json", "diff", "--all", "--json"))
	res := w.run(map[string]string{"all": "true", "app": asm, "state-bucket": b.bucket}, b.env()...)
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	var check githubtest.CheckRun
	for _, cr := range w.gh.CheckRuns() {
		if cr.Name == "cdkd diff" {
			check = cr
		}
	}
	var comment string
	for _, c := range w.gh.Comments(owner, repo, deployPR) {
		if strings.Contains(c.Body, `"kind":"diff"`) {
			comment = c.Body
		}
	}
	return res, comment, check
}

// fpNoLeak checks every channel and the object for the NoEcho values.
func fpNoLeak(t *testing.T, res result, object string) {
	t.Helper()
	assertHidden(t, append(res.channels, channel{"the fingerprint object", object}), fpDbV1, fpDbV2, fpAdV1, fpAdV2)
}

func TestFingerprintsSeeANoEchoChange(t *testing.T) {
	b := startFingerprintBucket(t)
	w := newDeployWorkspace(t, reviewedSHA)
	v1 := fpAssembly(t, fpDbV1, fpAdV1)
	v2 := fpAssembly(t, fpDbV2, fpAdV2)
	db := fingerprint.Position{Stack: "FpStack", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "Db", Path: "MasterUserPassword"}
	ad := fingerprint.Position{Stack: "FpStack", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "Directory", Path: "Password"}
	other := fingerprint.Position{Stack: "FpStack", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "Other", Path: "Secret"}

	// A first deploy with v1 records both positions; another run writes the
	// object in between, and its position is merged, not lost.
	b.raceWith(t, other)
	res := fpDeploy(t, w, b, v1, "diff-create.json", "CREATE")
	assert.Assert(t, is.Contains(res.stdout, "recorded the fingerprints of 2 secret position(s) of FpStack in s3://"+b.bucket+"/"+fpKey))
	raw, first := b.object(t)
	assert.Equal(t, len(first.Positions), 3, raw)
	assert.Assert(t, first.Lookup(other) != nil, "the concurrent writer's position survives the conflict")
	assert.DeepEqual(t, first.Lookup(db).Params, e2eFingerprintParams)
	assert.Equal(t, first.Positions[db.Key()].Source, "NoEcho parameter DbPassword")
	fpNoLeak(t, res, raw)

	// The same default: unchanged.
	res, comment, check := fpDiff(t, w, b, v1)
	assert.Equal(t, res.outputs["has-changes"], "false")
	assert.Equal(t, check.Conclusion, "success")
	assert.Assert(t, is.Contains(comment, "`Db`.`MasterUserPassword` · `NoEcho parameter DbPassword` · (secret) · unchanged"), comment)
	assert.Assert(t, is.Contains(comment, "`Directory`.`Password` · `NoEcho parameter AdPassword` · (secret) · unchanged"), comment)
	assert.Assert(t, !strings.Contains(comment, "cdkd cannot tell whether its value changed"), "the NoEcho note gives way to the fingerprints: %s", comment)

	// New defaults: cdkd's diff reports nothing, the fingerprints see both
	// changes, and the create-only one AWS never reports gets the warning.
	res, comment, check = fpDiff(t, w, b, v2)
	assert.Equal(t, res.outputs["has-changes"], "true")
	assert.Equal(t, check.Conclusion, "neutral")
	assert.Equal(t, check.Output.Title, "2 secret values changed")
	assert.Assert(t, is.Contains(comment, "**Plan:** no resource or output changes · 🔐 2 secret values changed"), comment)
	assert.Assert(t, is.Contains(comment, "`Db`.`MasterUserPassword` · `NoEcho parameter DbPassword` · (secret) → (secret) · **changed** — will be updated"), comment)
	assert.Assert(t, is.Contains(comment, "`Directory`.`Password` · `NoEcho parameter AdPassword` · (secret) → (secret) · **changed** — ⚠️ **cdkd will NOT apply this value**"), comment)
	assert.Assert(t, is.Contains(comment, "> ⚠️ **1 changed secret value will NOT be applied by a deploy:**"), comment)
	assert.Assert(t, is.Contains(comment, "`--recreate-via-cc-api Directory`"), comment)
	assert.Assert(t, is.Contains(check.Output.Text+check.Output.Summary, "will NOT be applied"))
	assert.Assert(t, is.Contains(res.stdout, "::warning::FpStack: the changed secret value at Directory.Password"))
	fpNoLeak(t, res, raw)

	// Deploying v2: cdkd updates both resources, but keeps the directory
	// (a create-only password AWS never reports): its OLD fingerprint stays.
	res = fpDeploy(t, w, b, v2, "diff-none.json", "UPDATE")
	assert.Assert(t, is.Contains(res.summary, "FpStack: the changed secret value at Directory.Password (NoEcho parameter AdPassword) is NOT applied by cdkd deploy"), res.summary)
	assert.Assert(t, !strings.Contains(res.summary, "at Db.MasterUserPassword"), "the database password was applied")
	raw, second := b.object(t)
	assert.Assert(t, !second.Lookup(db).Equal(*first.Lookup(db)), "the database's new password reached AWS")
	assert.Assert(t, second.Lookup(ad).Equal(*first.Lookup(ad)), "the directory's password was not applied")
	assert.Assert(t, second.Lookup(other) != nil)
	fpNoLeak(t, res, raw)

	// So the next diff still says the directory's value is not applied.
	res, comment, _ = fpDiff(t, w, b, v2)
	assert.Equal(t, res.outputs["has-changes"], "true")
	assert.Assert(t, is.Contains(comment, "`Db`.`MasterUserPassword` · `NoEcho parameter DbPassword` · (secret) · unchanged"), comment)
	assert.Assert(t, is.Contains(comment, "`Directory`.`Password` · `NoEcho parameter AdPassword` · (secret) → (secret) · **changed** — ⚠️ **cdkd will NOT apply this value**"), comment)
	fpNoLeak(t, res, raw)
}

// Another fingerprint-key makes the recorded fingerprints unknown, and the
// report says why; the key never shows.
func TestFingerprintsKeyMismatchIsUnknown(t *testing.T) {
	b := startFingerprintBucket(t)
	w := newDeployWorkspace(t, reviewedSHA)
	v1 := fpAssembly(t, fpDbV1, fpAdV1)
	fpDeploy(t, w, b, v1, "diff-create.json", "CREATE")
	const rotated = "docYbHU4hVOn+yBjeAS4DMtnKz1OWtemZs9Uu3puVr0="
	w.vars["INPUT_FINGERPRINT-KEY"] = rotated
	res, comment, _ := fpDiff(t, w, b, v1)
	assert.Equal(t, res.outputs["has-changes"], "false")
	assert.Assert(t, is.Regexp("\\(secret\\) · unknown \\(recorded with fingerprint key k2:[^ ]+, and this run's key is k2:", comment), comment)
	assert.Assert(t, is.Regexp("were recorded with fingerprint key k2:[^ ]+, and this run's key is k2:", comment), comment)
	assert.Assert(t, is.Contains(res.stdout, "::add-mask::"+rotated), "the key is registered with the runner")
	assert.Assert(t, !strings.Contains(comment+strings.Join(rawLines(res.stdout), "\n")+res.summary, rotated))
	// Only a deploy that creates or updates their resources records them.
	assert.Assert(t, is.Contains(comment, "unknown until a deploy that creates or updates their resources records them again (a deploy that changes nothing records nothing)"), comment)
}

// Without resolve-secrets, a local run reads nothing: every position is
// unknown.
func TestFingerprintsLocalWithoutResolveSecrets(t *testing.T) {
	b := startFingerprintBucket(t)
	w := newWorkspace(t)
	v1 := fpAssembly(t, fpDbV1, fpAdV1)
	stub := w.stub(fpInvocation(t, "diff-none.json", "diff", "--all", "--json"))
	res := w.run(map[string]string{"all": "true", "app": v1, "state-bucket": b.bucket, "resolve-secrets": "false"},
		append(b.env(), "GITHUB_ACTIONS=false")...)
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Assert(t, is.Contains(res.stdout, "(secret) · unknown (resolve-secrets is off in a local run, so no fingerprint was read)"), res.stdout)
}
