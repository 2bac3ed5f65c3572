package github

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestDeployments(t *testing.T) {
	long := strings.Repeat("é", 150)
	c, _ := newTestClient(t, []call{
		{method: "POST", path: "repos/o/r/deployments", status: http.StatusCreated, resp: `{"id":42}`,
			body: `{"ref":"m1","auto_merge":false,"required_contexts":[],"environment":"prod","description":"cdkd deploy"}`},
		{method: "POST", path: "repos/o/r/deployments", status: http.StatusCreated, resp: `{"id":43}`,
			body: `{"ref":"m1","auto_merge":false,"required_contexts":["ci"]}`},
		{method: "POST", path: "repos/o/r/deployments/42/statuses", status: http.StatusCreated, resp: `{"id":1}`,
			body: `{"state":"success","environment_url":"https://app.example.com","log_url":"https://github.com/o/r/actions/runs/1","description":"deployed"}`},
		{method: "POST", path: "repos/o/r/deployments/42/statuses", status: http.StatusCreated, resp: `{"id":2}`,
			body: `{"state":"failure","description":"` + strings.Repeat("é", 139) + `…"}`},
		{method: "POST", path: "repos/o/r/deployments", status: http.StatusConflict,
			body: `{"ref":"m2","auto_merge":false,"required_contexts":[],"environment":"prod"}`,
			resp: `{"message":"Conflict: Commit status checks failed for m2."}`},
	})
	ctx := context.Background()

	id, err := c.CreateDeployment(ctx, "o", "r", DeploymentRequest{Ref: "m1", Environment: "prod", Description: "cdkd deploy"})
	assert.NilError(t, err)
	assert.Equal(t, id, int64(42))

	id, err = c.CreateDeployment(ctx, "o", "r", DeploymentRequest{Ref: "m1", RequiredContexts: []string{"ci"}})
	assert.NilError(t, err)
	assert.Equal(t, id, int64(43))

	assert.NilError(t, c.CreateDeploymentStatus(ctx, "o", "r", 42, "success",
		"https://app.example.com", "https://github.com/o/r/actions/runs/1", "deployed"))
	assert.NilError(t, c.CreateDeploymentStatus(ctx, "o", "r", 42, "failure", "", "", long))

	_, err = c.CreateDeployment(ctx, "o", "r", DeploymentRequest{Ref: "m2", Environment: "prod"})
	assert.ErrorContains(t, err, `create deployment of m2 to "prod" in o/r: `)
}
