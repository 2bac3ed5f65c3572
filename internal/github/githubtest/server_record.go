package githubtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// What the fake saw (requests, rejections) and the faults a test injects.

// Request is one request as the server received it.
type Request struct {
	Method string
	// Path is the request path without the base path, e.g.
	// /repos/o/r/issues/1/comments.
	Path   string
	Query  url.Values
	Header http.Header
	Body   string
	// Operation is the operation ID matched (Op* constants), "" if none.
	Operation string
	// Login is who the request authenticated as, "" if nobody.
	Login string
	// Status is the status code the server answered with.
	Status int
}

// Rejection is a request the server refused as invalid (422 or 404).
type Rejection struct {
	Method, Path, Operation string
	Status                  int
	Reason                  string
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Query = cloneValues(r.Query)
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// Writes counts the non-GET requests received so far (including refused and
// fault-injected ones).
func (s *Server) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			n++
		}
	}
	return n
}

// Rejections returns the requests refused as invalid, in order.
func (s *Server) Rejections() []Rejection {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Rejection(nil), s.rejections...)
}

// Fault is a canned response given instead of the real one.
type Fault struct {
	// Times is how many matching requests get the fault.
	Times int
	// Method and Operation (an Op* constant) restrict which requests match;
	// empty matches all.
	Method    string
	Operation string
	Status    int
	Headers   map[string]string
	// Body is sent as is; empty sends {"message": <status text>}.
	Body string
	// Apply serves the request for real (the write happens) and then
	// answers with the fault anyway: GitHub applying a POST and still
	// answering 502.
	Apply bool
	// Reset closes the connection without an answer (a connection reset)
	// instead of sending Status; with Apply the write happened first.
	Reset bool
	// Delay holds the answer this long (or until the client gives up): a
	// stalled reply.
	Delay time.Duration
	// Late serves the request for real only after Delay, whether or not the
	// client is still waiting, and answers if it is: GitHub applying a write
	// after the client's per-attempt timeout gave up on it.
	Late bool
	// Cut serves the request for real and sends its status, headers and
	// the first half of its body, then closes the connection: an answer
	// cut off while its body is read (GitHub applied the write).
	Cut bool
	// CutAfterHeaders serves the request for real and sends its status and
	// headers, announcing no length, then closes the connection before any
	// of the body: to the client the answer is complete and empty (a 201
	// whose JSON never came; GitHub applied the write).
	CutAfterHeaders bool
	// Hold pauses the request before it is served until the test releases
	// it (see NewHold): two runs interleaved in a controlled order. Without
	// Status, Reset or Cut the request is then served as usual.
	Hold *Hold
	// Match, when set, restricts the fault further, e.g. to page 2 of a
	// listing (r.Query.Get("page") == "2").
	Match func(r Request) bool
}

// Hold is a point where a request waits for the test: Reached is closed
// when a request arrives at it, Release lets it go on.
type Hold struct {
	reached, release chan struct{}
	once, rel        sync.Once
}

// NewHold returns a hold for Fault.Hold.
func NewHold() *Hold {
	return &Hold{reached: make(chan struct{}), release: make(chan struct{})}
}

// Reached is closed once a request waits at the hold.
func (h *Hold) Reached() <-chan struct{} { return h.reached }

// Release lets the held request (and any later one) go on.
func (h *Hold) Release() { h.rel.Do(func() { close(h.release) }) }

// wait blocks until the test releases the hold or the client gives up,
// and reports whether the request is to be served.
func (h *Hold) wait(r *http.Request) bool {
	h.once.Do(func() { close(h.reached) })
	select {
	case <-h.release:
		return true
	case <-r.Context().Done():
		return false
	}
}

// passes reports whether the fault only delays or pauses the request,
// which is then served for real.
func (f *Fault) passes() bool {
	return f.Late || f.Cut || f.CutAfterHeaders || (f.Hold != nil && f.Status == 0 && !f.Reset)
}

// FailNext answers the next n requests with status, headers and body
// instead of serving them; for example 502, 429 with Retry-After: 0, or 403
// with a secondary rate limit message. Requests are still validated first.
func (s *Server) FailNext(n int, status int, headers map[string]string, body string) {
	s.Inject(Fault{Times: n, Status: status, Headers: headers, Body: body})
}

// ClearFaults drops the faults not yet used up: GitHub is back.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Inject queues a fault. Faults are consulted in the order injected.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// reject reports and answers an invalid request. It must not be called with
// s.mu held.
func (s *Server) reject(rec *Request, status int, reason string) response {
	s.report(rec, status, reason)
	if status == http.StatusUnprocessableEntity {
		return apiError(status, "Invalid request.\n\n"+reason)
	}
	return apiError(status, "Not Found")
}

// report records a rejection and, unless AllowInvalid, fails the test.
func (s *Server) report(rec *Request, status int, reason string) {
	s.mu.Lock()
	s.rejections = append(s.rejections, Rejection{Method: rec.Method, Path: rec.Path, Operation: rec.Operation, Status: status, Reason: reason})
	s.mu.Unlock()
	if s.cfg.allowInvalid {
		return
	}
	op := rec.Operation
	if op == "" {
		op = "unknown operation"
	}
	s.t.Errorf("githubtest: %s %s (%s) answered %d: %s", rec.Method, rec.Path, op, status, reason)
}

// takeFault consumes the first matching fault. Called with s.mu held.
func (s *Server) takeFault(rec *Request) *Fault {
	for i, f := range s.faults {
		if f.Times <= 0 {
			continue
		}
		if f.Method != "" && !strings.EqualFold(f.Method, rec.Method) {
			continue
		}
		if f.Operation != "" && f.Operation != rec.Operation {
			continue
		}
		if f.Match != nil && !f.Match(*rec) {
			continue
		}
		f.Times--
		taken := *f
		if f.Times == 0 {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
		}
		return &taken
	}
	return nil
}

func faultResponse(f *Fault) response {
	resp := response{status: f.Status, headers: f.Headers, body: []byte(f.Body), reset: f.Reset, delay: f.Delay}
	if resp.status == 0 {
		resp.status = http.StatusBadGateway
	}
	if f.Body == "" {
		resp.body, _ = json.Marshal(map[string]string{"message": http.StatusText(f.Status)})
	}
	return resp
}
