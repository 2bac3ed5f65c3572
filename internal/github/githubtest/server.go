// Package githubtest is a stateful, in-memory fake of the part of the GitHub
// REST API that cdkd-action calls, for tests.
//
// Every request is validated against GitHub's own OpenAPI description of the
// operation (vendored in openapi/, checked with kin-openapi) and against the
// limits GitHub enforces. A request that fails gets the 422 GitHub would send
// and is also reported with t.Errorf, so a client bug cannot hide behind
// error handling that tolerates 422s. A request for an operation outside the
// vendored subset gets a 404 and is reported too.
//
// The server is a real listening httptest.Server under a base path (default
// /api/v3, as on GitHub Enterprise Server), so it serves other processes as
// well (GITHUB_API_URL=srv.APIURL()) and a client that drops the base path
// fails loudly.
//
//	srv := githubtest.New(t)
//	srv.AddPullRequest(githubtest.PR{Number: 7, HeadSHA: sha})
//	t.Setenv("GITHUB_API_URL", srv.APIURL()) // or pass it to the client
//	// ... run the code under test ...
//	got := srv.Comments(githubtest.DefaultOwner, githubtest.DefaultRepo, 7)
//
// State lives in memory behind one mutex; IDs and timestamps are
// deterministic. Seeds (AddPullRequest, AddIssue, SeedComments) and
// assertions (Comments, CheckRuns, Issues, PullRequests, Deployments,
// Requests, Writes, Rejections) never go through HTTP and are not recorded.
package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Default identities and repository used when a test does not say otherwise.
const (
	// DefaultLogin is who a token not listed in Server.Tokens authenticates
	// as: the identity behind GITHUB_TOKEN.
	DefaultLogin = "github-actions[bot]"
	// DefaultOwner and DefaultRepo are used for seeds that leave Owner and
	// Repo empty.
	DefaultOwner = "octo-org"
	DefaultRepo  = "octo-repo"
	// DefaultAuthor authors seeded pull requests and issues that name nobody.
	DefaultAuthor = "octocat"
	// DefaultBasePath is GitHub Enterprise Server's API prefix.
	DefaultBasePath = "/api/v3"
)

// Option configures New.
type Option func(*config)

type config struct {
	basePath     string
	defaultLogin string
	owner, repo  string
	now          func() time.Time
	allowInvalid bool
}

// WithBasePath serves the API under p instead of /api/v3. "" serves it at the
// root, as api.github.com does.
func WithBasePath(p string) Option {
	return func(c *config) { c.basePath = "/" + strings.Trim(p, "/") }
}

// WithDefaultLogin sets who unlisted tokens authenticate as. "" makes only
// the tokens in Server.Tokens valid; others get 401 Bad credentials.
func WithDefaultLogin(login string) Option { return func(c *config) { c.defaultLogin = login } }

// WithDefaultRepo sets the repository used by seeds that name none.
func WithDefaultRepo(owner, repo string) Option {
	return func(c *config) { c.owner, c.repo = owner, repo }
}

// WithClock replaces the server's clock (created_at, updated_at, ...). The
// default is deterministic: it starts at 2024-01-02T03:04:05Z and advances one
// second per reading, so responses are stable enough for golden files.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// AllowInvalid stops the server reporting invalid requests with t.Errorf; it
// still answers them with 422 (or 404) and lists them in Server.Rejections.
// For tests of how a client handles GitHub's validation errors.
func AllowInvalid() Option { return func(c *config) { c.allowInvalid = true } }

// Server is the fake. Its exported fields may be changed between requests;
// the server reads them under its lock.
type Server struct {
	// URL is the web root (like GITHUB_SERVER_URL); html_url values point
	// below it. The API is at APIURL().
	URL string

	// Tokens maps a token (as sent in "Authorization: Bearer <token>" or
	// "token <token>") to the login it authenticates as. Tokens not listed
	// authenticate as the default login.
	Tokens map[string]string
	// DenyWrites answers every non-GET request with 403 "Resource not
	// accessible by integration", as GitHub does for GITHUB_TOKEN on pull
	// requests from forks.
	DenyWrites bool
	// ForbidGetUser answers GET /user with 403 "Resource not accessible by
	// integration", as GitHub does for GITHUB_TOKEN.
	ForbidGetUser bool

	t        testing.TB
	spec     *apiSpec
	httpSrv  *httptest.Server
	basePath string
	cfg      config

	mu         sync.Mutex
	requests   []Request
	rejections []Rejection
	faults     []*Fault
	denied     map[string]bool
	userIDs    map[string]int64
	repos      map[string]*repoState
	nextID     map[string]int64
	checkRuns  []*CheckRun
	clockTicks int
}

// New starts a fake GitHub on a loopback port and closes it when the test
// ends. Invalid requests are reported to t.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	spec, err := loadSpec()
	if err != nil {
		t.Fatalf("githubtest: %v", err)
	}
	cfg := config{
		basePath:     DefaultBasePath,
		defaultLogin: DefaultLogin,
		owner:        DefaultOwner,
		repo:         DefaultRepo,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.basePath == "/" {
		cfg.basePath = ""
	}
	s := &Server{
		Tokens:   map[string]string{},
		t:        t,
		spec:     spec,
		basePath: cfg.basePath,
		cfg:      cfg,
		denied:   map[string]bool{},
		userIDs:  map[string]int64{},
		repos:    map[string]*repoState{},
		nextID:   map[string]int64{},
	}
	s.httpSrv = httptest.NewServer(s)
	s.URL = s.httpSrv.URL
	// Close waits for requests in flight, so no handler reports to t after
	// the test has finished.
	t.Cleanup(s.Close)
	return s
}

// APIURL is the API root without a trailing slash, exactly as GitHub sets
// GITHUB_API_URL (for example http://127.0.0.1:PORT/api/v3).
func (s *Server) APIURL() string { return s.URL + s.basePath }

// Client returns an HTTP client for the server (no special transport is
// needed; it is plain HTTP on loopback).
func (s *Server) Client() *http.Client { return s.httpSrv.Client() }

// Close stops the server, waiting for requests in flight. It is registered
// with t.Cleanup by New; calling it earlier is allowed.
func (s *Server) Close() { s.httpSrv.Close() }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.Query(),
		Header: r.Header.Clone(),
		Body:   string(body),
	}
	resp := s.serve(r, body, &rec)
	rec.Status = resp.status

	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	if resp.delay > 0 {
		select {
		case <-time.After(resp.delay):
		case <-r.Context().Done():
			return
		}
	}
	if resp.gone {
		return
	}
	if resp.cut && cutAnswer(w, resp) {
		return
	}
	if resp.cutHeaders && cutAfterHeaders(w, resp) {
		return
	}
	if resp.reset {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				if tcp, ok := conn.(interface{ SetLinger(int) error }); ok {
					_ = tcp.SetLinger(0) // RST, not FIN
				}
				conn.Close()
				return
			}
		}
	}
	resp.write(w)
}

// response is what a handler produces.
type response struct {
	status  int
	headers map[string]string
	body    []byte
	// reset, cut and delay come from a Fault (see there).
	reset bool
	cut   bool
	// cutHeaders: see Fault.CutAfterHeaders.
	cutHeaders bool
	delay      time.Duration
	// gone: the client left while the request was held; nothing is sent.
	gone bool
}

func (r response) write(w http.ResponseWriter) {
	for k, v := range r.headers {
		w.Header().Set(k, v)
	}
	if len(r.body) > 0 && w.Header().Get("Content-Type") == "" {
		if json.Valid(r.body) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body)
}

// cutAnswer sends resp's status line, headers (with the full
// Content-Length) and the first half of its body, then closes the
// connection: the client's read of the body fails part-way. It reports
// false when the connection cannot be taken over.
func cutAnswer(w http.ResponseWriter, resp response) bool {
	return sendPart(w, resp, true)
}

// cutAfterHeaders sends resp's status line and headers without a
// Content-Length and closes the connection: the client reads an empty
// body, with no error. It reports false when the connection cannot be
// taken over.
func cutAfterHeaders(w http.ResponseWriter, resp response) bool {
	return sendPart(w, resp, false)
}

// sendPart takes the connection over and sends resp's status line and
// headers, then, when withLength, the full Content-Length and half of the
// body (else no length and no body), and closes it.
func sendPart(w http.ResponseWriter, resp response, withLength bool) bool {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return false
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return false
	}
	defer conn.Close()
	h := http.Header{}
	for k, v := range resp.headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	body := resp.body[:len(resp.body)/2]
	if withLength {
		h.Set("Content-Length", fmt.Sprint(len(resp.body)))
	} else {
		h.Del("Content-Length")
		h.Set("Connection", "close")
		body = nil
	}
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", resp.status, http.StatusText(resp.status))
	_ = h.Write(buf)
	buf.WriteString("\r\n")
	buf.Write(body)
	_ = buf.Flush()
	return true
}

func jsonResponse(status int, v any) response {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return response{status: http.StatusInternalServerError, body: []byte(err.Error())}
	}
	return response{status: status, body: buf.Bytes()}
}

// apiError builds GitHub's error body.
func apiError(status int, message string, errs ...map[string]any) response {
	body := map[string]any{
		"message":           message,
		"documentation_url": "https://docs.github.com/rest",
		"status":            fmt.Sprint(status),
	}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	return jsonResponse(status, body)
}

func (s *Server) serve(r *http.Request, body []byte, rec *Request) response {
	path, ok := s.stripBase(r.URL.Path)
	if !ok {
		return s.reject(rec, http.StatusNotFound, fmt.Sprintf("path is outside the API base path %q (absolute-URL bug?)", s.basePath))
	}
	rec.Path = path

	routed := r.Clone(r.Context())
	routed.URL.Path = path
	routed.URL.RawPath = ""
	if escaped, ok := s.stripBase(r.URL.EscapedPath()); ok && escaped != path {
		// An encoded slash stays inside its parameter, as on GitHub: a
		// compare of release%2Fv2...sha is one basehead, not two segments.
		routed.URL.RawPath = escaped
	}
	if escaped := routed.URL.EscapedPath(); s.spec.fold(escaped) != escaped {
		routed.URL.RawPath = s.spec.fold(escaped) // a ref's slashes stay in it
	}
	route, params, err := s.spec.match(routed)
	if err != nil {
		return s.reject(rec, http.StatusNotFound, "no operation "+r.Method+" "+path+" in the vendored GitHub OpenAPI subset")
	}
	for k, v := range params {
		if u, err := url.PathUnescape(v); err == nil {
			params[k] = u
		}
	}
	rec.Operation = route.Operation.OperationID

	invalid := s.spec.validate(routed, route, params, body)
	if invalid != "" {
		s.report(rec, http.StatusUnprocessableEntity, invalid)
	}

	h := handlers[rec.Operation]
	if h == nil {
		return s.reject(rec, http.StatusNotFound, "operation "+rec.Operation+" has no handler in githubtest")
	}
	c := &call{s: s, r: r, path: path, params: params, body: body, rec: rec}
	resp := s.dispatch(c, h, invalid)
	if c.rejection != "" {
		s.report(rec, resp.status, c.rejection)
	}
	return resp
}

// dispatch applies faults, validation, authentication and permissions, then
// runs the handler under the server's lock. A fault that holds or delays
// the request waits outside the lock, so other requests go on meanwhile.
func (s *Server) dispatch(c *call, h handler, invalid string) response {
	s.mu.Lock()
	f := s.takeFault(c.rec)
	s.mu.Unlock()
	if f != nil && f.Hold != nil && !f.Hold.wait(c.r) {
		return response{status: http.StatusServiceUnavailable, gone: true}
	}
	if f != nil && f.Late && f.Delay > 0 {
		// Not cut short when the client gives up: the write lands anyway.
		time.Sleep(f.Delay)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if f != nil && !f.passes() {
		if f.Apply {
			_ = s.authorizedApply(c, h, invalid)
		}
		return faultResponse(f)
	}
	resp := s.authorizedApply(c, h, invalid)
	if invalid != "" {
		resp = apiError(http.StatusUnprocessableEntity, "Invalid request.\n\n"+invalid)
	}
	if f != nil && f.Cut {
		resp.cut = true
	}
	if f != nil && f.CutAfterHeaders {
		resp.cutHeaders = true
	}
	return resp
}

func (s *Server) stripBase(p string) (string, bool) {
	if s.basePath == "" {
		return p, strings.HasPrefix(p, "/")
	}
	rest, ok := strings.CutPrefix(p, s.basePath)
	if !ok || !strings.HasPrefix(rest, "/") {
		return "", false
	}
	return rest, true
}

// permissions names what GitHub says a denied operation needs, in the
// X-Accepted-GitHub-Permissions header.
var permissions = map[string]string{
	OpCreateIssueComment:     "issues=write; pull_requests=write",
	OpUpdateIssueComment:     "issues=write; pull_requests=write",
	OpDeleteIssueComment:     "issues=write; pull_requests=write",
	OpCreateCheckRun:         "checks=write",
	OpUpdateCheckRun:         "checks=write",
	OpCreateIssue:            "issues=write",
	OpUpdateIssue:            "issues=write; pull_requests=write",
	OpCreateDeployment:       "deployments=write",
	OpCreateDeploymentStatus: "deployments=write",
}

// now reads the clock. Called with s.mu held.
func (s *Server) now() time.Time {
	if s.cfg.now != nil {
		return s.cfg.now().UTC().Truncate(time.Second)
	}
	s.clockTicks++
	return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(s.clockTicks-1) * time.Second)
}

// id hands out IDs from a separate range per kind, so that an ID of one
// kind used as another (a comment ID as a check run ID) is not found.
// Called with s.mu held.
func (s *Server) id(kind string) int64 {
	s.nextID[kind]++
	return idBases[kind] + s.nextID[kind]
}

// idBases are the first IDs minus one: comments are 100001, 100002, ...
var idBases = map[string]int64{
	"comment":           100000,
	"check_run":         200000,
	"deployment":        300000,
	"deployment_status": 400000,
	"issue":             500000,
	"pull":              600000,
	"event":             700000,
	"activity":          800000,
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
