package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	cdkdaction "github.com/cdkd-action/cdkd-action"
)

// The runner's environment. A step that runs under GitHub Actions
// (GITHUB_ACTIONS=true) gets what the runner gives a Docker action, filled
// in around whatever the test set itself (runnerEnv): every input action.yml
// declares with its default applied, the event payload GitHub sends for the
// event (a real one from @octokit/webhooks-examples, testdata/events, with
// the test's fields laid over it), GITHUB_WORKSPACE as the working
// directory, GITHUB_REF, and the rest of the runner's variables. Tests
// write only what they are about; the action still meets the whole world.

// runtimeToken is the runner's ACTIONS_RUNTIME_TOKEN: a credential in every
// step's environment that the action never needs, so never shows.
const runtimeToken = "actions-runtime-token-3c1f9e"

// runnerEnv completes env, the environment a test prepared for a step in
// the workspace dir, into the runner's; tmp is a folder of the step's own.
// A variable the test set (even to "") is kept: a workflow that writes
// `github-token: ”` gives INPUT_GITHUB-TOKEN="" too.
// It returns the inputs it set to their default.
func runnerEnv(t *testing.T, env map[string]string, dir, tmp string) (defaulted []string) {
	t.Helper()
	if env["GITHUB_ACTIONS"] != "true" {
		return nil
	}
	def := func(k, v string) {
		if _, ok := env[k]; !ok {
			env[k] = v
		}
	}
	for _, in := range actionInputs(t) {
		k := "INPUT_" + strings.ToUpper(in.name)
		if _, ok := env[k]; !ok {
			env[k] = evalDefault(t, in, env)
			defaulted = append(defaulted, in.name)
		}
	}
	def("GITHUB_WORKSPACE", dir)
	event := env["GITHUB_EVENT_NAME"]
	if p := env["GITHUB_EVENT_PATH"]; p != "" {
		env["GITHUB_EVENT_PATH"] = realPayload(t, event, p, env["GITHUB_REPOSITORY"], tmp)
	}
	def("GITHUB_REF", defaultRef(t, event, env["GITHUB_EVENT_PATH"]))
	ref := env["GITHUB_REF"]
	refType, refName := "branch", strings.TrimPrefix(ref, "refs/heads/")
	if name, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		refType, refName = "tag", name
	} else if strings.HasPrefix(ref, "refs/pull/") {
		refName = strings.TrimPrefix(ref, "refs/")
	}
	def("GITHUB_REF_NAME", refName)
	def("GITHUB_REF_TYPE", refType)
	def("GITHUB_REF_PROTECTED", "false")
	if event == "pull_request" || event == "pull_request_target" {
		var p struct {
			PullRequest struct {
				Head struct{ Ref string } `json:"head"`
				Base struct{ Ref string } `json:"base"`
			} `json:"pull_request"`
		}
		_ = json.Unmarshal([]byte(readFile(t, env["GITHUB_EVENT_PATH"])), &p)
		def("GITHUB_HEAD_REF", p.PullRequest.Head.Ref)
		def("GITHUB_BASE_REF", p.PullRequest.Base.Ref)
	} else {
		def("GITHUB_HEAD_REF", "")
		def("GITHUB_BASE_REF", "")
	}
	repoOwner, _, _ := strings.Cut(env["GITHUB_REPOSITORY"], "/")
	for k, v := range map[string]string{
		"CI":                         "true",
		"GITHUB_ACTION":              "__run_cdkd",
		"GITHUB_ACTION_REPOSITORY":   "",
		"GITHUB_ACTOR":               "octocat",
		"GITHUB_ACTOR_ID":            "1",
		"GITHUB_TRIGGERING_ACTOR":    "octocat",
		"GITHUB_JOB":                 "cdkd",
		"GITHUB_WORKFLOW":            "cdkd",
		"GITHUB_WORKFLOW_REF":        env["GITHUB_REPOSITORY"] + "/.github/workflows/cdkd.yml@" + ref,
		"GITHUB_WORKFLOW_SHA":        env["GITHUB_SHA"],
		"GITHUB_REPOSITORY_ID":       "42",
		"GITHUB_REPOSITORY_OWNER":    repoOwner,
		"GITHUB_REPOSITORY_OWNER_ID": "4242",
		"GITHUB_RUN_NUMBER":          "17",
		"GITHUB_RUN_ATTEMPT":         "1",
		"GITHUB_RETENTION_DAYS":      "90",
		"GITHUB_GRAPHQL_URL":         strings.TrimSuffix(env["GITHUB_API_URL"], "/") + "/graphql",
		"GITHUB_ENV":                 filepath.Join(tmp, "set_env"),
		"GITHUB_PATH":                filepath.Join(tmp, "add_path"),
		"GITHUB_STATE":               filepath.Join(tmp, "save_state"),
		"RUNNER_OS":                  "Linux",
		"RUNNER_ARCH":                "X64",
		"RUNNER_NAME":                "GitHub Actions 1",
		"RUNNER_ENVIRONMENT":         "github-hosted",
		"RUNNER_TOOL_CACHE":          "/opt/hostedtoolcache",
		"ACTIONS_RUNTIME_URL":        "http://127.0.0.1:9/runtime/",
		"ACTIONS_RUNTIME_TOKEN":      runtimeToken,
		"ACTIONS_RESULTS_URL":        "http://127.0.0.1:9/results/",
	} {
		def(k, v)
	}
	for _, f := range []string{"GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE"} {
		if _, err := os.Stat(env[f]); os.IsNotExist(err) {
			writeFile(t, env[f], "")
		}
	}
	return defaulted
}

var ignoredInput = regexp.MustCompile(`input (\S+) is set but`)

// assertQuietDefaults fails the test when the log warns of an input the
// user never gave: the runner set it to its default (defaulted).
func assertQuietDefaults(t *testing.T, log string, defaulted []string) {
	t.Helper()
	for _, m := range ignoredInput.FindAllStringSubmatch(log, -1) {
		if slices.Contains(defaulted, m[1]) {
			t.Errorf("the step warns that input %s is set, but the workflow never gave it (the runner passed its default):\n%s", m[1], log)
		}
	}
}

// actionInput is one input as action.yml declares it.
type actionInput struct{ name, def string }

// actionInputs reads action.yml's inputs, in file order, once: a new input
// reaches every e2e step without a test naming it.
func actionInputs(t *testing.T) []actionInput {
	t.Helper()
	inputsOnce.Do(func() {
		var f struct {
			Inputs yaml.Node `yaml:"inputs"`
		}
		if inputsErr = yaml.Unmarshal(cdkdaction.ActionYAML, &f); inputsErr != nil {
			return
		}
		n := f.Inputs.Content
		for i := 0; i+1 < len(n); i += 2 {
			var in struct {
				Default *string `yaml:"default"`
			}
			if inputsErr = n[i+1].Decode(&in); inputsErr != nil {
				return
			}
			a := actionInput{name: n[i].Value}
			if in.Default != nil {
				a.def = *in.Default
			}
			inputs = append(inputs, a)
		}
		if len(inputs) == 0 {
			inputsErr = fmt.Errorf("action.yml declares no inputs")
		}
	})
	if inputsErr != nil {
		t.Fatalf("read action.yml's inputs: %v", inputsErr)
	}
	return inputs
}

var (
	inputsOnce sync.Once
	inputs     []actionInput
	inputsErr  error
)

// evalDefault is the value the runner gives an input the workflow does not
// set: its default, an expression evaluated. The harness knows the
// expressions action.yml uses; a new one fails every test until it is
// taught here.
func evalDefault(t *testing.T, in actionInput, env map[string]string) string {
	t.Helper()
	if !strings.Contains(in.def, "${{") {
		return in.def
	}
	switch strings.Join(strings.Fields(in.def), " ") {
	case "${{ github.token }}":
		// The job's token; a test that gives its own keeps it.
		return cmp.Or(env["GITHUB_TOKEN"], token)
	}
	t.Fatalf("action.yml: input %s defaults to %q, an expression the e2e harness cannot evaluate (runner_test.go evalDefault)", in.name, in.def)
	return ""
}

// realPayload writes, under tmp, the payload GitHub sends for event: a
// real example of it with the test's payload at path laid over it (objects
// merged key by key, anything else replaced) and its repository set to
// repository, as the runner's always is. An event with no example (such as
// schedule), or a payload that is not a JSON object (a test of a broken
// one), is kept as the test wrote it.
func realPayload(t *testing.T, event, path, repository, tmp string) string {
	t.Helper()
	name, ok := eventExamples[event]
	if !ok {
		return path
	}
	example := filepath.Join("testdata", "events", name)
	var over map[string]any
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &over) != nil {
		return path
	}
	var base map[string]any
	if err := json.Unmarshal([]byte(readFile(t, abs(t, example))), &base); err != nil {
		t.Fatalf("%s: %v", example, err)
	}
	if owner, name, ok := strings.Cut(repository, "/"); ok {
		setRepo(base["repository"], owner, name)
		if pr, ok := base["pull_request"].(map[string]any); ok {
			for _, side := range []string{"head", "base"} {
				if s, ok := pr[side].(map[string]any); ok {
					setRepo(s["repo"], owner, name)
				}
			}
		}
	}
	merged, err := json.MarshalIndent(mergeJSON(base, over), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "event.json")
	writeFile(t, out, string(merged))
	return out
}

// eventExamples are the real payloads of testdata/events, by event name.
var eventExamples = map[string]string{
	"pull_request":        "pull_request.synchronize.json",
	"pull_request_target": "pull_request.synchronize.json",
	"push":                "push.json",
	"workflow_dispatch":   "workflow_dispatch.json",
	"merge_group":         "merge_group.checks_requested.json",
}

// setRepo names a repository object of an example owner/name.
func setRepo(v any, owner, name string) {
	r, ok := v.(map[string]any)
	if !ok {
		return
	}
	r["name"], r["full_name"] = name, owner+"/"+name
	if o, ok := r["owner"].(map[string]any); ok {
		o["login"] = owner
	}
}

// mergeJSON lays over onto base: objects key by key, anything else replaced.
func mergeJSON(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range over {
		bo, bok := out[k].(map[string]any)
		oo, ook := v.(map[string]any)
		if bok && ook {
			out[k] = mergeJSON(bo, oo)
			continue
		}
		out[k] = v
	}
	return out
}

// defaultRef is GITHUB_REF as the runner sets it for the event: a pull
// request's merge ref, a push's ref, a merge group's own ref, the default
// branch otherwise.
func defaultRef(t *testing.T, event, path string) string {
	t.Helper()
	var p struct {
		Ref         string `json:"ref"`
		Number      int    `json:"number"`
		PullRequest *struct {
			Number int `json:"number"`
		} `json:"pull_request"`
		MergeGroup *struct {
			HeadRef string `json:"head_ref"`
		} `json:"merge_group"`
	}
	if path != "" {
		if b, err := os.ReadFile(path); err == nil {
			_ = json.Unmarshal(b, &p)
		}
	}
	switch {
	case strings.HasPrefix(event, "pull_request") && p.PullRequest != nil:
		n := p.PullRequest.Number
		if n == 0 {
			n = p.Number
		}
		return "refs/pull/" + strconv.Itoa(n) + "/merge"
	case (event == "push" || event == "workflow_dispatch") && p.Ref != "":
		return p.Ref
	case event == "merge_group" && p.MergeGroup != nil && p.MergeGroup.HeadRef != "":
		return p.MergeGroup.HeadRef
	}
	return "refs/heads/main"
}

// The harness's own test: a step with nothing but GITHUB_ACTIONS=true gets
// every input action.yml declares, with its default, and the runner's
// variables.
func TestRunnerEnvironmentIsComplete(t *testing.T) {
	w := newWorkspace(t)
	s := w.newStep(map[string]string{"stacks": "StackA"}, nil)
	for _, in := range actionInputs(t) {
		v, ok := s.env["INPUT_"+strings.ToUpper(in.name)]
		if !ok {
			t.Errorf("input %s is not set; the runner sets every declared input", in.name)
		}
		switch {
		case in.name == "stacks":
			if v != "StackA" {
				t.Errorf("input stacks = %q, want the test's StackA", v)
			}
		case in.name == "github-token":
			if v != token {
				t.Errorf("github-token = %q, want the job's token", v)
			}
		case w.vars["INPUT_"+strings.ToUpper(in.name)] != "":
			// The workspace gives it (a fingerprint-key, say).
			if want := w.vars["INPUT_"+strings.ToUpper(in.name)]; v != want {
				t.Errorf("input %s = %q, want the workspace's %q", in.name, v, want)
			}
		case v != in.def:
			t.Errorf("input %s = %q, want its default %q", in.name, v, in.def)
		}
	}
	for _, k := range []string{"GITHUB_WORKSPACE", "GITHUB_REF", "RUNNER_TEMP", "GITHUB_EVENT_PATH", "GITHUB_HEAD_REF", "GITHUB_ENV", "CI"} {
		if s.env[k] == "" {
			t.Errorf("%s is empty", k)
		}
	}
	if s.env["GITHUB_WORKSPACE"] != w.dir {
		t.Errorf("GITHUB_WORKSPACE = %q, want the step's working directory %q", s.env["GITHUB_WORKSPACE"], w.dir)
	}
	if s.env["GITHUB_REF"] != "refs/pull/7/merge" {
		t.Errorf("GITHUB_REF = %q, want the pull request's merge ref", s.env["GITHUB_REF"])
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(readFile(t, s.env["GITHUB_EVENT_PATH"])), &p); err != nil {
		t.Fatal(err)
	}
	pr := p["pull_request"].(map[string]any)
	// The test's fields win; the example's others are there as GitHub
	// sends them.
	if pr["head"].(map[string]any)["sha"] != headSHA || pr["number"] != float64(prNum) {
		t.Errorf("the test's pull request fields were not kept: %v %v", pr["head"], pr["number"])
	}
	for _, k := range []string{"user", "created_at", "merge_commit_sha", "requested_reviewers"} {
		if _, ok := pr[k]; !ok {
			t.Errorf("the payload's pull_request has no %s: not the real payload", k)
		}
	}
	if got := p["repository"].(map[string]any)["full_name"]; got != owner+"/"+repo {
		t.Errorf("the payload's repository is %v, want GITHUB_REPOSITORY", got)
	}

	// Outside Actions nothing is added.
	local := w.newStep(nil, []string{"GITHUB_ACTIONS=false"})
	if _, ok := local.env["INPUT_COMMAND"]; ok {
		t.Errorf("a step outside GitHub Actions got the runner's inputs")
	}
	if !slices.Contains(local.environ(), "GITHUB_ACTIONS=false") {
		t.Errorf("the test's GITHUB_ACTIONS was not kept")
	}
}
