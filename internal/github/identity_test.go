package github

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"
)

// loginAPI answers GET /user and counts the calls.
type loginAPI struct {
	login string
	err   error
	calls int
}

func (a *loginAPI) AuthenticatedLogin(context.Context) (string, error) {
	a.calls++
	return a.login, a.err
}

func TestIdentityIsNeverAGuessAfterAnError(t *testing.T) {
	tests := []struct {
		name     string
		botLogin string
		api      *loginAPI
		want     string
		wantErr  string
		calls    int
	}{
		{name: "token's own login", api: &loginAPI{login: "deploy-bot"}, want: "deploy-bot", calls: 1},
		{name: "GITHUB_TOKEN cannot read /user", api: &loginAPI{err: fmt.Errorf("get user: %w", ErrNoIdentity)}, want: ActionsBotLogin, calls: 1},
		{name: "an empty login is the Actions bot", api: &loginAPI{}, want: ActionsBotLogin, calls: 1},
		{name: "bot-login wins without asking", botLogin: "my-app[bot]", api: &loginAPI{login: "other"}, want: "my-app[bot]", calls: 0},
		// A failure is not cached: the next caller asks again.
		{name: "server error is an error", api: &loginAPI{err: errors.New("502 Bad Gateway")}, wantErr: "read the token's identity (set bot-login to skip this): 502 Bad Gateway", calls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := NewIdentity(tc.api, tc.botLogin)
			for i := 0; i < 2; i++ { // asked once, then cached
				got, err := id.Login(context.Background())
				if tc.wantErr != "" {
					assert.Error(t, err, tc.wantErr)
					continue
				}
				assert.NilError(t, err)
				assert.Equal(t, got, tc.want)
			}
			assert.Equal(t, tc.api.calls, tc.calls)
		})
	}
}

func TestIdentityWithoutAPIIsTheActionsBot(t *testing.T) {
	got, err := NewIdentity(nil, "").Login(context.Background())
	assert.NilError(t, err)
	assert.Equal(t, got, ActionsBotLogin)
}
