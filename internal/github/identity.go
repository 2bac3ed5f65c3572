package github

import (
	"context"
	"errors"
	"fmt"
)

// LoginAPI is the one call Identity needs; *Client implements it.
type LoginAPI interface {
	AuthenticatedLogin(ctx context.Context) (string, error)
}

// Identity answers "who are we" once per run: the login our comments and
// issues are written by, the only one whose hidden headers are trusted.
// It is the bot-login input when set, else the token's own login (GET
// /user), else github-actions[bot] (the GITHUB_TOKEN cannot read /user).
// Any other failure is an error, not a guess: trusting the wrong author
// would let another user's header pass for ours, and looking for the wrong
// author would post a duplicate.
type Identity struct {
	api      LoginAPI
	botLogin string
	login    string
}

// NewIdentity asks api (nil: no token, so the Actions bot) unless botLogin
// is set.
func NewIdentity(api LoginAPI, botLogin string) *Identity {
	return &Identity{api: api, botLogin: botLogin}
}

// Login is our login. A success is cached; a failure is not, so a later
// caller asks again.
func (id *Identity) Login(ctx context.Context) (string, error) {
	switch {
	case id.login != "":
		return id.login, nil
	case id.botLogin != "":
		id.login = id.botLogin
		return id.login, nil
	case id.api == nil:
		id.login = ActionsBotLogin
		return id.login, nil
	}
	login, err := id.api.AuthenticatedLogin(ctx)
	switch {
	case err == nil && login != "":
		id.login = login
	case err == nil || errors.Is(err, ErrNoIdentity):
		id.login = ActionsBotLogin
	default:
		return "", fmt.Errorf("read the token's identity (set bot-login to skip this): %w", err)
	}
	return id.login, nil
}
