package github

import (
	"fmt"
	"net/http"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// Some answers say little in go-github's words: a 413 reads "413 []", and
// a rate limit the client stopped waiting on says neither how long it
// waited nor why it stopped. answerError says it, and keeps go-github's
// typed error beneath (errors.As still finds *gh.AbuseRateLimitError, and
// StatusOf the status).

// answerError is GitHub's answer to a request, said in words. GitHub
// answered, so nothing was applied: a create is not looked for and sent
// again (outcomeUnknown).
type answerError struct {
	msg string
	err error // go-github's error for the answer
	// quote: GitHub's own words add to msg (a rate limit's message does;
	// a 413's "413 []" does not).
	quote bool
}

func (e *answerError) Error() string {
	if !e.quote {
		return e.msg
	}
	return e.msg + "; GitHub's answer: " + e.err.Error()
}
func (e *answerError) Unwrap() error { return e.err }

// tooLarge explains a 413: GitHub refused the request's body for its size,
// before reading what it says.
func tooLarge(req *http.Request, resp *http.Response) error {
	size := "the request's body"
	if req.ContentLength > 0 {
		size = fmt.Sprintf("the request's body of %d bytes", req.ContentLength)
	}
	return &answerError{
		msg: fmt.Sprintf("GitHub answered 413 Payload Too Large: it refused %s as too large, before reading what it says", size),
		err: gh.CheckResponse(resp),
	}
}

// limited reports whether classify's reason is one of GitHub's rate limits,
// whose waits GitHub sets.
func limited(reason string) bool {
	switch reason {
	case "primary rate limit", "secondary rate limit", "rate limited":
		return true
	}
	return false
}

// gaveUp explains a request that stopped waiting on a rate limit: GitHub
// asked for wait more, past the budget, or the attempts ran out.
func gaveUp(resp *http.Response, reason string, wait, waited, budget time.Duration, attempts int, outOfAttempts bool) error {
	why := fmt.Sprintf("GitHub asked to wait %s more, past the %s a request may wait on rate limits (timeout-minutes, or %s when it is 0)", wait, budget, DefaultRateLimitWait)
	if outOfAttempts {
		why = fmt.Sprintf("it still answered so after %d attempts", attempts)
	}
	if reason == "rate limited" {
		reason = "rate limit"
	}
	return &answerError{
		msg:   fmt.Sprintf("GitHub's %s: the request gave up after waiting %s as GitHub asked: %s", reason, waited, why),
		err:   gh.CheckResponse(resp),
		quote: true,
	}
}
