package github

import (
	"context"
	"fmt"
)

// AuthenticatedLogin returns the login of the token's user, which authors
// our comments. The Actions GITHUB_TOKEN cannot read GET /user (403): then
// the error wraps ErrNoIdentity and callers fall back to ActionsBotLogin.
func (c *Client) AuthenticatedLogin(ctx context.Context) (string, error) {
	u, _, err := c.gh.Users.Get(ctx, "")
	if err != nil {
		if IsForbidden(err) || IsNotFound(err) {
			return "", fmt.Errorf("get authenticated user: %w: %w", ErrNoIdentity, err)
		}
		return "", fmt.Errorf("get authenticated user: %w", err)
	}
	return u.GetLogin(), nil
}
