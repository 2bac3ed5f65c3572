package githubtest_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

func TestCommentPaginationLinks(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 7, HeadSHA: "abc"})
	var bodies []string
	for i := 1; i <= 8; i++ {
		bodies = append(bodies, fmt.Sprintf("comment %d", i))
	}
	srv.SeedComments("o", "r", 7, "someone", bodies...)

	base := srv.APIURL() + "/repos/o/r/issues/7/comments"
	link := func(page int, rel string) string {
		return fmt.Sprintf(`<%s?page=%d&per_page=3>; rel="%s"`, base, page, rel)
	}
	tests := []struct {
		page      int
		wantLink  string
		wantCount int
	}{
		{1, link(2, "next") + ", " + link(3, "last"), 3},
		{2, link(1, "prev") + ", " + link(3, "next") + ", " + link(3, "last") + ", " + link(1, "first"), 3},
		{3, link(2, "prev") + ", " + link(1, "first"), 2},
		{4, link(3, "prev") + ", " + link(1, "first"), 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint("page ", tc.page), func(t *testing.T) {
			res := do(t, srv, http.MethodGet, fmt.Sprintf("/repos/o/r/issues/7/comments?per_page=3&page=%d", tc.page), "")
			assert.Equal(t, res.Status, http.StatusOK)
			assert.Equal(t, res.Header.Get("Link"), tc.wantLink)
			var got []map[string]any
			res.JSON(t, &got)
			assert.Assert(t, is.Len(got, tc.wantCount))
		})
	}

	t.Run("following next visits every comment once, in order", func(t *testing.T) {
		next := base + "?per_page=3"
		var got []string
		pages := 0
		for next != "" {
			pages++
			assert.Assert(t, pages <= 10, "pagination does not end")
			res := doAs(t, srv, "tok", http.MethodGet, next, "")
			var page []struct{ Body string }
			res.JSON(t, &page)
			for _, c := range page {
				got = append(got, c.Body)
			}
			next = ""
			if m := regexp.MustCompile(`<([^>]+)>; rel="next"`).FindStringSubmatch(res.Header.Get("Link")); m != nil {
				next = m[1]
			}
		}
		assert.Equal(t, pages, 3)
		assert.DeepEqual(t, got, bodies)
	})

	t.Run("one page has no Link header", func(t *testing.T) {
		res := do(t, srv, http.MethodGet, "/repos/o/r/issues/7/comments", "")
		assert.Equal(t, res.Header.Get("Link"), "")
		var got []map[string]any
		res.JSON(t, &got)
		assert.Assert(t, is.Len(got, 8))
	})

	t.Run("per_page is capped at 100", func(t *testing.T) {
		for i := 0; i < 100; i++ {
			srv.SeedComments("o", "r", 7, "someone", "x")
		}
		res := do(t, srv, http.MethodGet, "/repos/o/r/issues/7/comments?per_page=500", "")
		var got []map[string]any
		res.JSON(t, &got)
		assert.Assert(t, is.Len(got, 100))
		assert.Assert(t, is.Contains(res.Header.Get("Link"), `page=2&per_page=500>; rel="next"`))
	})
}

func TestIssueListFiltersAndPaginates(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", HeadSHA: "abc", Labels: []string{"cdkd-drift"}}) // #1
	srv.AddIssue(githubtest.Issue{Owner: "o", Repo: "r", Title: "old drift", Labels: []string{"cdkd-drift"}, State: "closed"})
	srv.AddIssue(githubtest.Issue{Owner: "o", Repo: "r", Title: "bug", Labels: []string{"bug"}})
	for i := 0; i < 4; i++ {
		res := do(t, srv, http.MethodPost, "/repos/o/r/issues", mustJSON(t, map[string]any{
			"title": fmt.Sprintf("drift %d", i), "labels": []string{"cdkd-drift", "infra"},
		}))
		assert.Equal(t, res.Status, http.StatusCreated, res.Body)
	}

	titles := func(res result) []string {
		var items []struct {
			Title       string
			PullRequest any `json:"pull_request"`
		}
		res.JSON(t, &items)
		var out []string
		for _, it := range items {
			s := it.Title
			if it.PullRequest != nil {
				s += " (PR)"
			}
			out = append(out, s)
		}
		return out
	}

	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"drift 3", "drift 2", "drift 1", "drift 0", "bug", "Pull request 1 (PR)"}},
		{"?labels=cdkd-drift", []string{"drift 3", "drift 2", "drift 1", "drift 0", "Pull request 1 (PR)"}},
		{"?labels=CDKD-DRIFT,infra&direction=asc", []string{"drift 0", "drift 1", "drift 2", "drift 3"}},
		{"?labels=cdkd-drift&state=closed", []string{"old drift"}},
		{"?state=all&creator=octocat&direction=asc", []string{"Pull request 1 (PR)", "old drift", "bug"}},
		{"?creator=github-actions[bot]&per_page=3&page=2", []string{"drift 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res := do(t, srv, http.MethodGet, "/repos/o/r/issues"+tc.query, "")
			assert.Equal(t, res.Status, http.StatusOK, res.Body)
			assert.DeepEqual(t, titles(res), tc.want)
		})
	}
}

func TestIssueNumbersAreSharedWithPullRequests(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 5, HeadSHA: "abc"})
	seeded := srv.AddIssue(githubtest.Issue{Owner: "o", Repo: "r", Title: "seeded"})
	assert.Equal(t, seeded.Number, 6)

	res := do(t, srv, http.MethodPost, "/repos/o/r/issues", `{"title":"Drift detected","body":"details","labels":["cdkd-drift",{"name":"infra"}]}`)
	assert.Equal(t, res.Status, http.StatusCreated, res.Body)
	var created struct {
		Number  int
		HTMLURL string `json:"html_url"`
		User    struct{ Login string }
	}
	res.JSON(t, &created)
	assert.Equal(t, created.Number, 7)
	assert.Equal(t, created.User.Login, githubtest.DefaultLogin)
	assert.Equal(t, created.HTMLURL, srv.URL+"/o/r/issues/7")

	// A pull request number is not an issue... but /pulls of an issue is 404.
	assert.Equal(t, do(t, srv, http.MethodGet, "/repos/o/r/pulls/7", "").Status, http.StatusNotFound)

	res = do(t, srv, http.MethodPatch, "/repos/o/r/issues/7", `{"state":"closed","labels":[],"title":"Drift resolved"}`)
	assert.Equal(t, res.Status, http.StatusOK, res.Body)
	issues := srv.Issues()
	assert.Assert(t, is.Len(issues, 2))
	got := issues[1]
	assert.Equal(t, got.Title, "Drift resolved")
	assert.Equal(t, got.Body, "details")
	assert.Equal(t, got.State, "closed")
	assert.Equal(t, got.StateReason, "completed")
	assert.Assert(t, !got.ClosedAt.IsZero())
	assert.Assert(t, is.Len(got.Labels, 0))
}

func TestCommentsLifecycleAndIdentity(t *testing.T) {
	srv := githubtest.New(t)
	srv.Tokens["app-token"] = "cdkd-app[bot]"
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 3, HeadSHA: "abc"})
	human := srv.SeedComments("o", "r", 3, "alice", "LGTM")

	res := doAs(t, srv, "app-token", http.MethodPost, srv.APIURL()+"/repos/o/r/issues/3/comments", `{"body":"plan"}`)
	assert.Equal(t, res.Status, http.StatusCreated, res.Body)
	var c struct {
		ID        int64
		HTMLURL   string `json:"html_url"`
		CreatedAt string `json:"created_at"`
		User      struct{ Login, Type string }
	}
	res.JSON(t, &c)
	assert.Equal(t, c.User.Login, "cdkd-app[bot]")
	assert.Equal(t, c.User.Type, "Bot")
	assert.Equal(t, c.HTMLURL, fmt.Sprintf("%s/o/r/pull/3#issuecomment-%d", srv.URL, c.ID))
	assert.Assert(t, c.CreatedAt != "")

	// Editing someone else's comment is refused, as for an integration.
	res = doAs(t, srv, "app-token", http.MethodPatch, fmt.Sprintf("%s/repos/o/r/issues/comments/%d", srv.APIURL(), human[0].ID), `{"body":"x"}`)
	assert.Equal(t, res.Status, http.StatusForbidden)

	res = doAs(t, srv, "app-token", http.MethodPatch, fmt.Sprintf("%s/repos/o/r/issues/comments/%d", srv.APIURL(), c.ID), `{"body":"plan v2"}`)
	assert.Equal(t, res.Status, http.StatusOK, res.Body)
	got := srv.Comments("o", "r", 3)
	assert.Assert(t, is.Len(got, 2))
	assert.Equal(t, got[1].Body, "plan v2")
	assert.Assert(t, got[1].UpdatedAt.After(got[1].CreatedAt))

	res = doAs(t, srv, "app-token", http.MethodDelete, fmt.Sprintf("%s/repos/o/r/issues/comments/%d", srv.APIURL(), c.ID), "")
	assert.Equal(t, res.Status, http.StatusNoContent)
	assert.Assert(t, is.Len(srv.Comments("o", "r", 3), 1))
	res = doAs(t, srv, "app-token", http.MethodDelete, fmt.Sprintf("%s/repos/o/r/issues/comments/%d", srv.APIURL(), c.ID), "")
	assert.Equal(t, res.Status, http.StatusNotFound)

	// Commenting on an issue that does not exist.
	assert.Equal(t, do(t, srv, http.MethodPost, "/repos/o/r/issues/99/comments", `{"body":"x"}`).Status, http.StatusNotFound)
}

func TestGetUser(t *testing.T) {
	tests := []struct {
		name       string
		opts       []githubtest.Option
		forbid     bool
		token      string
		wantStatus int
		wantBody   string
	}{
		{name: "default identity", token: "tok", wantStatus: 200, wantBody: `"login":"github-actions[bot]"`},
		{name: "mapped token", token: "pat", wantStatus: 200, wantBody: `"login":"deployer"`},
		{name: "GITHUB_TOKEN cannot read /user", forbid: true, token: "tok", wantStatus: 403, wantBody: `"message":"Resource not accessible by integration"`},
		{name: "no token", token: "-", wantStatus: 401, wantBody: "Requires authentication"},
		{name: "unknown token without default", opts: []githubtest.Option{githubtest.WithDefaultLogin("")}, token: "tok", wantStatus: 401, wantBody: "Bad credentials"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := githubtest.New(t, tc.opts...)
			srv.SetToken("pat", "deployer")
			srv.ForbidGetUser = tc.forbid
			res := doAs(t, srv, tc.token, http.MethodGet, srv.APIURL()+"/user", "")
			assert.Equal(t, res.Status, tc.wantStatus, res.Body)
			assert.Assert(t, is.Contains(res.Body, tc.wantBody))
		})
	}
}

func TestPullRequests(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Number: 10, HeadSHA: "head10", MergeCommitSHA: "merge10", Merged: true, Labels: []string{"deploy"}})
	srv.AddPullRequest(githubtest.PR{Number: 11, HeadSHA: "head11", MergeCommitSHA: "test-merge11"})
	owner, repo := githubtest.DefaultOwner, githubtest.DefaultRepo

	res := do(t, srv, http.MethodGet, fmt.Sprintf("/repos/%s/%s/pulls/10", owner, repo), "")
	assert.Equal(t, res.Status, http.StatusOK, res.Body)
	var pr struct {
		Number         int
		State          string
		Merged         bool
		MergeCommitSHA string `json:"merge_commit_sha"`
		Head           struct{ SHA, Ref string }
		Base           struct{ Ref string }
		Labels         []struct{ Name string }
	}
	res.JSON(t, &pr)
	assert.Equal(t, pr.State, "closed")
	assert.Assert(t, pr.Merged)
	assert.Equal(t, pr.MergeCommitSHA, "merge10")
	assert.Equal(t, pr.Head.SHA, "head10")
	assert.Equal(t, pr.Head.Ref, "feature-10")
	assert.Equal(t, pr.Base.Ref, "main")
	assert.Equal(t, pr.Labels[0].Name, "deploy")

	numbers := func(sha string) []int {
		res := do(t, srv, http.MethodGet, fmt.Sprintf("/repos/%s/%s/commits/%s/pulls", owner, repo, sha), "")
		assert.Equal(t, res.Status, http.StatusOK, res.Body)
		var prs []struct{ Number int }
		res.JSON(t, &prs)
		var out []int
		for _, p := range prs {
			out = append(out, p.Number)
		}
		return out
	}
	assert.DeepEqual(t, numbers("merge10"), []int{10})
	assert.DeepEqual(t, numbers("head11"), []int{11})
	// An unmerged PR's test-merge commit is not on the base branch.
	assert.Assert(t, is.Len(numbers("test-merge11"), 0))
	assert.Assert(t, is.Len(numbers("unknown"), 0))
	assert.Equal(t, do(t, srv, http.MethodGet, fmt.Sprintf("/repos/%s/%s/pulls/12", owner, repo), "").Status, http.StatusNotFound)
}

func TestPushToPullRequest(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 3, HeadSHA: "old"})
	srv.PushToPullRequest("o", "r", 3, "new")
	var pr struct {
		Head struct{ SHA string }
	}
	do(t, srv, http.MethodGet, "/repos/o/r/pulls/3", "").JSON(t, &pr)
	assert.Equal(t, pr.Head.SHA, "new")
}

func TestEditCommentKeepsTheAuthor(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 3})
	c := srv.SeedComments("o", "r", 3, "bot[bot]", "original")[0]
	edited := srv.EditComment("o", "r", c.ID, "edited")
	assert.Equal(t, edited.Login, "bot[bot]")
	var got []struct {
		Body string
		User struct{ Login string }
	}
	do(t, srv, http.MethodGet, "/repos/o/r/issues/3/comments", "").JSON(t, &got)
	assert.Equal(t, got[0].Body, "edited")
	assert.Equal(t, got[0].User.Login, "bot[bot]")
}

func TestCheckRunLifecycle(t *testing.T) {
	srv, tb := newCaptured(t)
	annotations := func(n int) []map[string]any {
		var out []map[string]any
		for i := 0; i < n; i++ {
			out = append(out, map[string]any{"path": "cdk.out/Stack.template.json", "start_line": i + 1, "end_line": i + 1, "annotation_level": "warning", "message": "replacement"})
		}
		return out
	}
	res := do(t, srv, http.MethodPost, "/repos/o/r/check-runs", mustJSON(t, map[string]any{
		"name": "cdkd diff", "head_sha": "abc", "status": "in_progress", "details_url": "https://ci.example/run/1",
		"output": map[string]any{"title": "Planning", "summary": "running", "annotations": annotations(50)},
	}))
	assert.Equal(t, res.Status, http.StatusCreated, res.Body)
	var created struct {
		ID      int64
		HTMLURL string `json:"html_url"`
		Status  string
	}
	res.JSON(t, &created)
	assert.Equal(t, created.Status, "in_progress")
	assert.Equal(t, created.HTMLURL, fmt.Sprintf("%s/o/r/runs/%d", srv.URL, created.ID))

	res = do(t, srv, http.MethodPatch, fmt.Sprintf("/repos/o/r/check-runs/%d", created.ID), mustJSON(t, map[string]any{
		"conclusion": "neutral",
		"output":     map[string]any{"title": "2 to replace", "summary": "summary", "text": "details", "annotations": annotations(10)},
	}))
	assert.Equal(t, res.Status, http.StatusOK, res.Body)
	assert.Assert(t, is.Contains(res.Body, `"annotations_count":60`))

	runs := srv.CheckRuns()
	assert.Assert(t, is.Len(runs, 1))
	cr := runs[0]
	assert.Equal(t, cr.Name, "cdkd diff")
	assert.Equal(t, cr.HeadSHA, "abc")
	assert.Equal(t, cr.Status, "completed")
	assert.Equal(t, cr.Conclusion, "neutral")
	assert.Equal(t, cr.DetailsURL, "https://ci.example/run/1")
	assert.Equal(t, cr.Output, githubtest.CheckRunOutput{Title: "2 to replace", Summary: "summary", Text: "details"})
	assert.Assert(t, is.Len(cr.Annotations, 60))
	assert.Equal(t, cr.Annotations[59].StartLine, 10)
	assert.Equal(t, cr.Login, githubtest.DefaultLogin)
	assert.Equal(t, cr.Updates, 1)
	assert.Assert(t, !cr.StartedAt.IsZero() && cr.CompletedAt.After(cr.StartedAt))
	assert.Assert(t, is.Len(tb.Errors(), 0))

	// Another repository's check run ID is not found.
	assert.Equal(t, do(t, srv, http.MethodPatch, fmt.Sprintf("/repos/o/other/check-runs/%d", created.ID), `{"name":"x"}`).Status, http.StatusNotFound)
}

func TestListCheckRunsForRef(t *testing.T) {
	srv := githubtest.New(t)
	srv.SetToken("app-token", "deployer[bot]")
	const sha = "0123456789abcdef0123456789abcdef01234567"
	create := func(token, name, headSHA string) int64 {
		t.Helper()
		res := doAs(t, srv, token, http.MethodPost, srv.APIURL()+"/repos/o/r/check-runs",
			mustJSON(t, map[string]any{"name": name, "head_sha": headSHA, "conclusion": "success", "external_id": fmt.Sprint(name, "@", headSHA)}))
		assert.Equal(t, res.Status, http.StatusCreated, res.Body)
		var cr struct{ ID int64 }
		res.JSON(t, &cr)
		return cr.ID
	}
	first := create("tok", "cdkd diff", sha)
	create("tok", "cdkd deploy", sha)
	create("tok", "cdkd diff", "fedcba9876543210fedcba9876543210fedcba98")
	second := create("app-token", "cdkd diff", sha)
	third := create("tok", "cdkd diff", sha)

	type listed struct {
		Total     int `json:"total_count"`
		CheckRuns []struct {
			ID         int64
			Name       string
			HeadSHA    string `json:"head_sha"`
			ExternalID string `json:"external_id"`
			App        struct{ Slug string }
		} `json:"check_runs"`
	}
	list := func(query string) (listed, http.Header) {
		t.Helper()
		res := do(t, srv, http.MethodGet, "/repos/o/r/commits/"+sha+"/check-runs?"+query, "")
		assert.Equal(t, res.Status, http.StatusOK, res.Body)
		var l listed
		res.JSON(t, &l)
		return l, res.Header
	}
	ids := func(l listed) []int64 {
		var out []int64
		for _, cr := range l.CheckRuns {
			out = append(out, cr.ID)
		}
		return out
	}

	all, _ := list("check_name=cdkd+diff&filter=all")
	assert.Equal(t, all.Total, 3)
	assert.DeepEqual(t, ids(all), []int64{third, second, first}) // newest first
	assert.Equal(t, all.CheckRuns[0].ExternalID, "cdkd diff@"+sha)
	assert.Equal(t, all.CheckRuns[0].App.Slug, "github-actions")
	assert.Equal(t, all.CheckRuns[1].App.Slug, "deployer")

	latest, _ := list("") // GitHub's default: the newest run of each name
	assert.Equal(t, latest.Total, 2)
	assert.DeepEqual(t, []string{latest.CheckRuns[0].Name, latest.CheckRuns[1].Name}, []string{"cdkd diff", "cdkd deploy"})
	assert.Equal(t, latest.CheckRuns[0].ID, third)

	page1, header := list("check_name=cdkd+diff&filter=all&per_page=2")
	assert.DeepEqual(t, ids(page1), []int64{third, second})
	assert.Equal(t, page1.Total, 3)
	assert.Assert(t, is.Contains(header.Get("Link"), `rel="next"`))
	page2, header := list("check_name=cdkd+diff&filter=all&per_page=2&page=2")
	assert.DeepEqual(t, ids(page2), []int64{first})
	assert.Assert(t, !strings.Contains(header.Get("Link"), `rel="next"`))

	none, _ := list("check_name=cdkd+drift")
	assert.Equal(t, none.Total, 0)
	assert.Assert(t, none.CheckRuns != nil, "an empty list, not null")
	other := do(t, srv, http.MethodGet, "/repos/o/other/commits/"+sha+"/check-runs", "")
	assert.Assert(t, is.Contains(other.Body, `"total_count":0`))
}

func TestLimits(t *testing.T) {
	twoByte := func(n int) string { return strings.Repeat("é", n) } // 2 bytes, 1 character each
	checkRun := func(output map[string]any) string {
		return mustJSON(t, map[string]any{"name": "n", "head_sha": "abc", "output": output})
	}
	annotations := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"path": "p", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "m"}
		}
		return out
	}
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		wantStatus int
		wantBody   string // substring of the response
	}{
		{"comment of 65,536 characters", "POST", "/repos/o/r/issues/1/comments", mustJSON(t, map[string]string{"body": twoByte(65536)}), 201, ""},
		{"comment of 65,537 characters", "POST", "/repos/o/r/issues/1/comments", mustJSON(t, map[string]string{"body": twoByte(65537)}), 422, "Body is too long (maximum is 65536 characters)"},
		{"comment edit too long", "PATCH", "/repos/o/r/issues/comments/100001", mustJSON(t, map[string]string{"body": strings.Repeat("x", 65537)}), 422, "Body is too long"},
		{"blank comment", "POST", "/repos/o/r/issues/1/comments", `{"body":"  "}`, 422, "Body cannot be blank"},
		{"issue body too long", "POST", "/repos/o/r/issues", mustJSON(t, map[string]string{"title": "t", "body": strings.Repeat("x", 65537)}), 422, "Body is too long"},
		{"summary of 65,535 bytes", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"title": "t", "summary": strings.Repeat("x", 65535)}), 201, ""},
		{"summary of 65,536 ASCII bytes", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"title": "t", "summary": strings.Repeat("x", 65536)}), 422, "Invalid request."},
		{"summary under 65,535 characters but over 65,535 bytes", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"title": "t", "summary": twoByte(33000)}), 422, "Only 65535 characters are allowed; 66000 were supplied"},
		{"text over 65,535 bytes", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"title": "t", "summary": "s", "text": twoByte(40000)}), 422, "output.text"},
		{"50 annotations", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"title": "t", "summary": "s", "annotations": annotations(50)}), 201, ""},
		{"51 annotations", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"title": "t", "summary": "s", "annotations": annotations(51)}), 422, "Invalid request."},
		{"output without title on create", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"summary": "s"}), 422, "title"},
		{"output without title on update", "PATCH", "/repos/o/r/check-runs/200001", `{"output":{"summary":"s"}}`, 422, `\"title\" wasn't supplied`},
		{"completed without conclusion", "POST", "/repos/o/r/check-runs", `{"name":"n","head_sha":"abc","status":"completed"}`, 422, "conclusion"},
		{"stale conclusion", "PATCH", "/repos/o/r/check-runs/200001", `{"conclusion":"stale"}`, 422, "stale"},
		{"columns across lines", "POST", "/repos/o/r/check-runs", checkRun(map[string]any{"title": "t", "summary": "s", "annotations": []map[string]any{
			{"path": "p", "start_line": 1, "end_line": 2, "start_column": 1, "end_column": 3, "annotation_level": "notice", "message": "m"}}}), 422, "start_column"},
		{"deployment status description over 140 characters", "POST", "/repos/o/r/deployments/300001/statuses", mustJSON(t, map[string]string{"state": "success", "description": strings.Repeat("d", 141)}), 422, "Description is too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, tb := newCaptured(t)
			srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1, HeadSHA: "abc"})
			srv.SeedComments("o", "r", 1, githubtest.DefaultLogin, "mine")                                            // 100001
			assert.Equal(t, do(t, srv, "POST", "/repos/o/r/check-runs", `{"name":"n","head_sha":"abc"}`).Status, 201) // 200001
			assert.Equal(t, do(t, srv, "POST", "/repos/o/r/deployments", `{"ref":"main"}`).Status, 201)               // 300001

			res := do(t, srv, tc.method, tc.path, tc.body)
			assert.Equal(t, res.Status, tc.wantStatus, "%.300s", res.Body)
			assert.Assert(t, is.Contains(res.Body, tc.wantBody))
			if tc.wantStatus == 422 {
				assert.Assert(t, is.Len(tb.Errors(), 1), "an over-limit request must fail the test")
			} else {
				assert.Assert(t, is.Len(tb.Errors(), 0))
			}
		})
	}
}

func TestFaultInjection(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1, HeadSHA: "abc"})

	srv.FailNext(2, http.StatusBadGateway, nil, "")
	r1 := do(t, srv, http.MethodGet, "/repos/o/r/pulls/1", "")
	r2 := do(t, srv, http.MethodPost, "/repos/o/r/issues/1/comments", `{"body":"x"}`)
	r3 := do(t, srv, http.MethodPost, "/repos/o/r/issues/1/comments", `{"body":"x"}`)
	assert.Equal(t, r1.Status, http.StatusBadGateway)
	assert.Equal(t, r1.Body, `{"message":"Bad Gateway"}`)
	assert.Equal(t, r2.Status, http.StatusBadGateway)
	assert.Equal(t, r3.Status, http.StatusCreated)
	assert.Assert(t, is.Len(srv.Comments("o", "r", 1), 1), "a failed write must not be applied")

	srv.FailNext(1, http.StatusTooManyRequests, map[string]string{"Retry-After": "0"}, `{"message":"slow down"}`)
	r4 := do(t, srv, http.MethodGet, "/repos/o/r/pulls/1", "")
	assert.Equal(t, r4.Status, http.StatusTooManyRequests)
	assert.Equal(t, r4.Header.Get("Retry-After"), "0")
	assert.Equal(t, r4.Body, `{"message":"slow down"}`)

	// A fault aimed at one operation leaves others alone.
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateCheckRun, Status: http.StatusForbidden,
		Headers: map[string]string{"Retry-After": "1"}, Body: `{"message":"You have exceeded a secondary rate limit."}`})
	assert.Equal(t, do(t, srv, http.MethodGet, "/repos/o/r/pulls/1", "").Status, http.StatusOK)
	r5 := do(t, srv, http.MethodPost, "/repos/o/r/check-runs", `{"name":"n","head_sha":"abc"}`)
	assert.Equal(t, r5.Status, http.StatusForbidden)
	assert.Assert(t, is.Contains(r5.Body, "secondary rate limit"))
	assert.Equal(t, do(t, srv, http.MethodPost, "/repos/o/r/check-runs", `{"name":"n","head_sha":"abc"}`).Status, http.StatusCreated)

	var statuses []int
	for _, r := range srv.Requests() {
		statuses = append(statuses, r.Status)
	}
	assert.DeepEqual(t, statuses, []int{502, 502, 201, 429, 200, 403, 201})
	assert.Equal(t, srv.Writes(), 4)
}

func TestPermissionDenial(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1, HeadSHA: "abc"})
	srv.DenyWrites = true
	res := do(t, srv, http.MethodPost, "/repos/o/r/issues/1/comments", `{"body":"x"}`)
	assert.Equal(t, res.Status, http.StatusForbidden)
	assert.Assert(t, is.Contains(res.Body, "Resource not accessible by integration"))
	assert.Equal(t, res.Header.Get("X-Accepted-GitHub-Permissions"), "issues=write; pull_requests=write")
	assert.Equal(t, do(t, srv, http.MethodGet, "/repos/o/r/pulls/1", "").Status, http.StatusOK)
	assert.Assert(t, is.Len(srv.Comments("o", "r", 1), 0))

	srv.DenyWrites = false
	srv.Deny(githubtest.OpCreateCheckRun)
	assert.Equal(t, do(t, srv, http.MethodPost, "/repos/o/r/check-runs", `{"name":"n","head_sha":"abc"}`).Status, http.StatusForbidden)
	assert.Equal(t, do(t, srv, http.MethodPost, "/repos/o/r/issues/1/comments", `{"body":"x"}`).Status, http.StatusCreated)

	// Writes need a token at all.
	res = doAs(t, srv, "-", http.MethodPost, srv.APIURL()+"/repos/o/r/issues/1/comments", `{"body":"x"}`)
	assert.Equal(t, res.Status, http.StatusUnauthorized)
}

func TestDeployments(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1, HeadSHA: "1111111111111111111111111111111111111111", HeadRef: "release"})

	create := func(body string) int64 {
		t.Helper()
		res := do(t, srv, http.MethodPost, "/repos/o/r/deployments", body)
		assert.Equal(t, res.Status, http.StatusCreated, res.Body)
		var d struct{ ID int64 }
		res.JSON(t, &d)
		return d.ID
	}
	status := func(id int64, body string) {
		t.Helper()
		res := do(t, srv, http.MethodPost, fmt.Sprintf("/repos/o/r/deployments/%d/statuses", id), body)
		assert.Equal(t, res.Status, http.StatusCreated, res.Body)
	}
	first := create(`{"ref":"release","environment":"staging","auto_merge":false,"required_contexts":[],"payload":{"stack":"App"}}`)
	status(first, `{"state":"in_progress","log_url":"https://ci.example/1"}`)
	status(first, `{"state":"success","environment_url":"https://staging.example"}`)
	second := create(`{"ref":"release","environment":"staging","auto_merge":false,"required_contexts":[]}`)
	status(second, `{"state":"success"}`)

	ds := srv.Deployments()
	assert.Assert(t, is.Len(ds, 2))
	d := ds[0]
	assert.Equal(t, d.SHA, "1111111111111111111111111111111111111111")
	assert.Equal(t, d.Environment, "staging")
	assert.Assert(t, !d.ProductionEnvironment && !d.AutoMerge)
	assert.DeepEqual(t, d.RequiredContexts, []string{})
	assert.Equal(t, string(d.Payload), `{"stack":"App"}`)
	var states []string
	for _, s := range d.Statuses {
		states = append(states, s.State)
	}
	assert.DeepEqual(t, states, []string{"in_progress", "success", "inactive"})
	assert.Equal(t, d.Statuses[0].TargetURL, "https://ci.example/1")
	assert.Assert(t, d.Statuses[2].AutoInactive)

	assert.Equal(t, do(t, srv, http.MethodPost, "/repos/o/r/deployments/1/statuses", `{"state":"success"}`).Status, http.StatusNotFound)
}

func TestBasePath(t *testing.T) {
	t.Run("API at the root, as api.github.com", func(t *testing.T) {
		srv := githubtest.New(t, githubtest.WithBasePath(""))
		assert.Equal(t, srv.APIURL(), srv.URL)
		assert.Equal(t, do(t, srv, http.MethodGet, "/user", "").Status, http.StatusOK)
		assert.Equal(t, srv.Requests()[0].Path, "/user")
	})
	t.Run("a path that only starts like the base", func(t *testing.T) {
		srv, tb := newCaptured(t)
		res := doAs(t, srv, "tok", http.MethodGet, srv.URL+"/api/v3user", "")
		assert.Equal(t, res.Status, http.StatusNotFound)
		assert.Assert(t, is.Len(tb.Errors(), 1))
	})
}

func TestConcurrentRequests(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1})
	const workers, each = 4, 10
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			// No t.FailNow off the test goroutine: report errors instead.
			for i := 0; i < each; i++ {
				for _, req := range []struct{ method, path, body string }{
					{http.MethodPost, "/repos/o/r/issues/1/comments", `{"body":"x"}`},
					{http.MethodGet, "/repos/o/r/issues/1/comments?per_page=100", ""},
				} {
					r, err := http.NewRequest(req.method, srv.APIURL()+req.path, strings.NewReader(req.body))
					if err != nil {
						errs <- err
						return
					}
					r.Header.Set("Authorization", "Bearer tok")
					resp, err := srv.Client().Do(r)
					if err != nil {
						errs <- err
						return
					}
					resp.Body.Close()
					if resp.StatusCode >= 300 {
						errs <- fmt.Errorf("%s %s: %s", req.method, req.path, resp.Status)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		assert.NilError(t, <-errs)
	}
	comments := srv.Comments("o", "r", 1)
	assert.Assert(t, is.Len(comments, workers*each))
	seen := map[int64]bool{}
	for _, c := range comments {
		assert.Assert(t, !seen[c.ID], "duplicate ID %d", c.ID)
		seen[c.ID] = true
	}
	assert.Equal(t, len(srv.Requests()), 2*workers*each)
	assert.Equal(t, srv.Writes(), workers*each)
}
