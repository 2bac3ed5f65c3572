// Package github is cdkd-action's narrow interface over the GitHub REST API:
// the few calls the action makes (comments, check runs, pull requests,
// issues, deployments), each paginated across all pages and retried on
// transient failures, plus the hidden-header protocol that lets the action
// find and edit its own sticky comments.
//
// go-github's method names and types change between major versions; keeping
// them behind this package means the rest of the action never imports it.
package github

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// DefaultAPIURL is used when GITHUB_API_URL is empty (github.com).
const DefaultAPIURL = "https://api.github.com/"

// perPage is the page size of every listing: GitHub's maximum, so a busy pull
// request costs as few requests as possible.
const perPage = 100

// Client talks to one GitHub (github.com or GHES) installation with one token.
// It holds no per-call state and is safe for concurrent use.
type Client struct {
	gh  *gh.Client
	log *slog.Logger
	// retry is the policy the create methods follow when a POST's outcome
	// is unknown (see createOnce).
	retry *retryTransport
}

// Sleeper waits for d or until ctx is done. Tests replace it so that retries
// never sleep for real.
type Sleeper func(ctx context.Context, d time.Duration) error

// Option configures NewClient.
type Option func(*settings)

type settings struct {
	httpClient  *http.Client
	logger      *slog.Logger
	sleep       Sleeper
	maxAttempts int
	maxWait     time.Duration
	limitWait   time.Duration
	now         func() time.Time
	jitter      func(time.Duration) time.Duration
	attempt     time.Duration
}

// DefaultAttemptTimeout bounds one attempt of a request, answer included.
// GitHub answers in well under a second; a minute covers a slow page of a
// listing without letting a stalled reply hold the step.
const DefaultAttemptTimeout = time.Minute

// WithAttemptTimeout bounds each attempt of a request (answer read
// included); 0 or less means no bound.
func WithAttemptTimeout(d time.Duration) Option { return func(s *settings) { s.attempt = d } }

// WithHTTPClient sets the HTTP client whose transport carries the requests
// (proxies, test transports). The client is copied, never modified.
func WithHTTPClient(c *http.Client) Option { return func(s *settings) { s.httpClient = c } }

// WithLogger sets where retries are logged.
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// WithSleeper replaces the real timer used between retries.
func WithSleeper(f Sleeper) Option { return func(s *settings) { s.sleep = f } }

// WithMaxAttempts bounds how many times one request is sent (first try
// included). Values below 1 mean 1.
func WithMaxAttempts(n int) Option { return func(s *settings) { s.maxAttempts = n } }

// WithMaxWait bounds the total time one request may spend waiting between
// retries; a wait that would exceed it is not taken and the last error is
// returned instead.
func WithMaxWait(d time.Duration) Option { return func(s *settings) { s.maxWait = d } }

// DefaultRateLimitWait bounds the wait on GitHub's rate limits when no
// WithRateLimitWait says otherwise: a secondary limit asks for minutes
// (at least one, then longer each time).
const DefaultRateLimitWait = 10 * time.Minute

// WithRateLimitWait bounds the total time one request may wait on GitHub's
// rate limits, each wait as long as GitHub asks (Retry-After,
// X-RateLimit-Reset); past it the request fails, saying so. 0 or less
// keeps DefaultRateLimitWait.
func WithRateLimitWait(d time.Duration) Option {
	return func(s *settings) {
		if d > 0 {
			s.limitWait = d
		}
	}
}

// withClock and withJitter make waits computed from headers and backoff
// deterministic in tests.
func withClock(now func() time.Time) Option { return func(s *settings) { s.now = now } }

func withJitter(f func(time.Duration) time.Duration) Option {
	return func(s *settings) { s.jitter = f }
}

// NewClient builds a client for the API at apiURL (GITHUB_API_URL: for
// example https://api.github.com, https://ghes.example.com/api/v3, or a test
// server's URL with a base path) authenticated with token.
func NewClient(token, apiURL string, opts ...Option) (*Client, error) {
	if token == "" {
		return nil, errors.New("create GitHub client: token is empty")
	}
	base, err := parseAPIURL(apiURL)
	if err != nil {
		return nil, fmt.Errorf("create GitHub client: %w", err)
	}
	s := settings{
		maxAttempts: 5,
		maxWait:     2 * time.Minute,
		limitWait:   DefaultRateLimitWait,
		sleep:       Sleep,
		now:         time.Now,
		jitter:      halfJitter,
		attempt:     DefaultAttemptTimeout,
	}
	for _, o := range opts {
		o(&s)
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.maxAttempts < 1 {
		s.maxAttempts = 1
	}

	hc := &http.Client{}
	if s.httpClient != nil {
		c := *s.httpClient
		hc = &c
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	rt := &retryTransport{
		next:           next,
		log:            s.logger,
		sleep:          s.sleep,
		now:            s.now,
		jitter:         s.jitter,
		maxAttempts:    s.maxAttempts,
		maxWait:        s.maxWait,
		limitWait:      s.limitWait,
		attemptTimeout: max(s.attempt, 0),
	}
	hc.Transport = rt

	g := gh.NewClient(hc).WithAuthToken(token)
	g.BaseURL = base
	// We never upload release assets; pointing uploads at the API keeps a
	// stray call on the same host rather than at github.com.
	g.UploadURL = base
	g.UserAgent = "cdkd-action"
	return &Client{gh: g, log: s.logger, retry: rt}, nil
}

// parseAPIURL accepts GITHUB_API_URL as given and adds the trailing slash
// go-github needs. It deliberately does not append /api/v3/ the way
// go-github's WithEnterpriseURLs does: GHES runners already set the full
// path, and test servers use their own base paths.
func parseAPIURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse API URL %q: %w", raw, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("API URL %q is not an absolute http(s) URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("API URL %q must not have a query or fragment", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

// Sleep is the wait between retries a client makes unless WithSleeper
// replaces it: d, or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// listOptions is the first page of a listing.
func listOptions() gh.ListOptions { return gh.ListOptions{PerPage: perPage} }

// allPages reads a listing to its end: list reads one page (0 is the
// first), and the next page GitHub names decides whether there is another.
func allPages[T any](list func(page int) ([]T, *gh.Response, error)) ([]T, error) {
	var out []T
	for page := 0; ; {
		items, resp, err := list(page)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if resp.NextPage == 0 {
			return out, nil
		}
		page = resp.NextPage
	}
}
