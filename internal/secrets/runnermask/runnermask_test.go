package runnermask

import (
	"encoding/base64"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

func TestSimulate(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want string
	}{
		{
			name: "registration applies only to later lines",
			log: lines(
				"before hunter2-noecho-v1",
				"::add-mask::hunter2-noecho-v1",
				"after hunter2-noecho-v1",
			),
			want: lines(
				"before hunter2-noecho-v1",
				"::add-mask::***",
				"after ***",
			),
		},
		{
			name: "stop-commands disables add-mask until the token",
			log: lines(
				"::stop-commands::tok3n",
				"::add-mask::hunter2-noecho-v1",
				"inside hunter2-noecho-v1",
				"::tok3n::",
				"::add-mask::hunter2-noecho-v1",
				"after hunter2-noecho-v1",
			),
			want: lines(
				"::stop-commands::tok3n",
				"::add-mask::hunter2-noecho-v1",
				"inside hunter2-noecho-v1",
				"::tok3n::",
				"::add-mask::***",
				"after ***",
			),
		},
		{
			name: "the resume token is case-insensitive and other commands do not resume",
			log: lines(
				"::add-mask::securepw1",
				"::stop-commands::Pause-123",
				"::warning::securepw1 is printed as is, masked",
				"::pause-123::",
				"::warning::now an annotation",
			),
			want: lines(
				"::add-mask::***",
				"::stop-commands::Pause-123",
				"::warning::*** is printed as is, masked",
				"::pause-123::",
				"##[warning]now an annotation",
			),
		},
		{
			name: "encodings registered by the runner are masked",
			log: lines(
				"::add-mask::s3cr3t \"pw\" & <x>/'y'",
				"b64 "+base64.StdEncoding.EncodeToString([]byte(`s3cr3t "pw" & <x>/'y'`)),
				`json s3cr3t \"pw\" & <x>/'y'`,
				"uri s3cr3t%20%22pw%22%20%26%20%3Cx%3E%2F%27y%27",
				"xml s3cr3t &quot;pw&quot; &amp; &lt;x&gt;/&apos;y&apos;",
				`expr s3cr3t "pw" & <x>/''y''`,
			),
			want: lines(
				"::add-mask::***",
				"b64 ***",
				"json ***",
				"uri ***",
				"xml ***",
				"expr ***",
			),
		},
		{
			name: "base64 after a prefix is masked by the shifted forms, not the padding-dependent tail",
			log: lines(
				"::add-mask::abcdefgh",
				base64.StdEncoding.EncodeToString([]byte("x:abcdefgh")),
				base64.StdEncoding.EncodeToString([]byte("abcdefgh\n")),
			),
			want: lines(
				"::add-mask::***",
				"eDph***", // the digit holding the low bits of "a" stays visible
				// The runner registers padded forms only: a suffix changes
				// the tail, and nothing matches.
				base64.StdEncoding.EncodeToString([]byte("abcdefgh\n")),
			),
		},
		{
			name: "a multi-line value is registered whole, so its lines are not masked",
			log: lines(
				"::add-mask::line-one-secret%0Aline-two-secret",
				"line-one-secret",
				"::add-mask::line-two-secret",
				"line-two-secret",
			),
			want: lines(
				"::add-mask::***",
				"line-one-secret",
				"::add-mask::***",
				"***",
			),
		},
		{
			name: "data unescaping: %25 %0D %0A",
			log: lines(
				"::add-mask::100%25-sure",
				"it is 100%-sure",
				"::add-mask::%250A-literal",
				"%0A-literal",
			),
			want: lines(
				"::add-mask::***",
				"it is ***",
				"::add-mask::***",
				"***",
			),
		},
		{
			name: "overlapping and adjacent values merge",
			log: lines(
				"::add-mask::abcdefgh",
				"::add-mask::efghijkl",
				"::add-mask::mnopqrst",
				"<abcdefghijklmnopqrst>",
			),
			want: lines(
				"::add-mask::***",
				"::add-mask::***",
				"::add-mask::***",
				"<***>",
			),
		},
		{
			name: "empty add-mask is refused with a warning",
			log:  lines("::add-mask::   "),
			want: lines("##[warning]Can't add secret mask for empty string in ##[add-mask] command."),
		},
		{
			name: "legacy ##[add-mask] anywhere in the line",
			log: lines(
				"prefix ##[add-mask]legacy-secret%3Bx",
				"legacy-secret;x",
			),
			want: lines(
				"::add-mask::***",
				"***",
			),
		},
		{
			name: "leading whitespace before a command",
			log: lines(
				"   ::add-mask::indented-secret",
				"indented-secret",
			),
			want: lines(
				"::add-mask::***",
				"***",
			),
		},
		{
			name: "unknown command is ordinary output",
			log:  lines("::not-a-command::hunter2-noecho-v1"),
			want: lines("::not-a-command::hunter2-noecho-v1"),
		},
		{
			name: "issues and debug are masked, group printed",
			log: lines(
				"::add-mask::securepw1",
				"::error file=a.txt,title=t::bad securepw1",
				"::debug::debug securepw1",
				"::group::Deploy securepw1",
				"::endgroup::",
			),
			want: lines(
				"::add-mask::***",
				"##[error]bad ***",
				"##[debug]debug ***",
				"::group::Deploy ***",
				"##[group]Deploy ***",
				"::endgroup::",
				"##[endgroup]",
			),
		},
		{
			name: "set-output value shows in the debug log, masked",
			log: lines(
				"::add-mask::securepw1",
				"::set-output name=pw::securepw1",
			),
			want: lines(
				"::add-mask::***",
				"::set-output name=pw::***",
				"##[debug]pw='***'",
			),
		},
		{
			name: "lone CR and CRLF end lines",
			log:  "::add-mask::cr-secret\rcr-secret\r\nnext cr-secret",
			want: lines("::add-mask::***", "***", "next ***"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, Simulate(tc.log), tc.want)
		})
	}
}

// TestSimulatorDefaultView: without step debug, add-mask and other commands
// are not echoed and debug messages are hidden.
func TestSimulatorDefaultView(t *testing.T) {
	var s Simulator
	for _, l := range SplitLines(lines(
		"::add-mask::securepw1",
		"::debug::hidden securepw1",
		"::set-output name=x::securepw1",
		"::notice title=T securepw1::note securepw1",
		"shown securepw1",
		"::echo::on",
		"::set-output name=x::securepw1",
	)) {
		s.Line(l)
	}
	assert.Equal(t, s.Log(), lines(
		"##[notice]note ***",
		"shown ***",
		"::set-output name=x::***",
	))
	assert.DeepEqual(t, s.Annotations, []Annotation{{
		Kind:       "notice",
		Message:    "note ***",
		Properties: map[string]string{"title": "T securepw1"},
	}})
}

func TestSimulatorStopTokenNamedAfterACommand(t *testing.T) {
	// The runner removes the token from its registered commands on resume:
	// a token named after a command disables that command for good.
	got := Simulate(lines(
		"::stop-commands::add-mask",
		"::add-mask::",
		"::add-mask::securepw1",
		"securepw1",
	))
	assert.Equal(t, got, lines(
		"::stop-commands::add-mask",
		"::add-mask::",
		"::add-mask::securepw1",
		"securepw1",
	))
}

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\n\nb", []string{"a", "", "b"}},
		{"a\r\nb\rc\n\r", []string{"a", "b", "c", ""}},
	}
	for _, tc := range tests {
		assert.DeepEqual(t, SplitLines(tc.in), tc.want)
	}
}

func TestVariations(t *testing.T) {
	tests := []struct {
		value string
		want  []string
	}{
		{
			value: "abc",
			want:  []string{"abc", "YWJj", "YmM=", "Yw=="},
		},
		{
			value: `"quoted-value"`,
			want: []string{
				`"quoted-value"`,
				"InF1b3RlZC12YWx1ZSI=", "cXVvdGVkLXZhbHVlIg==", "dW90ZWQtdmFsdWUi",
				`\"quoted-value\"`,
				"%22quoted-value%22",
				"&quot;quoted-value&quot;",
				"quoted-value",
			},
		},
		{
			value: "part-one&part-two",
			want: []string{
				"part-one&part-two",
				"cGFydC1vbmUmcGFydC10d28=", "YXJ0LW9uZSZwYXJ0LXR3bw==", "cnQtb25lJnBhcnQtdHdv",
				"part-one%26part-two",
				"part-one&amp;part-two",
				"part-one&",
				"part-two",
			},
		},
		{
			value: "tab\t\u0085\u2028\x01",
			want: []string{
				"tab\t\u0085\u2028\x01",
				"dGFiCcKF4oCoAQ==", "YWIJwoXigKgB", "YgnCheKAqAE=",
				`tab\t\u0085\u2028\u0001`,
				"tab%09%C2%85%E2%80%A8%01",
			},
		},
	}
	for _, tc := range tests {
		assert.DeepEqual(t, variations(tc.value), tc.want)
	}
}
