package github

import (
	"context"
	"errors"
	"fmt"
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
	got, _, err := createMaybeTwice(ctx, c, what, create, find)
	return got, err
}

// createMaybeTwice is createOnce, and also reports whether an attempt
// whose outcome was unknown was looked for and not found before another
// was sent: GitHub may still apply it, and a second object may appear
// later (see Comment.MayDuplicateUntil).
func createMaybeTwice[T any](ctx context.Context, c *Client, what string, create func() (T, error), find func() (T, bool, error)) (T, bool, error) {
	var zero T
	rt := c.retry
	unsettled := false
	for attempt := 1; ; attempt++ {
		got, err := create()
		if err == nil || !outcomeUnknown(ctx, err) {
			return got, unsettled && err == nil, err
		}
		wait := rt.backoff(attempt)
		if serr := rt.sleep(ctx, wait); serr != nil {
			return zero, false, err
		}
		found, ok, ferr := find()
		switch {
		case ferr == nil && ok:
			c.log.Warn("GitHub API create failed but had been applied; using what it made", "object", what, "attempt", attempt, "error", err.Error())
			return found, unsettled, nil
		case ferr != nil:
			// Without knowing whether the first one exists, a second
			// could be a duplicate: stop with the original error.
			c.log.Warn("GitHub API create failed and what it may have made could not be looked for; not resending", "object", what, "error", err.Error(), "lookup", ferr.Error())
			return zero, false, err
		}
		if attempt >= rt.maxAttempts {
			c.log.Warn("GitHub API create failed; giving up", "object", what, "attempt", attempt, "error", err.Error())
			return zero, false, err
		}
		unsettled = true
		c.log.Warn("GitHub API create failed and made nothing; retrying", "object", what, "attempt", attempt, "waited", wait, "error", err.Error())
	}
}

// errAnswerUnread means GitHub answered a create with success but the
// answer does not hold what it made (its body cut off after the headers,
// or part-way in a body whose length was not announced): the write was
// applied, and what it made is to be looked for.
var errAnswerUnread = errors.New("GitHub answered the create, but its answer was cut off before it said what it made")

// madeOrUnknown is a create's error given its answer: a success whose
// body could not be decoded, or decoded to no object (id 0), is an
// outcome the client does not know (errAnswerUnread), so createOnce looks
// for it; anything else is err as it is.
func madeOrUnknown(resp *gh.Response, err error, id int64) error {
	ok := resp != nil && resp.Response != nil && resp.StatusCode >= 200 && resp.StatusCode < 300
	switch {
	case err != nil && ok:
		return fmt.Errorf("%w (HTTP %d: %v)", errAnswerUnread, resp.StatusCode, err)
	case err == nil && id == 0:
		status := 0
		if resp != nil && resp.Response != nil {
			status = resp.StatusCode
		}
		return fmt.Errorf("%w (HTTP %d with no object)", errAnswerUnread, status)
	}
	return err
}

// outcomeUnknown reports a failed request that GitHub may nevertheless have
// applied: a server error, or a transport failure (reset, timeout) while
// the caller's context is still live.
func outcomeUnknown(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, errAnswerUnread) {
		return true
	}
	if ae := (*answerError)(nil); errors.As(err, &ae) {
		return false // GitHub answered: a rate limit, a 413
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return er.Response != nil && er.Response.StatusCode >= 500
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}
