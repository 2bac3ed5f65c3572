package githubtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// Issues: list, create, update.

// listIssues lists issues and pull requests (as GitHub does) filtered by
// state, labels and creator, sorted by created or updated. Other filters
// (milestone, assignee, mentioned, type) are accepted and ignored.
func (c *call) listIssues() response {
	r := c.repo()
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var labels []string
	if v := q.Get("labels"); v != "" {
		for _, l := range strings.Split(v, ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
	}
	creator := q.Get("creator")
	var since time.Time
	if v := q.Get("since"); v != "" {
		since, _ = time.Parse(time.RFC3339, v)
	}

	var matched []*item
	for _, it := range r.items {
		if state != "all" && it.state != state {
			continue
		}
		if creator != "" && !strings.EqualFold(it.login, creator) {
			continue
		}
		if it.updated.Before(since) {
			continue
		}
		if !hasAllLabels(it.labels, labels) {
			continue
		}
		matched = append(matched, it)
	}
	key := func(it *item) time.Time { return it.created }
	if q.Get("sort") == "updated" {
		key = func(it *item) time.Time { return it.updated }
	}
	asc := q.Get("direction") == "asc"
	sort.Slice(matched, func(i, j int) bool {
		a, b := matched[i], matched[j]
		ka, kb := key(a), key(b)
		if !ka.Equal(kb) {
			return ka.Before(kb) == asc
		}
		return (a.number < b.number) == asc
	})

	out, headers := renderPage(c, matched, func(it *item) map[string]any { return c.s.renderIssue(r, it) })
	return pageResponse(out, headers)
}

func hasAllLabels(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			return false
		}
	}
	return true
}

type issueBody struct {
	Title       json.RawMessage   `json:"title"`
	Body        *string           `json:"body"`
	State       *string           `json:"state"`
	StateReason *string           `json:"state_reason"`
	Labels      []json.RawMessage `json:"labels"`
	Assignees   []json.RawMessage `json:"assignees"`
	// labelsSent distinguishes "labels": [] (clear) from no labels field.
	labelsSent, assigneesSent bool
}

func (b *issueBody) UnmarshalJSON(data []byte) error {
	type plain issueBody
	if err := json.Unmarshal(data, (*plain)(b)); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	_, b.labelsSent = fields["labels"]
	_, b.assigneesSent = fields["assignees"]
	if string(fields["labels"]) == "null" {
		b.labelsSent = false
	}
	return nil
}

// names reads label or assignee items, each a string or an object with a
// name (labels) or login (assignees).
func names(items []json.RawMessage, key string) []string {
	var out []string
	for _, raw := range items {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			out = append(out, s)
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err == nil {
			if v, ok := obj[key].(string); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// title returns the title (GitHub accepts a string or an integer) and
// whether one was given.
func (b *issueBody) title() (string, bool) {
	if len(b.Title) == 0 || string(b.Title) == "null" {
		return "", false
	}
	var s string
	if err := json.Unmarshal(b.Title, &s); err == nil {
		return s, true
	}
	return string(b.Title), true
}

func (c *call) createIssue() response {
	var b issueBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	title, _ := b.title()
	if strings.TrimSpace(title) == "" {
		return c.invalid("title is blank", validationFailed("Issue", "title", "missing_field", ""))
	}
	body := ""
	if b.Body != nil {
		body = *b.Body
	}
	if resp, ok := c.checkBody("Issue", body); !ok {
		return resp
	}
	r := c.repo()
	now := c.s.now()
	it := &item{
		id:        c.s.id("issue"),
		title:     title,
		body:      body,
		login:     c.login,
		state:     "open",
		labels:    names(b.Labels, "name"),
		assignees: names(b.Assignees, "login"),
		created:   now,
		updated:   now,
	}
	if err := r.addItem(it); err != nil {
		return apiError(http.StatusInternalServerError, err.Error())
	}
	return jsonResponse(http.StatusCreated, c.s.renderIssue(r, it))
}

func (c *call) updateIssue() response {
	var b issueBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if b.Body != nil {
		if resp, ok := c.checkBody("Issue", *b.Body); !ok {
			return resp
		}
	}
	title, hasTitle := b.title()
	if hasTitle && strings.TrimSpace(title) == "" {
		return c.invalid("title is blank", validationFailed("Issue", "title", "missing_field", ""))
	}
	r := c.repo()
	it := r.items[int(c.intParam("issue_number"))]
	if it == nil {
		return notFound()
	}
	now := c.s.now()
	if hasTitle {
		it.title = title
	}
	if b.Body != nil {
		it.body = *b.Body
	}
	if b.State != nil && *b.State != it.state {
		it.state = *b.State
		it.stateReason = ""
		if b.StateReason != nil {
			it.stateReason = *b.StateReason
		} else if it.state == "closed" {
			it.stateReason = "completed"
		} else {
			it.stateReason = "reopened"
		}
		if it.state == "closed" {
			it.closed = now
		} else {
			it.closed = time.Time{}
		}
	}
	if b.labelsSent {
		it.labels = names(b.Labels, "name")
	}
	if b.assigneesSent {
		it.assignees = names(b.Assignees, "login")
	}
	it.updated = now
	return jsonResponse(http.StatusOK, c.s.renderIssue(r, it))
}
