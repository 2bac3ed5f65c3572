package prcomment

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Layout 4 redacts a blob whose decoded text holds a secret; layouts 1 to
// 3 redact as their sinks did, so a kept review renders as it was posted.
func TestRenderersRedactBlobsFromLayout4(t *testing.T) {
	set := secrets.NewSet()
	set.Add("renderer-blob-secret-42", "test")
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	_, _ = z.Write([]byte("password: renderer-blob-secret-42\n"))
	assert.NilError(t, z.Close())
	text := "UserData: " + base64.StdEncoding.EncodeToString(gz.Bytes())
	for _, v := range []int{reporters.Layout1, reporters.Layout2, reporters.Layout3, reporters.Layout4} {
		r, err := RendererOf(v)
		assert.NilError(t, err)
		want := text
		if v >= reporters.Layout4 {
			want = "UserData: ***"
		}
		assert.Check(t, is.Equal(r.Redact(set, text), want), "layout %d", v)
	}
}
