package cdkd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// fakeCdkd writes a cdkd stand-in script printing version.
func fakeCdkd(t *testing.T, dir, version string) string {
	t.Helper()
	assert.NilError(t, os.MkdirAll(dir, 0o755))
	p := filepath.Join(dir, "cdkd")
	assert.NilError(t, os.WriteFile(p, []byte("#!/bin/sh\necho "+version+"\n"), 0o755))
	return p
}

// fakeNPM puts an `npm` stand-in on PATH (and only it, with the shell):
// `npm install --prefix DIR ... @go-to-k/cdkd@V` leaves DIR/node_modules/.bin/cdkd
// printing V, or fails for version 9.9.9, as the registry would.
func fakeNPM(t *testing.T, pathDirs ...string) string {
	t.Helper()
	bin := t.TempDir()
	log := filepath.Join(bin, "npm.log")
	script := `#!/bin/sh
echo "$@" >> ` + log + `
prefix=""; spec=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift ;;
    @go-to-k/cdkd@*) spec="$1" ;;
  esac
  shift
done
v="${spec#@go-to-k/cdkd@}"
if [ "$v" = "9.9.9" ]; then echo "npm ERR! 404 No match for version 9.9.9" >&2; exit 1; fi
mkdir -p "$prefix/node_modules/.bin"
printf '#!/bin/sh\necho %s\n' "$v" > "$prefix/node_modules/.bin/cdkd"
chmod +x "$prefix/node_modules/.bin/cdkd"
`
	assert.NilError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755))
	path := strings.Join(append([]string{bin}, pathDirs...), string(os.PathListSeparator))
	t.Setenv("PATH", path+string(os.PathListSeparator)+"/bin:/usr/bin")
	return log
}

func TestLocateOrder(t *testing.T) {
	ctx := context.Background()
	bundledDir := t.TempDir()
	fakeCdkd(t, bundledDir, "0.284.40")

	t.Run("cdkd-path wins", func(t *testing.T) {
		fakeNPM(t, bundledDir)
		own := fakeCdkd(t, t.TempDir(), "0.1.0")
		repo := t.TempDir()
		fakeCdkd(t, filepath.Join(repo, "node_modules", ".bin"), "0.2.0")
		c, err := Locate(ctx, LocateOptions{Path: own, Version: "0.284.40", Dir: repo})
		assert.NilError(t, err)
		assert.DeepEqual(t, c, Choice{Path: own, Version: "0.1.0", Source: SourcePath, Why: "the cdkd-path input names it"})
	})
	t.Run("the repository's node_modules next", func(t *testing.T) {
		fakeNPM(t, bundledDir)
		repo := t.TempDir()
		p := fakeCdkd(t, filepath.Join(repo, "node_modules", ".bin"), "0.2.0")
		c, err := Locate(ctx, LocateOptions{Version: "0.284.40", Dir: repo})
		assert.NilError(t, err)
		assert.Equal(t, c.Path, p)
		assert.Equal(t, c.Version, "0.2.0")
		assert.Equal(t, c.Source, SourceRepo)
		assert.Assert(t, is.Contains(c.Why, "wins over cdkd-version 0.284.40"))
	})
	t.Run("the bundled cdkd when the version matches or none is asked", func(t *testing.T) {
		log := fakeNPM(t, bundledDir)
		for _, v := range []string{"", "0.284.40"} {
			c, err := Locate(ctx, LocateOptions{Version: v, Dir: t.TempDir(), InstallDir: t.TempDir()})
			assert.NilError(t, err)
			assert.Equal(t, c.Path, filepath.Join(bundledDir, "cdkd"))
			assert.Equal(t, c.Source, SourceBundled)
		}
		_, err := os.Stat(log)
		assert.Assert(t, os.IsNotExist(err), "npm was not run")
	})
	t.Run("npm install when cdkd-version differs", func(t *testing.T) {
		log := fakeNPM(t, bundledDir)
		install := t.TempDir()
		var npmOut bytes.Buffer
		c, err := Locate(ctx, LocateOptions{Version: "0.300.0", Dir: t.TempDir(), InstallDir: install, Log: &npmOut})
		assert.NilError(t, err)
		assert.Equal(t, c.Path, filepath.Join(install, "node_modules", ".bin", "cdkd"))
		assert.Equal(t, c.Version, "0.300.0")
		assert.Equal(t, c.Source, SourceNPM)
		assert.Assert(t, is.Contains(c.Why, "cdkd-version 0.300.0 differs from the cdkd on PATH (0.284.40)"))
		b, err := os.ReadFile(log)
		assert.NilError(t, err)
		assert.Assert(t, is.Contains(string(b), "install --prefix "+install))
		assert.Assert(t, is.Contains(string(b), "@go-to-k/cdkd@0.300.0"))
	})
	t.Run("without an install folder it only says what it would do", func(t *testing.T) {
		log := fakeNPM(t, bundledDir)
		c, err := Locate(ctx, LocateOptions{Version: "0.300.0", Dir: t.TempDir()})
		assert.NilError(t, err)
		assert.Equal(t, c.Path, "")
		assert.Assert(t, is.Contains(c.Why, "it would be installed with npm"))
		_, err = os.Stat(log)
		assert.Assert(t, os.IsNotExist(err))
	})
	t.Run("a version npm cannot install is an error naming it", func(t *testing.T) {
		fakeNPM(t, bundledDir)
		_, err := Locate(ctx, LocateOptions{Version: "9.9.9", Dir: t.TempDir(), InstallDir: t.TempDir(), Log: &bytes.Buffer{}})
		assert.ErrorContains(t, err, "npm install @go-to-k/cdkd@9.9.9 failed")
	})
	t.Run("nothing anywhere", func(t *testing.T) {
		fakeNPM(t)
		_, err := Locate(ctx, LocateOptions{Dir: t.TempDir()})
		assert.ErrorIs(t, err, ErrNotFound)
		assert.ErrorContains(t, err, "set cdkd-path or cdkd-version")
	})
}

func TestSavedDriftExit(t *testing.T) {
	for _, tc := range []struct {
		file string
		want int
	}{
		{"14-drift-clean-json.stdout", 0},
		{"20-drift-oob1-json.stdout", 1},
	} {
		b, err := os.ReadFile(filepath.Join("../../testdata/cdkd-samples", tc.file))
		assert.NilError(t, err)
		d, err := DecodeDrift(b)
		assert.NilError(t, err)
		assert.Equal(t, SavedDriftExit(d), tc.want, tc.file)
	}
}

func TestSavedDriftExitPartial(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "A", NotCompared: []model.NotCompared{{Resource: model.Resource{LogicalID: "X"}, Cause: model.CauseRefused}}}}}
	assert.Equal(t, SavedDriftExit(d), model.ExitCodeUnknown, "no run gave an exit code, and the report names no drift")
	d.Stacks[0].NotCompared[0].Cause = model.CauseUnreported
	assert.Equal(t, SavedDriftExit(d), model.ExitCodeUnknown, "0.284's JSON: refused and ssm-secure look the same")
	d.Stacks[0].Drifted = []model.DriftedResource{{Resource: model.Resource{LogicalID: "Y"}}}
	assert.Equal(t, SavedDriftExit(d), 1, "drift outranks a partial comparison")
}

// Samples 25 (refused, exit 2) and 86 (ssm-secure, exit 0) are the same
// JSON shape: the saved report alone cannot tell their exit codes.
func TestSavedDriftExitSamples(t *testing.T) {
	for _, file := range []string{"25-drift-stackC-refused-json.stdout", "86-drift-stackD-ssmsecure-json.stdout"} {
		b, err := os.ReadFile(filepath.Join("../../testdata/cdkd-samples", file))
		assert.NilError(t, err)
		d, err := DecodeDrift(b)
		assert.NilError(t, err)
		assert.Equal(t, SavedDriftExit(d), model.ExitCodeUnknown, file)
	}
}

// EnvBase is the environment cdkd --version and npm inherit instead of the
// process's: an App run in-process hands them its own.
func TestLocatePassesEnvBase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	own := filepath.Join(dir, "cdkd")
	assert.NilError(t, os.WriteFile(own, []byte("#!/bin/sh\necho \"${LOCATE_VERSION:-none}\"\n"), 0o755))
	c, err := Locate(ctx, LocateOptions{Path: own, Dir: dir, EnvBase: []string{"LOCATE_VERSION=0.7.0"}})
	assert.NilError(t, err)
	assert.Equal(t, c.Version, "0.7.0")

	log := fakeNPM(t)
	npmEnv := filepath.Join(t.TempDir(), "npm.env")
	npm := filepath.Join(filepath.Dir(log), "npm")
	script, err := os.ReadFile(npm)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(npm, []byte(strings.Replace(string(script), "#!/bin/sh\n", "#!/bin/sh\necho \"$LOCATE_MARK\" > "+npmEnv+"\n", 1)), 0o755))
	_, err = Locate(ctx, LocateOptions{Version: "0.300.0", Dir: t.TempDir(), InstallDir: t.TempDir(), Log: &bytes.Buffer{},
		EnvBase: []string{"PATH=/bin:/usr/bin", "LOCATE_MARK=from-env-base"}})
	assert.NilError(t, err)
	b, err := os.ReadFile(npmEnv)
	assert.NilError(t, err)
	assert.Equal(t, strings.TrimSpace(string(b)), "from-env-base")
}
