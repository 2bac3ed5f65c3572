package githubtest

import (
	"net/http"
	"strings"
)

// Who may call: tokens, their logins, and operations a test denies.

// SetToken maps token to login (see Server.Tokens).
func (s *Server) SetToken(token, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Tokens == nil {
		s.Tokens = map[string]string{}
	}
	s.Tokens[token] = login
}

// Deny answers the given operations (Op* constants) with 403 "Resource not
// accessible by integration", as for a token without that permission.
func (s *Server) Deny(operationIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range operationIDs {
		s.denied[id] = true
	}
}

// authorizedApply runs the handler as GitHub would: authentication and
// permissions first. For an invalid request it does nothing (the caller
// answers 422). Called with s.mu held.
func (s *Server) authorizedApply(c *call, h handler, invalid string) response {
	if invalid != "" {
		return response{}
	}
	login, resp, ok := s.authenticate(c.r, c.rec.Operation)
	if !ok {
		return resp
	}
	c.login = login
	c.rec.Login = login
	if resp, denied := s.deny(c.r.Method, c.rec.Operation); denied {
		return resp
	}
	return h(c)
}

// authenticate resolves the request's token. Called with s.mu held.
func (s *Server) authenticate(r *http.Request, op string) (string, response, bool) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		// Anonymous reads of public repositories work on GitHub; anything
		// that needs an identity does not.
		if r.Method == http.MethodGet && op != OpGetAuthenticatedUser {
			return "", response{}, true
		}
		return "", apiError(http.StatusUnauthorized, "Requires authentication"), false
	}
	scheme, token, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token") || token == "" {
		return "", apiError(http.StatusUnauthorized, "Bad credentials"), false
	}
	if login, ok := s.Tokens[token]; ok {
		return login, response{}, true
	}
	if s.cfg.defaultLogin == "" {
		return "", apiError(http.StatusUnauthorized, "Bad credentials"), false
	}
	return s.cfg.defaultLogin, response{}, true
}

// deny applies DenyWrites, ForbidGetUser and Deny. Called with s.mu held.
func (s *Server) deny(method, op string) (response, bool) {
	denied := s.denied[op] ||
		(s.DenyWrites && method != http.MethodGet && method != http.MethodHead) ||
		(s.ForbidGetUser && op == OpGetAuthenticatedUser)
	if !denied {
		return response{}, false
	}
	resp := apiError(http.StatusForbidden, "Resource not accessible by integration")
	if p := permissions[op]; p != "" {
		resp.headers = map[string]string{"X-Accepted-GitHub-Permissions": p}
	}
	return resp, true
}
