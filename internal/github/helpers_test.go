package github

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// basePath is where the fake API lives, as on GHES: a client that builds
// absolute paths ("/repos/...") instead of relative ones misses it.
const basePath = "/api/v3/"

const testToken = "test-token"

// clock is the fixed "now" of every test client.
var clock = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// call is one expected request and the answer to it. Path and query are
// relative to the base path and must match exactly; body, when set, must be
// JSON equal to the request body (and an empty body means no body).
type call struct {
	method string
	path   string
	query  string
	body   string

	status int
	header map[string]string // "{{BASE}}" is replaced by the server's base URL
	resp   string
}

// fakeAPI serves a fixed sequence of calls, in order, and fails the test on
// any other request and on any call left unserved.
type fakeAPI struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	calls []call
	next  int
}

func (f *fakeAPI) base() string { return f.srv.URL + basePath }

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := f.t
	body, err := io.ReadAll(r.Body)
	assert.Check(t, err)
	f.mu.Lock()
	i := f.next
	f.next++
	f.mu.Unlock()

	got := r.Method + " " + r.URL.RequestURI()
	if i >= len(f.calls) {
		t.Errorf("unexpected request %d: %s %s", i+1, got, body)
		w.WriteHeader(http.StatusTeapot)
		return
	}
	c := f.calls[i]
	want := c.method + " " + basePath + c.path
	if c.query != "" {
		want += "?" + c.query
	}
	if !assert.Check(t, got == want, "request %d: got %s, want %s", i+1, got, want) {
		w.WriteHeader(http.StatusTeapot)
		return
	}
	assert.Check(t, r.Header.Get("Authorization") == "Bearer "+testToken, "request %d: Authorization header", i+1)
	checkJSON(t, i+1, c.body, body)

	for k, v := range c.header {
		w.Header().Set(k, strings.ReplaceAll(v, "{{BASE}}", f.base()))
	}
	if c.resp != "" {
		w.Header().Set("Content-Type", "application/json")
	}
	status := c.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, c.resp)
}

func checkJSON(t *testing.T, n int, want string, got []byte) {
	t.Helper()
	if want == "" {
		assert.Check(t, len(got) == 0, "request %d: unexpected body %s", n, got)
		return
	}
	var w, g any
	assert.NilError(t, json.Unmarshal([]byte(want), &w), "request %d: bad expected body", n)
	if !assert.Check(t, json.Unmarshal(got, &g), "request %d: body %q", n, got) {
		return
	}
	assert.Check(t, jsonEqual(w, g), "request %d body:\n got: %s\nwant: %s", n, got, want)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// sleeps records the waits a client asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newTestClient starts a fake API expecting calls and a client for it that
// never sleeps and has no jitter.
func newTestClient(t *testing.T, calls []call, opts ...Option) (*Client, *sleeps) {
	t.Helper()
	f := &fakeAPI{t: t, calls: calls}
	f.srv = httptest.NewServer(f)
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.calls[min(f.next, len(f.calls)):] {
			t.Errorf("expected request never made: %s %s%s", c.method, basePath, c.path)
		}
	})
	s := &sleeps{}
	all := append([]Option{
		WithSleeper(s.sleep),
		withClock(func() time.Time { return clock }),
		withJitter(func(d time.Duration) time.Duration { return d }),
	}, opts...)
	c, err := NewClient(testToken, f.base(), all...)
	assert.NilError(t, err)
	return c, s
}

// nextLink is a Link header pointing at another page of path.
func nextLink(path string, page, last int) map[string]string {
	u := "{{BASE}}" + path + "?" + url.Values{"page": {strconv.Itoa(page)}, "per_page": {"100"}}.Encode()
	l := "{{BASE}}" + path + "?" + url.Values{"page": {strconv.Itoa(last)}, "per_page": {"100"}}.Encode()
	return map[string]string{"Link": `<` + u + `>; rel="next", <` + l + `>; rel="last"`}
}
