package github

import (
	"errors"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v84/github"
)

// ErrNoIdentity reports that the token cannot tell who it is: GET /user
// answers 403 for the Actions GITHUB_TOKEN. Callers then assume the comment
// author is ActionsBotLogin.
var ErrNoIdentity = errors.New("token has no user identity")

// ActionsBotLogin is the author of everything posted with the Actions
// GITHUB_TOKEN.
const ActionsBotLogin = "github-actions[bot]"

// IsNotFound reports a 404: the object is gone, or the token may not see it.
func IsNotFound(err error) bool { return statusIs(err, http.StatusNotFound) }

// IsForbidden reports a 403 that is about permissions ("Resource not
// accessible by integration", as for pull requests from forks), not a rate
// limit: callers degrade to a read-only report instead of failing.
func IsForbidden(err error) bool {
	return statusIs(err, http.StatusForbidden) && !IsRateLimited(err)
}

// IsUnprocessable reports a 422: GitHub rejected the content (too long,
// invalid field), so retrying the same request cannot help.
func IsUnprocessable(err error) bool { return statusIs(err, http.StatusUnprocessableEntity) }

// IsRateLimited reports that GitHub's primary or secondary rate limit was
// still exceeded after the client stopped retrying.
func IsRateLimited(err error) bool {
	var rl *gh.RateLimitError
	var abuse *gh.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &abuse) {
		return true
	}
	if statusIs(err, http.StatusTooManyRequests) {
		return true
	}
	// A secondary limit go-github did not recognise (no documentation URL).
	var er *gh.ErrorResponse
	return statusIs(err, http.StatusForbidden) && errors.As(err, &er) &&
		strings.Contains(strings.ToLower(er.Message), "rate limit")
}

// statusIs matches go-github's plain API errors only: rate-limit errors are
// their own types and deliberately do not count as "forbidden".
func statusIs(err error, code int) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == code
}

// StatusOf is the HTTP status GitHub answered a failed call with, 0 when
// there was no answer (a reset connection, a timeout) or err is not
// GitHub's.
func StatusOf(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var rl *gh.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	var abuse *gh.AbuseRateLimitError
	if errors.As(err, &abuse) && abuse.Response != nil {
		return abuse.Response.StatusCode
	}
	return 0
}
