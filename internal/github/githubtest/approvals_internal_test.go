package githubtest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"gotest.tools/v3/assert"
)

// The approval reads (and the reviews and label events they start from)
// answer as GitHub's description says they do: each response validates
// against the vendored schema of its operation.
func TestApprovalResponsesMatchTheSchema(t *testing.T) {
	srv := New(t)
	srv.AddPullRequest(PR{Number: 7, HeadSHA: "1111111111111111111111111111111111111111", HeadRef: "feature"})
	srv.SetPermission("", "", "maria", "maintain")
	srv.PushAs("", "", 7, "2222222222222222222222222222222222222222", "mallory")
	srv.SetAutoMerge("", "", 7, true, "dave", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	srv.AddLabelEvent("", "", 7, "security-approved", "carol", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	srv.ReviewPullRequest("", "", 7, Review{Login: "eve", State: "APPROVED", AuthorAssociation: "NONE"})
	spec, err := loadSpec()
	assert.NilError(t, err)
	for _, path := range []string{
		"/repos/" + DefaultOwner + "/" + DefaultRepo + "/collaborators/maria/permission",
		"/repos/" + DefaultOwner + "/" + DefaultRepo + "/collaborators/stranger/permission",
		"/repos/" + DefaultOwner + "/" + DefaultRepo + "/activity?ref=refs/heads/feature",
		"/repos/" + DefaultOwner + "/" + DefaultRepo + "/issues/7/timeline",
		"/repos/" + DefaultOwner + "/" + DefaultRepo + "/pulls/7/reviews",
		"/repos/" + DefaultOwner + "/" + DefaultRepo + "/issues/7/events",
	} {
		req, err := http.NewRequest(http.MethodGet, srv.APIURL()+path, nil)
		assert.NilError(t, err)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := srv.Client().Do(req)
		assert.NilError(t, err)
		body, err := io.ReadAll(resp.Body)
		assert.NilError(t, err)
		assert.NilError(t, resp.Body.Close())
		assert.Equal(t, resp.StatusCode, http.StatusOK, "%s: %s", path, body)

		routed, err := http.NewRequest(http.MethodGet, path, nil)
		assert.NilError(t, err)
		route, params, err := spec.match(routed)
		assert.NilError(t, err, path)
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: routed, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
			Status: resp.StatusCode, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(body)),
			Options: &openapi3filter.Options{MultiError: true},
		}
		err = openapi3filter.ValidateResponse(context.Background(), in)
		assert.NilError(t, err, "%s: the response does not match GitHub's schema: %s", path, body)
	}
}
