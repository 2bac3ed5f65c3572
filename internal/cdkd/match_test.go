package cdkd

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"
)

// cdkd 0.284's stackMatchesPattern: exact names, * as .* in an anchored
// regular expression (the rest of the pattern is read as a regular
// expression too, as cdkd reads it), / for display paths.
func TestMatchSavedFollowsCdkd(t *testing.T) {
	names := []string{"AppStack", "AppStackDev", "Data.Stack", "DataXStack", "Other"}
	for _, tc := range []struct {
		patterns []string
		want     []string
	}{
		{[]string{"AppStack"}, []string{"AppStack"}},
		{[]string{"App*"}, []string{"AppStack", "AppStackDev"}},
		{[]string{"*Dev", "AppStack", "App*"}, []string{"AppStack", "AppStackDev"}},
		{[]string{"Data.Stack"}, []string{"Data.Stack"}},                // no *: the exact name
		{[]string{"Data.Stack*"}, []string{"Data.Stack", "DataXStack"}}, // with *: . is any character, as in cdkd
		{[]string{"*"}, names},
	} {
		got, err := MatchSaved(names, tc.patterns)
		assert.NilError(t, err, "%v", tc.patterns)
		assert.DeepEqual(t, got, tc.want)
	}

	_, err := MatchSaved(names, []string{"NoSuchStack", "Nope*"})
	assert.Error(t, err, `"NoSuchStack", "Nope*": these patterns match no stack of the saved report, which holds AppStack, AppStackDev, Data.Stack, DataXStack, Other; each pattern must match at least one (cdkd drops one that matches nothing when another matches)`)

	// One typo among good patterns is refused too: cdkd would drop it.
	_, err = MatchSaved(names, []string{"Other", "Nope"})
	assert.Error(t, err, `"Nope": this pattern matches no stack of the saved report, which holds AppStack, AppStackDev, Data.Stack, DataXStack, Other; each pattern must match at least one (cdkd drops one that matches nothing when another matches)`)

	_, err = MatchSaved(names, []string{"AppStack", "Prod/AppStack"})
	assert.Assert(t, errors.Is(err, ErrDisplayPath))
	assert.Error(t, err, `"Prod/AppStack": cdkd matches a pattern with a / against display paths (Stage/Stack), which a saved report does not hold: name the stacks by stack name`)

	_, err = MatchSaved(names, []string{"App(*"})
	assert.ErrorContains(t, err, `"App(*": cdkd reads a pattern with * as a regular expression, and this one cannot be evaluated here the same way`)
}
