package github

import (
	"context"
	"errors"
	"testing"

	"gotest.tools/v3/assert"
)

func TestAuthenticatedLogin(t *testing.T) {
	tests := []struct {
		name       string
		calls      []call
		want       string
		err        string
		noIdentity bool
	}{
		{
			name:  "user token",
			calls: []call{{method: "GET", path: "user", resp: `{"login":"octocat","id":1}`}},
			want:  "octocat",
		},
		{
			name: "GITHUB_TOKEN cannot read /user",
			calls: []call{{method: "GET", path: "user", status: 403,
				resp: `{"message":"Resource not accessible by integration"}`}},
			err:        "get authenticated user: token has no user identity: ",
			noIdentity: true,
		},
		{
			name:  "bad credentials are a real failure",
			calls: []call{{method: "GET", path: "user", status: 401, resp: `{"message":"Bad credentials"}`}},
			err:   "get authenticated user: ",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, tc.calls)
			got, err := c.AuthenticatedLogin(context.Background())
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
			} else {
				assert.NilError(t, err)
			}
			assert.Equal(t, got, tc.want)
			assert.Equal(t, errors.Is(err, ErrNoIdentity), tc.noIdentity)
		})
	}
}
