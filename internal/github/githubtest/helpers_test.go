package githubtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// captureTB records Errorf calls instead of failing, so tests can assert that
// the server reports invalid requests. Everything else goes to the real T.
type captureTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (c *captureTB) Helper() {}

func (c *captureTB) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *captureTB) Errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errs...)
}

// newCaptured starts a server whose reports land in the returned captureTB.
func newCaptured(t *testing.T, opts ...githubtest.Option) (*githubtest.Server, *captureTB) {
	t.Helper()
	tb := &captureTB{TB: t}
	return githubtest.New(tb, opts...), tb
}

type result struct {
	Status int
	Header http.Header
	Body   string
}

// JSON decodes the body into v.
func (r result) JSON(t *testing.T, v any) {
	t.Helper()
	assert.NilError(t, json.Unmarshal([]byte(r.Body), v), r.Body)
}

// do sends method path (relative to the API base) with token "tok" unless
// token is "-" (no Authorization header).
func do(t *testing.T, srv *githubtest.Server, method, path, body string) result {
	t.Helper()
	return doAs(t, srv, "tok", method, srv.APIURL()+path, body)
}

func doAs(t *testing.T, srv *githubtest.Server, token, method, url, body string) result {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	assert.NilError(t, err)
	if token != "-" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	assert.NilError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	assert.NilError(t, err)
	return result{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	return string(b)
}
