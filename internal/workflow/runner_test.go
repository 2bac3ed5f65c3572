package workflow

import (
	"bytes"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// fixedRand returns a Rand yielding the given 16-byte blocks in turn, and the
// tokens they encode to.
func fixedRand(blocks ...byte) (*bytes.Reader, []string) {
	var all []byte
	var tokens []string
	for _, b := range blocks {
		block := bytes.Repeat([]byte{b}, 16)
		all = append(all, block...)
		tokens = append(tokens, hex.EncodeToString(block))
	}
	return bytes.NewReader(all), tokens
}

func newTestRunner(env map[string]string) (*Runner, *bytes.Buffer) {
	var out bytes.Buffer
	return New(&out, func(k string) string { return env[k] }), &out
}

func TestCommandEscaping(t *testing.T) {
	tests := []struct {
		name string
		emit func(r *Runner)
		want string
		ran  ranCommand
	}{
		{
			name: "plain warning",
			emit: func(r *Runner) { r.Warning("stack changed") },
			want: "::warning::stack changed\n",
			ran:  ranCommand{Name: "warning", Data: "stack changed"},
		},
		{
			name: "newline cannot start another command",
			emit: func(r *Runner) { r.Error("boom\n::set-output name=x::y") },
			want: "::error::boom%0A::set-output name=x::y\n",
			ran:  ranCommand{Name: "error", Data: "boom\n::set-output name=x::y"},
		},
		{
			name: "escape codes in text stay text",
			emit: func(r *Runner) { r.Notice("100% done%0A::add-mask::x") },
			want: "::notice::100%25 done%250A::add-mask::x\n",
			ran:  ranCommand{Name: "notice", Data: "100% done%0A::add-mask::x"},
		},
		{
			name: "carriage return",
			emit: func(r *Runner) { r.Debug("a\r\n::error::b") },
			want: "::debug::a%0D%0A::error::b\n",
			ran:  ranCommand{Name: "debug", Data: "a\r\n::error::b"},
		},
		{
			name: "properties escape colon and comma",
			emit: func(r *Runner) {
				r.Warning("drift", Title("Drift: a,b"), File("lib/x,line=1.ts"), Line(3), EndLine(4), Col(1), EndColumn(9))
			},
			want: "::warning title=Drift%3A a%2Cb,file=lib/x%2Cline=1.ts,line=3,endLine=4,col=1,endColumn=9::drift\n",
			ran: ranCommand{Name: "warning", Data: "drift", Props: map[string]string{
				"title": "Drift: a,b", "file": "lib/x,line=1.ts", "line": "3", "endLine": "4", "col": "1", "endColumn": "9",
			}},
		},
		{
			name: "property newline and percent",
			emit: func(r *Runner) { r.Error("x", Title("50%\n::error::y")) },
			want: "::error title=50%25%0A%3A%3Aerror%3A%3Ay::x\n",
			ran:  ranCommand{Name: "error", Data: "x", Props: map[string]string{"title": "50%\n::error::y"}},
		},
		{
			name: "group title",
			emit: func(r *Runner) { r.Group("cdkd diff\n::add-mask::z") },
			want: "::group::cdkd diff%0A::add-mask::z\n",
			ran:  ranCommand{Name: "group", Data: "cdkd diff\n::add-mask::z"},
		},
		{
			name: "end group",
			emit: func(r *Runner) { r.EndGroup() },
			want: "::endgroup::\n",
			ran:  ranCommand{Name: "endgroup"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out := newTestRunner(nil)
			tt.emit(r)
			assert.Equal(t, out.String(), tt.want)

			if tt.ran.Props == nil {
				tt.ran.Props = map[string]string{}
			}
			ran, shown := interpret(t, out.String())
			assert.DeepEqual(t, ran, []ranCommand{tt.ran})
			assert.Equal(t, len(shown), 0)
		})
	}
}

func TestAddMask(t *testing.T) {
	tests := []struct {
		value string
		want  string // "" means nothing printed
	}{
		{value: "hunter2-noecho-v1", want: "::add-mask::hunter2-noecho-v1\n"},
		{value: "pw%0Aend", want: "::add-mask::pw%250Aend\n"},
		{value: "two\nlines", want: "::add-mask::two%0Alines\n"},
		{value: "cr\rlf", want: "::add-mask::cr%0Dlf\n"},
		{value: "a::b,c:d", want: "::add-mask::a::b,c:d\n"},
		{value: "", want: ""},
		{value: " \t\n", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			r, out := newTestRunner(nil)
			r.AddMask(tt.value)
			assert.Equal(t, out.String(), tt.want)
			if tt.want == "" {
				return
			}
			ran, _ := interpret(t, out.String())
			assert.DeepEqual(t, ran, []ranCommand{{Name: "add-mask", Data: tt.value, Props: map[string]string{}}})
		})
	}
}

func TestInfo(t *testing.T) {
	tests := []struct {
		name    string
		msg     string
		wrapped bool
	}{
		{name: "plain", msg: "Deploying stack A"},
		{name: "colons inside", msg: "time: 12:00 :: done"},
		{name: "v2 command", msg: "::add-mask::x", wrapped: true},
		{name: "indented v2 command", msg: "  \t::error::boom", wrapped: true},
		{name: "v2 command on a later line", msg: "ok\n::set-output name=a::b", wrapped: true},
		{name: "v2 command after a carriage return", msg: "ok\r::warning::w", wrapped: true},
		{name: "legacy command mid-line", msg: "see ##[set-output name=a;]b", wrapped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out := newTestRunner(nil)
			rnd, tokens := fixedRand(0xab)
			r.Rand = rnd
			r.Info(tt.msg)

			want := tt.msg + "\n"
			if tt.wrapped {
				want = "::stop-commands::" + tokens[0] + "\n" + tt.msg + "\n::" + tokens[0] + "::\n"
			}
			assert.Equal(t, out.String(), want)

			ran, _ := interpret(t, out.String())
			for _, c := range ran {
				assert.Assert(t, c.Name == "stop-commands" || c.Name == tokens[0], "runner would run %v", c)
			}
		})
	}
}

func TestStopCommands(t *testing.T) {
	r, out := newTestRunner(nil)
	rnd, tokens := fixedRand(0x01)
	r.Rand = rnd

	resume := r.StopCommands()
	r.Warning("inert")
	r.AddMask("inert")
	r.Info("::error::inert")
	resume()
	resume()
	r.Notice("live")

	tok := tokens[0]
	assert.Equal(t, out.String(), "::stop-commands::"+tok+"\n"+
		"::warning::inert\n::add-mask::inert\n::error::inert\n::"+tok+"::\n::notice::live\n")

	ran, shown := interpret(t, out.String())
	assert.DeepEqual(t, ran, []ranCommand{
		{Name: "stop-commands", Data: tok, Props: map[string]string{}},
		{Name: tok, Props: map[string]string{}},
		{Name: "notice", Data: "live", Props: map[string]string{}},
	})
	assert.DeepEqual(t, shown, []string{"::warning::inert", "::add-mask::inert", "::error::inert"})
}

func TestStopCommandsTokenIsFreshAndRandom(t *testing.T) {
	r, out := newTestRunner(nil) // crypto/rand
	r.StopCommands()()
	r.StopCommands()()

	re := regexp.MustCompile(`^::stop-commands::([0-9a-f]{32})\n::([0-9a-f]{32})::\n$`)
	var tokens []string
	for _, pair := range strings.SplitAfterN(out.String(), "::\n", 2) {
		m := re.FindStringSubmatch(pair)
		assert.Assert(t, m != nil, "unexpected format %q", pair)
		assert.Equal(t, m[1], m[2])
		tokens = append(tokens, m[1])
	}
	assert.Equal(t, len(tokens), 2)
	assert.Assert(t, tokens[0] != tokens[1])
}

func TestStopCommandsSurvivesFailingRand(t *testing.T) {
	r, out := newTestRunner(nil)
	r.Rand = bytes.NewReader(nil) // EOF at once
	r.StopCommands()()
	assert.Assert(t, regexp.MustCompile(`^::stop-commands::([0-9a-f]{32})\n::([0-9a-f]{32})::\n$`).MatchString(out.String()), out.String())
}

func TestStopCommandsNested(t *testing.T) {
	r, out := newTestRunner(nil)
	outer := r.StopCommands()
	inner := r.StopCommands() // inert: the runner is already stopped
	inner()
	r.Info("::error::still stopped")
	outer()
	r.Info("::error::wrapped again")

	ran, shown := interpret(t, out.String())
	for _, c := range ran {
		assert.Assert(t, c.Name != "error", "runner would run %v in\n%s", c, out.String())
	}
	assert.Assert(t, len(ran) == 4, "outer stop, outer resume, Info's stop and resume: %v", ran)
	assert.Assert(t, strings.Contains(strings.Join(shown, "\n"), "::error::still stopped\n"))
}

// On a terminal there is no runner: commands become plain words, and an
// add-mask line (which would print the secret) is never written.
func TestPlainRunnerForTerminals(t *testing.T) {
	var out strings.Builder
	r := New(&out, nil)
	r.Plain = true
	r.AddMask("s3cr3t")
	r.Warning("careful", Title("t"))
	r.Error("broken")
	r.Group("cdkd diff")
	resume := r.StopCommands()
	resume()
	r.EndGroup()
	assert.Equal(t, out.String(), "warning: careful\nerror: broken\n== cdkd diff\n")
}

// A message is redacted before it is escaped: once "%" is "%25" and a line
// break "%0A", a redactor further down the stream no longer recognises it.
func TestCommandRedactsBeforeEscaping(t *testing.T) {
	const secret = "50%off\nsecret"
	var out bytes.Buffer
	r := New(&out, nil)
	r.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "***") }
	r.Error("failed with "+secret, Title("title "+secret))
	assert.Equal(t, out.String(), "::error title=title ***::failed with ***\n")
}
