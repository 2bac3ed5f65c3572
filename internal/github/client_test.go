package github

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestNewClientBaseURL(t *testing.T) {
	tests := []struct {
		name, apiURL, want, err string
		token                   string
	}{
		{name: "default", apiURL: "", want: "https://api.github.com/"},
		{name: "github.com", apiURL: "https://api.github.com", want: "https://api.github.com/"},
		{name: "GHES", apiURL: "https://ghes.example.com/api/v3", want: "https://ghes.example.com/api/v3/"},
		{name: "GHES with slash", apiURL: "https://ghes.example.com/api/v3/", want: "https://ghes.example.com/api/v3/"},
		{name: "test server base path kept", apiURL: "http://127.0.0.1:8080/base", want: "http://127.0.0.1:8080/base/"},
		{name: "not absolute", apiURL: "api.github.com", err: `API URL "api.github.com" is not an absolute http(s) URL`},
		{name: "wrong scheme", apiURL: "ftp://example.com/", err: `API URL "ftp://example.com/" is not an absolute http(s) URL`},
		{name: "query", apiURL: "https://example.com/?x=1", err: "must not have a query"},
		{name: "no token", token: "-", err: "token is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			token := "tok"
			if tc.token == "-" {
				token = ""
			}
			c, err := NewClient(token, tc.apiURL)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, c.gh.BaseURL.String(), tc.want)
		})
	}
}
