package app

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/github"
)

// identityAPI answers GET /user; every other method is unused here.
type identityAPI struct {
	github.API
	login string
	err   error
	calls int
}

func (a *identityAPI) AuthenticatedLogin(context.Context) (string, error) {
	a.calls++
	return a.login, a.err
}

func TestLoginIsNeverAGuessAfterAnError(t *testing.T) {
	tests := []struct {
		name     string
		botLogin string
		api      *identityAPI
		want     string
		wantErr  string
		calls    int
	}{
		{name: "token's own login", api: &identityAPI{login: "deploy-bot"}, want: "deploy-bot", calls: 1},
		{name: "GITHUB_TOKEN cannot read /user", api: &identityAPI{err: fmt.Errorf("get user: %w", github.ErrNoIdentity)}, want: github.ActionsBotLogin, calls: 1},
		{name: "bot-login wins without asking", botLogin: "my-app[bot]", api: &identityAPI{login: "other"}, want: "my-app[bot]", calls: 0},
		{name: "server error is an error", api: &identityAPI{err: errors.New("502 Bad Gateway")}, wantErr: "read the token's identity (set bot-login to skip this): 502 Bad Gateway", calls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Env{cfg: config.Config{BotLogin: tc.botLogin}}
			r.api = tc.api
			for i := 0; i < 2; i++ { // asked once, then cached
				got, err := r.login(context.Background())
				if tc.wantErr != "" {
					assert.Error(t, err, tc.wantErr)
					continue
				}
				assert.NilError(t, err)
				assert.Equal(t, got, tc.want)
			}
			if tc.wantErr == "" {
				assert.Equal(t, tc.api.calls, tc.calls)
			}
		})
	}
}
