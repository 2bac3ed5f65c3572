package secrets

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base32"
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf16"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const blobSecret = "Blob-Pa55w0rd!q9"

// utf16LEBytes is s as PowerShell encodes a command: UTF-16LE.
func utf16LEBytes(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	_, err := z.Write([]byte(s))
	assert.NilError(t, err)
	assert.NilError(t, z.Close())
	return buf.Bytes()
}

func zlibBytes(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zlib.NewWriter(&buf)
	_, err := z.Write([]byte(s))
	assert.NilError(t, err)
	assert.NilError(t, z.Close())
	return buf.Bytes()
}

func wrapAt(s string, width int, indent string) string {
	var lines []string
	for len(s) > width {
		lines = append(lines, s[:width])
		s = s[width:]
	}
	return strings.Join(append(lines, s), "\n"+indent)
}

// BlobCases are the blobs, each around the secret, and public
// blobs of the same shapes.
func blobCases(t *testing.T) (secret, public []struct{ name, blob string }) {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString
	ps := b64(utf16LEBytes(`$p = ConvertTo-SecureString "` + blobSecret + `" -AsPlainText -Force; New-LocalUser admin -Password $p`))
	inner := b64([]byte("db-user:" + blobSecret + "\n"))
	manifest := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: " + inner + "\n"
	nested := b64([]byte("#!/bin/bash\ncat <<EOF | kubectl apply -f -\n" + manifest + "EOF\n"))
	gz := b64(gzipBytes(t, "DB_PASSWORD="+blobSecret+"\nDB_HOST=db.internal\n"))
	zl := base64.RawURLEncoding.EncodeToString(zlibBytes(t, "export TOKEN="+blobSecret+"\n"))
	b32 := base32.StdEncoding.EncodeToString([]byte("otpauth://totp/me?secret=" + blobSecret))
	long := b64([]byte(strings.Repeat("#cloud-config\npackages: [nginx]\n", 4) + "password: " + blobSecret + "\n"))
	// A run that starts with letters that are not the blob's.
	odd := "xyz" + b64([]byte("The token is "+blobSecret+" today."))
	secret = []struct{ name, blob string }{
		{"PowerShell -EncodedCommand (base64 of UTF-16LE)", ps},
		{"base64 of a manifest holding base64", nested},
		{"gzip then base64 (gz+b64)", gz},
		{"zlib then URL-safe base64 unpadded", zl},
		{"base32", b32},
		{"base64 wrapped at 76, indented", wrapAt(long, 76, "      ")},
		{"base64 wrapped at 64 with escaped line breaks", strings.ReplaceAll(wrapAt(long, 64, ""), "\n", `\n`)},
		{"base64 after letters that are not the blob's", odd},
		{"base64 of gzip of UTF-16LE", b64(gzipBytes(t, string(utf16LEBytes("net user admin "+blobSecret))))},
	}
	public = []struct{ name, blob string }{
		{"base64 of UTF-16LE", b64(utf16LEBytes("Install-WindowsFeature Web-Server -IncludeManagementTools"))},
		{"gzip then base64", b64(gzipBytes(t, "#cloud-config\npackages: [nginx]\n"))},
		{"base32", base32.StdEncoding.EncodeToString([]byte("otpauth://totp/me?issuer=example"))},
		{"identifiers", "arn:aws:lambda:us-east-1:123456789012:function:orders-prod-handler MyStackDbInstanceA1B2C3D4"},
	}
	return secret, public
}

// A blob whose decoded text holds a secret is redacted whole, in every
// shape of the issue; one that does not is left as it is.
func TestRedactDecodesBlobs(t *testing.T) {
	s := NewSet()
	s.Add(blobSecret, "test")
	secret, public := blobCases(t)
	for _, c := range secret {
		t.Run(c.name, func(t *testing.T) {
			text := "UserData: " + c.blob + " # end"
			got := s.Redact(text)
			assert.Assert(t, s.Contains(text))
			for _, line := range strings.Split(strings.ReplaceAll(c.blob, `\n`, "\n"), "\n") {
				if line = strings.TrimSpace(line); len(line) >= 8 {
					assert.Assert(t, !strings.Contains(got, line), "a line of the blob is left: %s", got)
				}
			}
			assert.Assert(t, strings.HasPrefix(got, "UserData: ") && strings.HasSuffix(got, " # end"), got)
			assert.Equal(t, s.Redact(got), got, "idempotent")
			assert.Assert(t, !s.Contains(got))
		})
	}
	for _, c := range public {
		t.Run("public "+c.name, func(t *testing.T) {
			text := "UserData: " + c.blob + " # end"
			assert.Equal(t, s.Redact(text), text)
			assert.Assert(t, !s.Contains(text))
		})
	}
}

// "password=<blob>" keeps what is not the blob.
func TestRedactBlobKeepsKey(t *testing.T) {
	s := NewSet()
	s.Add(blobSecret, "test")
	blob := base64.StdEncoding.EncodeToString(gzipBytes(t, "pw "+blobSecret))
	assert.Check(t, is.Equal(s.Redact("password="+blob+"&user=admin"), "password=***&user=admin"))
}

// A stream that inflates past its bound is hidden unread, and one run
// longer than maxBlobRun is hidden whole: neither can be searched.
func TestRedactBlobBounds(t *testing.T) {
	s := NewSet()
	s.Add(blobSecret, "test")
	bomb := base64.StdEncoding.EncodeToString(gzipBytes(t, strings.Repeat("A", maxInflate+1)))
	assert.Check(t, is.Equal(s.Redact("x "+bomb+" y"), "x *** y"))
	huge := strings.Repeat("QUJD", maxBlobRun/4+1)
	assert.Check(t, is.Equal(s.Redact("x "+huge+" y"), "x *** y"))
	// Deeper than maxBlobDepth is not decoded: the bound is real.
	deep := "pw " + blobSecret
	for range maxBlobDepth + 2 { // the innermost is the value's own base64, a pattern

		deep = "v: " + base64.StdEncoding.EncodeToString([]byte(deep))
	}
	assert.Check(t, is.Equal(s.Redact(deep), deep))
}

// RedactExceptBlobs is Redact as layouts 1 to 3 wrote it: a blob is
// left whole.
func TestRedactExceptBlobs(t *testing.T) {
	s := NewSet()
	s.Add(blobSecret, "test")
	blob := "v=" + base64.StdEncoding.EncodeToString(gzipBytes(t, "pw "+blobSecret))
	assert.Check(t, is.Equal(s.RedactExceptBlobs(blob), blob))
	assert.Check(t, is.Equal(s.Redact(blob), "v=***"))
}

// With no value to look for, nothing is decoded.
func TestRedactBlobsEmptySet(t *testing.T) {
	secret, _ := blobCases(t)
	s := NewSet()
	for _, c := range secret {
		assert.Equal(t, s.Redact(c.blob), c.blob)
	}
}
