package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryTransport resends requests that failed for a transient reason: server
// errors, 429, and GitHub's primary and secondary rate limits. It sits under
// go-github so every call gets the same policy, and it returns the last
// response unchanged when it gives up, so go-github still builds its typed
// errors from it. Each attempt has its own time limit, reading the answer
// included, so one stalled reply cannot hold the step.
//
// A POST whose outcome is unknown (a 5xx, a reset connection, no answer in
// time) is not resent here: GitHub may have applied it. The create methods
// look for what it made before they send it again (see createOnce). A
// refusal that says nothing was done (429, a rate limit) is retried.
type retryTransport struct {
	next        http.RoundTripper
	log         *slog.Logger
	sleep       Sleeper
	now         func() time.Time
	jitter      func(time.Duration) time.Duration
	maxAttempts int
	maxWait     time.Duration
	// limitWait bounds the waits on rate limits, which GitHub sets.
	limitWait time.Duration
	// attemptTimeout bounds one attempt; 0 means no bound.
	attemptTimeout time.Duration
}

const (
	backoffBase = time.Second
	backoffCap  = 30 * time.Second
	// secondaryBase is GitHub's advice for a secondary rate limit that names
	// no time: "wait for at least one minute", then exponentially longer.
	secondaryBase = time.Minute
	// resetBuffer absorbs clock skew between us and GitHub when waiting for
	// X-RateLimit-Reset.
	resetBuffer = time.Second
	// maxErrorBody bounds how much of a 403/429 body is read to classify it.
	maxErrorBody = 1 << 20
)

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	getBody, fresh, err := bodyGetter(req)
	if err != nil {
		return nil, err
	}
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		send := req
		if attempt > 1 || !fresh {
			send = req.Clone(ctx)
			if getBody != nil {
				body, err := getBody()
				if err != nil {
					return nil, fmt.Errorf("rewind request body for retry: %w", err)
				}
				send.Body = body
			}
		}
		cancel := context.CancelFunc(func() {})
		if t.attemptTimeout > 0 {
			var actx context.Context
			actx, cancel = context.WithTimeout(ctx, t.attemptTimeout)
			send = send.WithContext(actx)
		}
		resp, err := t.next.RoundTrip(send)
		if err == nil {
			// The answer is read within the attempt: a body cut off
			// part-way is a transport failure like a reset before it.
			err = readAnswer(resp)
		}
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s: %w", t.attemptTimeout, err)
		}
		if err != nil {
			resp = nil
		}
		wait, reason, retry := t.classify(req, resp, err, attempt)
		cancel()
		if !retry {
			hideExhaustedQuota(resp)
			if resp != nil && resp.StatusCode == http.StatusRequestEntityTooLarge {
				return nil, tooLarge(req, resp)
			}
			return resp, err
		}
		attrs := []any{
			"method", req.Method, "path", req.URL.Path, "status", statusOf(resp),
			"reason", reason, "attempt", attempt, "wait", wait,
		}
		if err != nil {
			attrs = append(attrs, "error", err.Error())
		}
		budget := t.maxWait
		if limited(reason) {
			budget = t.limitWait
		}
		if attempt >= t.maxAttempts || waited+wait > budget {
			t.log.Warn("GitHub API request failed; giving up", append(attrs, "waited", waited)...)
			if limited(reason) && resp != nil {
				return nil, gaveUp(resp, reason, wait, waited, budget, attempt, attempt >= t.maxAttempts)
			}
			return resp, err
		}
		t.log.Warn("GitHub API request failed; retrying", attrs...)
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
	}
}

// readAnswer reads resp's whole body into memory, under the attempt's time
// limit, and puts it back for go-github. GitHub's answers are at most a
// page of a listing (a few MB), so holding one costs little, and a body
// cut off part-way (a reset, a closed connection) becomes this attempt's
// error instead of a decode error after the retry policy had its say.
func readAnswer(resp *http.Response) error {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("read the answer (%d) part-way: %w", resp.StatusCode, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

// hideExhaustedQuota drops X-RateLimit-Reset from a successful response that
// used the last request of the quota. go-github remembers it and would refuse
// the next request itself, without reaching this transport, so the wait for
// the reset that retrying offers would never happen.
func hideExhaustedQuota(resp *http.Response) {
	if resp != nil && resp.StatusCode < 300 && resp.Header.Get("X-RateLimit-Remaining") == "0" {
		resp.Header.Del("X-RateLimit-Reset")
	}
}

// bodyGetter returns a function producing a fresh copy of the request body
// for each attempt. fresh reports whether req.Body itself is still unread and
// usable for the first attempt (true unless we had to buffer it).
func bodyGetter(req *http.Request) (get func() (io.ReadCloser, error), fresh bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, true, nil
	}
	if req.GetBody != nil {
		return req.GetBody, true, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, false, fmt.Errorf("buffer request body: %w", err)
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, false, nil
}

// classify decides whether a result is worth another attempt, and after how
// long.
func (t *retryTransport) classify(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, string, bool) {
	if err != nil {
		// The caller's context ended: nothing more to do. An attempt that
		// ran out of its own time is a transport error like any other.
		if req.Context().Err() != nil || errors.Is(err, context.Canceled) {
			return 0, "", false
		}
		// A POST that failed in transit may still have been applied;
		// resending it could post a second comment or check run.
		if req.Method == http.MethodPost {
			return 0, "", false
		}
		return t.backoff(attempt), "transport error", true
	}
	switch code := resp.StatusCode; {
	case code >= 500 && req.Method == http.MethodPost:
		// GitHub can apply a POST and still answer 5xx: see createOnce.
		return 0, "", false
	case code >= 500:
		if d, ok := t.retryAfter(resp); ok {
			return d, "server error", true
		}
		return t.backoff(attempt), "server error", true
	case code == http.StatusForbidden || code == http.StatusTooManyRequests:
		body := peekBody(resp)
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if d, ok := t.retryAfter(resp); ok {
				return d, "primary rate limit", true
			}
			if d, ok := t.untilReset(resp); ok {
				return d, "primary rate limit", true
			}
		}
		d, hasRetryAfter := t.retryAfter(resp)
		secondary := strings.Contains(strings.ToLower(string(body)), "secondary rate limit")
		switch {
		case secondary && hasRetryAfter:
			return d, "secondary rate limit", true
		case secondary:
			return exp(secondaryBase, attempt, time.Hour), "secondary rate limit", true
		case hasRetryAfter:
			return d, "rate limited", true
		case code == http.StatusTooManyRequests:
			return t.backoff(attempt), "too many requests", true
		}
		return 0, "", false
	}
	return 0, "", false
}

// retryAfter reads Retry-After as seconds or as an HTTP date.
func (t *retryTransport) retryAfter(resp *http.Response) (time.Duration, bool) {
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			n = 0
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(t.now()), 0), true
	}
	return 0, false
}

// untilReset reads X-RateLimit-Reset (Unix seconds).
func (t *retryTransport) untilReset(resp *http.Response) (time.Duration, bool) {
	n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return max(time.Unix(n, 0).Sub(t.now()), 0) + resetBuffer, true
}

func (t *retryTransport) backoff(attempt int) time.Duration {
	return t.jitter(exp(backoffBase, attempt, backoffCap))
}

// exp is base doubled for each attempt after the first, capped.
func exp(base time.Duration, attempt int, ceiling time.Duration) time.Duration {
	d := base
	for i := 1; i < attempt && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}

// halfJitter spreads the retries of concurrent jobs while keeping most of the
// backoff: a wait between d/2 and d.
func halfJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// peekBody reads a (small) error body and puts it back for go-github.
func peekBody(resp *http.Response) []byte {
	if resp.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

func statusOf(resp *http.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}
