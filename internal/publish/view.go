package publish

import (
	"encoding/json"
	"io"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/redacted"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// View is a Publication as its targets receive it. Every text in it is a
// redacted.Text the Publisher's redactor made when the target asked for
// it (renders stay lazy: a target that needs none costs none), so a target
// cannot be handed text that was not redacted. The few plain strings are
// words the action itself chose (a kind, a commit, a conclusion) or our
// hidden header; internal/archtest names each with why and fails on any
// other.
type View struct {
	// Kind names the report ("diff", "drift", "deploy").
	Kind string
	// Render is the report within a channel's budget; nil when none.
	Render func(reporters.Budget) redacted.Text
	// WriteResult writes the typed result as JSON and a newline to w,
	// every byte redacted; nil when there is no result.
	WriteResult func(w io.Writer) error
	// Outputs are the result's step outputs.
	Outputs map[string]redacted.Text

	// SummaryNote is Publication.SummaryNote, redacted; nil when none.
	SummaryNote func(w *Written) redacted.Text
	// WriteResultAfter writes Publication.ResultAfter as WriteResult does.
	WriteResultAfter func(w *Written) func(io.Writer) error

	CheckRun   *CheckRunView
	Comment    *CommentView
	Issue      *IssueView
	Deployment *DeploymentView
}

// CheckRunView is CheckRunFields, redacted.
type CheckRunView struct {
	Name, Title redacted.Text
	HeadSHA     string // a commit id
	Conclusion  string // one of GitHub's words
	// ExternalID is our review record: a digest and ids, no secret, and
	// never redacted (a hex-like short secret inside it would make the
	// deploy refuse its own review). nil: none.
	ExternalID func(w *Written) string
	// Summary, when set, is the summary in place of the View's Render.
	Summary func(b reporters.Budget, w *Written) redacted.Text
}

// CommentView is CommentFields, redacted.
type CommentView struct {
	// Render is the comment within a budget.
	Render func(reporters.Budget) RenderedComment
}

// RenderedComment is a rendered comment whose text is redacted.
type RenderedComment struct {
	// Header is our hidden header, without the content hash; Body
	// redacts its free text.
	Header marker.Header
	// Content is the change-set line and the report, each redacted,
	// joined by a newline: what the header's content hash covers.
	Content redacted.Text
	// Body is the whole comment under h (Header, stamped), redacted.
	Body func(h marker.Header) redacted.Text
}

// IssueView is IssueFields, redacted.
type IssueView struct {
	Kind, Label string // find the issue by; its hidden header carries them
	What        string // names the issue in the log ("drift tracking issue")
	// Content decides the issue's state and text once the existing issue
	// (nil: none) is known.
	Content func(found *github.Issue) IssueText
	// Notice is said in the log for what was done (github.ActionCreated,
	// ...), with the issue's URL; ok is false when there is nothing to say.
	Notice func(action, url string) (text redacted.Text, ok bool)
}

// IssueText is github.IssueContent whose texts are redacted.
type IssueText struct {
	State                           github.IssueState
	Header                          marker.Header
	Title, Content, Footer, Closing redacted.Text
}

// content is the issue as github.SyncIssue writes it.
func (t IssueText) content() github.IssueContent {
	return github.IssueContent{State: t.State, Header: t.Header,
		Title: t.Title.String(), Content: t.Content.String(), Footer: t.Footer.String(), Closing: t.Closing.String()}
}

// DeploymentView is DeploymentFields, redacted.
type DeploymentView struct {
	State                       string // "success" or "failure"
	EnvironmentURL, Description redacted.Text
}

// view is p as its targets receive it: every text through pub's redactor.
func (pub *Publisher) view(p *Publication) *View {
	red := func(s string) redacted.Text { return redacted.Redact(pub.Secrets, s) }
	v := &View{Kind: p.Kind}
	if p.Render != nil {
		v.Render = func(b reporters.Budget) redacted.Text { return red(p.Render(b)) }
	}
	if p.Result != nil {
		v.WriteResult = func(w io.Writer) error {
			encode := pub.Encode
			if encode == nil {
				encode = encodeJSON
			}
			return encode(w, p.Result, pub.Secrets.RedactBytes)
		}
	}
	if p.Outputs != nil {
		v.Outputs = make(map[string]redacted.Text, len(p.Outputs))
		for name, value := range p.Outputs {
			v.Outputs[name] = red(value)
		}
	}
	if f := p.ResultAfter; f != nil {
		v.WriteResultAfter = func(w *Written) func(io.Writer) error {
			return func(out io.Writer) error {
				encode := pub.Encode
				if encode == nil {
					encode = encodeJSON
				}
				return encode(out, f(w), pub.Secrets.RedactBytes)
			}
		}
	}
	if f := p.SummaryNote; f != nil {
		v.SummaryNote = func(w *Written) redacted.Text { return red(f(w)) }
	}
	if f := p.CheckRun; f != nil {
		v.CheckRun = &CheckRunView{Name: red(f.Name), Title: red(f.Title), HeadSHA: f.HeadSHA, Conclusion: f.Conclusion, ExternalID: f.ExternalID}
		if f.Summary != nil {
			v.CheckRun.Summary = func(b reporters.Budget, w *Written) redacted.Text { return red(f.Summary(b, w)) }
		}
	}
	if f := p.Comment; f != nil {
		v.Comment = &CommentView{Render: func(b reporters.Budget) RenderedComment {
			c := f.Render(f.Header, b)
			changeSet, report := red(c.ChangeSet), red(c.Report)
			c.ChangeSet, c.Report = changeSet.String(), report.String()
			return RenderedComment{
				Header:  c.Header,
				Content: redacted.Lines(changeSet, report),
				Body: func(h marker.Header) redacted.Text {
					c.Header = h
					// Redacted as a whole too (not only at the API edge) so
					// that "unchanged, skip the write" compares what GitHub
					// holds with what we would write.
					return redacted.Redact(commentRedactor{pub.Secrets}, c.String())
				},
			}
		}}
	}
	if f := p.Issue; f != nil {
		v.Issue = &IssueView{Kind: f.Kind, Label: f.Label, What: f.What,
			Content: func(found *github.Issue) IssueText {
				c := f.Content(found)
				// Redacted before hashing, so the hash compares what GitHub holds.
				return IssueText{State: c.State, Header: c.Header, Title: red(c.Title), Content: red(c.Content), Footer: red(c.Footer), Closing: red(c.Closing)}
			},
			Notice: func(action, url string) (redacted.Text, bool) {
				n := f.Notices[action]
				if n == "" {
					return redacted.Text{}, false
				}
				return red(n + " " + url), true
			},
		}
	}
	if f := p.Deployment; f != nil {
		v.Deployment = &DeploymentView{State: f.State, EnvironmentURL: red(f.EnvironmentURL), Description: red(f.Description)}
	}
	return v
}

func encodeJSON(w io.Writer, v any, redact func([]byte) []byte) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(redact(b), '\n'))
	return err
}

// commentRedactor redacts a comment body whose first line may be our
// hidden header (see prcomment.Redact).
type commentRedactor struct{ red prcomment.Redactor }

func (r commentRedactor) Redact(body string) string { return prcomment.Redact(r.red, body) }
