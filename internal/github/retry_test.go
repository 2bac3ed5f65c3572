package github

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

const (
	commentsPath = "repos/o/r/issues/7/comments"
	secondaryMsg = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
)

// post is the request retried in these tests: a POST, so that each attempt
// must carry the body again.
func post(status int, header map[string]string, resp string) call {
	return call{method: "POST", path: commentsPath, body: `{"body":"report"}`, status: status, header: header, resp: resp}
}

var created = post(http.StatusCreated, nil, commentJSON(1, "github-actions[bot]", "report"))

// patch is an edit: idempotent, so the transport itself resends it after a
// server error (a POST is resent only by createOnce, after a lookup).
func patch(status int, header map[string]string, resp string) call {
	return call{method: "PATCH", path: "repos/o/r/issues/comments/1", body: `{"body":"report"}`, status: status, header: header, resp: resp}
}

var edited = patch(http.StatusOK, nil, commentJSON(1, "github-actions[bot]", "report"))

// send makes the request the calls expect: an edit for PATCH, else a create.
func send(ctx context.Context, c *Client, calls []call) (Comment, error) {
	if len(calls) > 0 && calls[0].method == "PATCH" {
		return c.EditIssueComment(ctx, "o", "r", 1, "report")
	}
	return c.CreateIssueComment(ctx, "o", "r", 7, "report")
}

func unix(d time.Duration) string { return strconv.FormatInt(clock.Add(d).Unix(), 10) }

func TestRetries(t *testing.T) {
	primary := func(status int) call {
		return post(status, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": unix(30 * time.Second)},
			`{"message":"API rate limit exceeded for installation ID 1."}`)
	}
	tests := []struct {
		name  string
		calls []call
		waits []time.Duration
		err   string
		check func(*testing.T, error)
	}{
		{
			name:  "502 then success",
			calls: []call{patch(502, nil, "bad gateway"), edited},
			waits: []time.Duration{time.Second},
		},
		{
			name:  "5xx backs off exponentially",
			calls: []call{patch(500, nil, ""), patch(503, nil, ""), patch(504, nil, ""), edited},
			waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name:  "503 with Retry-After",
			calls: []call{patch(503, map[string]string{"Retry-After": "5"}, ""), edited},
			waits: []time.Duration{5 * time.Second},
		},
		{
			name:  "429 with Retry-After seconds",
			calls: []call{post(429, map[string]string{"Retry-After": "7"}, `{"message":"Too Many Requests"}`), created},
			waits: []time.Duration{7 * time.Second},
		},
		{
			name: "429 with Retry-After date",
			calls: []call{
				post(429, map[string]string{"Retry-After": clock.Add(12 * time.Second).Format(http.TimeFormat)}, ""),
				created,
			},
			waits: []time.Duration{12 * time.Second},
		},
		{
			name:  "429 without headers backs off",
			calls: []call{post(429, nil, ""), created},
			waits: []time.Duration{time.Second},
		},
		{
			name:  "secondary rate limit with Retry-After",
			calls: []call{post(403, map[string]string{"Retry-After": "3"}, secondaryMsg), created},
			waits: []time.Duration{3 * time.Second},
		},
		{
			name:  "secondary rate limit without headers waits a minute",
			calls: []call{post(403, nil, secondaryMsg), created},
			waits: []time.Duration{time.Minute},
		},
		{
			name:  "403 with Retry-After",
			calls: []call{post(403, map[string]string{"Retry-After": "2"}, `{"message":"slow down"}`), created},
			waits: []time.Duration{2 * time.Second},
		},
		{
			name:  "primary rate limit 403 waits for reset",
			calls: []call{primary(403), created},
			waits: []time.Duration{31 * time.Second},
		},
		{
			name:  "primary rate limit 429 waits for reset",
			calls: []call{primary(429), created},
			waits: []time.Duration{31 * time.Second},
		},
		{
			name: "gives up after max attempts",
			calls: []call{
				patch(502, nil, ""), patch(502, nil, ""), patch(502, nil, ""), patch(502, nil, ""),
				patch(502, nil, `{"message":"last one"}`),
			},
			waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second},
			err:   "502 last one",
		},
		{
			name: "gives up when the total wait would exceed the bound",
			calls: []call{
				post(429, map[string]string{"Retry-After": "400"}, ""),
				post(429, map[string]string{"Retry-After": "400"}, `{"message":"still limited"}`),
			},
			waits: []time.Duration{400 * time.Second},
			err:   "GitHub's rate limit: the request gave up after waiting 6m40s as GitHub asked: GitHub asked to wait 6m40s more, past the 10m0s a request may wait on rate limits (timeout-minutes, or 10m0s when it is 0); GitHub's answer: POST http://",
			check: func(t *testing.T, err error) { assert.Check(t, IsRateLimited(err)) },
		},
		{
			name: "primary reset beyond the bound is not waited for",
			calls: []call{post(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": unix(time.Hour)},
				`{"message":"API rate limit exceeded"}`)},
			err: "API rate limit exceeded",
			check: func(t *testing.T, err error) {
				assert.Check(t, IsRateLimited(err))
				assert.Check(t, !IsForbidden(err), "a rate limit must not degrade like a permission error")
			},
		},
		{
			name:  "secondary rate limit that persists is a rate limit, not forbidden",
			calls: []call{post(403, nil, secondaryMsg), post(403, nil, secondaryMsg), post(403, nil, secondaryMsg), post(403, nil, secondaryMsg)},
			// GitHub's advice: a minute, then exponentially longer, as long
			// as the rate-limit budget lasts (the next wait, 8m, would not fit).
			waits: []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute},
			err:   "GitHub's secondary rate limit: the request gave up after waiting 7m0s as GitHub asked: GitHub asked to wait 8m0s more",
			check: func(t *testing.T, err error) {
				assert.Check(t, IsRateLimited(err))
				assert.Check(t, !IsForbidden(err))
			},
		},
		{
			name:  "no retry on 404",
			calls: []call{post(404, nil, `{"message":"Not Found"}`)},
			err:   "404 Not Found",
			check: func(t *testing.T, err error) { assert.Check(t, IsNotFound(err)) },
		},
		{
			name:  "no retry on 422",
			calls: []call{post(422, nil, `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long"}]}`)},
			err:   "422 Validation Failed",
			check: func(t *testing.T, err error) { assert.Check(t, IsUnprocessable(err)) },
		},
		{
			name:  "no retry on a permission 403",
			calls: []call{post(403, nil, `{"message":"Resource not accessible by integration"}`)},
			err:   "Resource not accessible by integration",
			check: func(t *testing.T, err error) {
				assert.Check(t, IsForbidden(err))
				assert.Check(t, !IsRateLimited(err))
			},
		},
		{
			name:  "no retry on 401",
			calls: []call{post(401, nil, `{"message":"Bad credentials"}`)},
			err:   "401 Bad credentials",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newTestClient(t, tc.calls)
			got, err := send(context.Background(), c, tc.calls)
			if tc.err == "" {
				assert.NilError(t, err)
				assert.Equal(t, got.ID, int64(1))
			} else {
				assert.ErrorContains(t, err, tc.err)
				if tc.calls[0].method == "POST" {
					assert.ErrorContains(t, err, "create comment on o/r#7: ")
				}
			}
			if tc.check != nil {
				tc.check(t, err)
			}
			assert.DeepEqual(t, s.got(), tc.waits)
		})
	}
}

func TestRetryBoundsAreOptions(t *testing.T) {
	c, s := newTestClient(t, []call{patch(502, nil, ""), patch(502, nil, "")}, WithMaxAttempts(2))
	_, err := c.EditIssueComment(context.Background(), "o", "r", 1, "report")
	assert.ErrorContains(t, err, "502")
	assert.DeepEqual(t, s.got(), []time.Duration{time.Second})

	c, s = newTestClient(t, []call{patch(502, nil, ""), patch(502, nil, "")}, WithMaxWait(1500*time.Millisecond))
	_, err = c.EditIssueComment(context.Background(), "o", "r", 1, "report")
	assert.ErrorContains(t, err, "502")
	assert.DeepEqual(t, s.got(), []time.Duration{time.Second})
}

func TestRetryIsLogged(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	c, _ := newTestClient(t, []call{patch(502, nil, ""), edited}, WithLogger(logger))
	_, err := c.EditIssueComment(context.Background(), "o", "r", 1, "report")
	assert.NilError(t, err)
	assert.Equal(t, logs.String(), `level=WARN msg="GitHub API request failed; retrying" method=PATCH path=/api/v3/repos/o/r/issues/comments/1 status=502 reason="server error" attempt=1 wait=1s`+"\n")
	assert.Check(t, !strings.Contains(logs.String(), testToken))
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := newTestClient(t, []call{patch(502, nil, "")}, WithSleeper(func(context.Context, time.Duration) error {
		cancel()
		return ctx.Err()
	}))
	_, err := c.EditIssueComment(ctx, "o", "r", 1, "report")
	assert.Check(t, errors.Is(err, context.Canceled), "got %v", err)
}

// scripted is a transport answering from a script, recording request bodies.
type scripted struct {
	results []func() (*http.Response, error)
	bodies  []string
}

func (s *scripted) RoundTrip(req *http.Request) (*http.Response, error) {
	var b []byte
	if req.Body != nil {
		b, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	s.bodies = append(s.bodies, string(b))
	i := len(s.bodies) - 1
	if i >= len(s.results) {
		return nil, errors.New("unexpected request")
	}
	return s.results[i]()
}

func status(code int) func() (*http.Response, error) {
	return func() (*http.Response, error) {
		return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
}

func failure() (*http.Response, error) { return nil, errors.New("connection reset by peer") }

func newRetryTransport(next http.RoundTripper, s *sleeps) *retryTransport {
	return &retryTransport{
		next: next, log: slog.New(slog.DiscardHandler), sleep: s.sleep,
		now: func() time.Time { return clock }, jitter: func(d time.Duration) time.Duration { return d },
		maxAttempts: 5, maxWait: 2 * time.Minute,
	}
}

func TestRetryTransport(t *testing.T) {
	tests := []struct {
		name    string
		method  string
		body    io.Reader // no GetBody: the transport must buffer it
		results []func() (*http.Response, error)
		status  int
		err     string
		bodies  []string
	}{
		{
			name: "GET retried after a transport error", method: "GET",
			results: []func() (*http.Response, error){failure, status(200)},
			status:  200, bodies: []string{"", ""},
		},
		{
			name: "POST not retried after a transport error: it may have been applied", method: "POST",
			body:    strings.NewReader("x"),
			results: []func() (*http.Response, error){failure},
			err:     "connection reset by peer", bodies: []string{"x"},
		},
		{
			name: "unrewindable body is buffered and re-sent", method: "PATCH",
			body:    io.MultiReader(strings.NewReader("pay"), strings.NewReader("load")),
			results: []func() (*http.Response, error){status(502), failure, status(200)},
			status:  200, bodies: []string{"payload", "payload", "payload"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := &scripted{results: tc.results}
			rt := newRetryTransport(next, &sleeps{})
			req, err := http.NewRequest(tc.method, "http://127.0.0.1/api/v3/x", tc.body)
			assert.NilError(t, err)
			resp, err := rt.RoundTrip(req)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
			} else {
				assert.NilError(t, err)
				assert.Equal(t, resp.StatusCode, tc.status)
			}
			assert.DeepEqual(t, next.bodies, tc.bodies)
		})
	}
}

func TestHalfJitter(t *testing.T) {
	for range 100 {
		d := halfJitter(8 * time.Second)
		assert.Assert(t, d >= 4*time.Second && d <= 8*time.Second, "got %v", d)
	}
}

// After a success that used the last of the quota, the next request must
// still reach the API and wait for the reset, instead of go-github refusing
// it without a request.
func TestLastRequestOfQuota(t *testing.T) {
	exhausted := map[string]string{
		"X-RateLimit-Remaining": "0",
		// go-github compares with the real clock.
		"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10),
	}
	c, s := newTestClient(t, []call{
		post(http.StatusCreated, exhausted, commentJSON(1, "github-actions[bot]", "report")),
		post(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": unix(30 * time.Second)},
			`{"message":"API rate limit exceeded"}`),
		created,
	})
	for range 2 {
		_, err := c.CreateIssueComment(context.Background(), "o", "r", 7, "report")
		assert.NilError(t, err)
	}
	assert.DeepEqual(t, s.got(), []time.Duration{31 * time.Second})
}

// GitHub's secondary rate limit asks to wait minutes: the client waits as
// long as GitHub asks, within the rate-limit budget (timeout-minutes in
// the action), and says why when it stops.
func TestRateLimitWaitsAsGitHubAsks(t *testing.T) {
	fiveMinutes := map[string]string{"Retry-After": "300"}
	c, s := newTestClient(t, []call{post(403, fiveMinutes, secondaryMsg), post(403, fiveMinutes, secondaryMsg), created})
	_, err := send(context.Background(), c, nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, s.got(), []time.Duration{5 * time.Minute, 5 * time.Minute})

	c, s = newTestClient(t, []call{post(403, fiveMinutes, secondaryMsg)}, WithRateLimitWait(2*time.Minute))
	_, err = send(context.Background(), c, nil)
	assert.ErrorContains(t, err, "GitHub's secondary rate limit: the request gave up after waiting 0s as GitHub asked: GitHub asked to wait 5m0s more, past the 2m0s a request may wait on rate limits")
	assert.ErrorContains(t, err, "You have exceeded a secondary rate limit")
	assert.Check(t, IsRateLimited(err))
	assert.Equal(t, StatusOf(err), http.StatusForbidden)
	assert.DeepEqual(t, s.got(), []time.Duration(nil))
}

// A 413 says what it means, and is not sent again: GitHub read nothing.
func TestTooLargeSaysWhatItMeans(t *testing.T) {
	c, s := newTestClient(t, []call{post(http.StatusRequestEntityTooLarge, nil, "")})
	_, err := send(context.Background(), c, nil)
	assert.ErrorContains(t, err, `/api/v3/repos/o/r/issues/7/comments": GitHub answered 413 Payload Too Large: it refused the request's body of 18 bytes as too large, before reading what it says`)
	assert.Equal(t, StatusOf(err), http.StatusRequestEntityTooLarge)
	assert.DeepEqual(t, s.got(), []time.Duration(nil))
}
