package github

import (
	"context"
	"errors"
	"net"
	"net/url"

	gh "github.com/google/go-github/v84/github"
)

// createOnce sends a create (a POST) at most until one is known to have
// worked. GitHub can apply a POST and still answer 5xx, reset the
// connection after applying it, cut its answer off part-way, or apply it
// after the attempt's time limit gave up on the answer; the transport does
// not resend a POST whose outcome it cannot know. So when an attempt's
// outcome is unknown, createOnce first gives GitHub the backoff to finish,
// then find looks for what that attempt may have made; if it is there it is
// the answer, else the create is sent again. A write GitHub applies even
// later than that can still leave a second object: the callers that can
// converge do so after every create (see Upsert and SyncIssue). Any other
// error is returned as it is. what names the object for the log.
func createOnce[T any](ctx context.Context, c *Client, what string, create func() (T, error), find func() (T, bool, error)) (T, error) {
	var zero T
	rt := c.retry
	for attempt := 1; ; attempt++ {
		got, err := create()
		if err == nil || !outcomeUnknown(ctx, err) {
			return got, err
		}
		wait := rt.backoff(attempt)
		if serr := rt.sleep(ctx, wait); serr != nil {
			return zero, err
		}
		found, ok, ferr := find()
		switch {
		case ferr == nil && ok:
			c.log.Warn("GitHub API create failed but had been applied; using what it made", "object", what, "attempt", attempt, "error", err.Error())
			return found, nil
		case ferr != nil:
			// Without knowing whether the first one exists, a second
			// could be a duplicate: stop with the original error.
			c.log.Warn("GitHub API create failed and what it may have made could not be looked for; not resending", "object", what, "error", err.Error(), "lookup", ferr.Error())
			return zero, err
		}
		if attempt >= rt.maxAttempts {
			c.log.Warn("GitHub API create failed; giving up", "object", what, "attempt", attempt, "error", err.Error())
			return zero, err
		}
		c.log.Warn("GitHub API create failed and made nothing; retrying", "object", what, "attempt", attempt, "waited", wait, "error", err.Error())
	}
}

// outcomeUnknown reports a failed request that GitHub may nevertheless have
// applied: a server error, or a transport failure (reset, timeout) while
// the caller's context is still live.
func outcomeUnknown(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return er.Response != nil && er.Response.StatusCode >= 500
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}
