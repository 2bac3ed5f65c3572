package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// Deployments and deployment statuses.

type deploymentBody struct {
	Ref                   string          `json:"ref"`
	Task                  *string         `json:"task"`
	AutoMerge             *bool           `json:"auto_merge"`
	RequiredContexts      []string        `json:"required_contexts"`
	Payload               json.RawMessage `json:"payload"`
	Environment           *string         `json:"environment"`
	Description           *string         `json:"description"`
	TransientEnvironment  *bool           `json:"transient_environment"`
	ProductionEnvironment *bool           `json:"production_environment"`
}

// resolveRef finds the commit a ref names, as far as the fake knows.
func (r *repoState) resolveRef(ref string) string {
	if fullSHA.MatchString(ref) {
		return ref
	}
	short := strings.TrimPrefix(ref, "refs/heads/")
	for _, it := range r.sortedItems() {
		if it.pr != nil && it.pr.headRef == short && it.pr.headSHA != "" {
			return it.pr.headSHA
		}
	}
	return madeUpSHA(r.owner + "/" + r.name + "@" + ref)
}

// madeUpSHA is a stable 40-hex stand-in for a commit the fake does not know.
func madeUpSHA(seed string) string {
	sum := sha1.Sum([]byte(seed))
	return hex.EncodeToString(sum[:])
}

func (c *call) createDeployment() response {
	var b deploymentBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	r := c.repo()
	d := &Deployment{
		ID:          c.s.id("deployment"),
		Owner:       r.owner,
		Repo:        r.name,
		Ref:         b.Ref,
		SHA:         r.resolveRef(b.Ref),
		Task:        "deploy",
		Environment: "production",
		AutoMerge:   true,
		Login:       c.login,
		CreatedAt:   c.s.now(),
	}
	if b.Task != nil {
		d.Task = *b.Task
	}
	if b.Environment != nil {
		d.Environment = *b.Environment
	}
	if b.Description != nil {
		d.Description = *b.Description
	}
	if b.AutoMerge != nil {
		d.AutoMerge = *b.AutoMerge
	}
	if b.RequiredContexts != nil {
		d.RequiredContexts = slices.Clone(b.RequiredContexts)
	}
	if len(b.Payload) > 0 && string(b.Payload) != "null" {
		d.Payload = slices.Clone(b.Payload)
	}
	if b.TransientEnvironment != nil {
		d.TransientEnvironment = *b.TransientEnvironment
	}
	d.ProductionEnvironment = d.Environment == "production"
	if b.ProductionEnvironment != nil {
		d.ProductionEnvironment = *b.ProductionEnvironment
	}
	r.deployments = append(r.deployments, d)
	return jsonResponse(http.StatusCreated, c.s.renderDeployment(r, d))
}

type deploymentStatusBody struct {
	State          string  `json:"state"`
	TargetURL      *string `json:"target_url"`
	LogURL         *string `json:"log_url"`
	Description    *string `json:"description"`
	Environment    *string `json:"environment"`
	EnvironmentURL *string `json:"environment_url"`
	AutoInactive   *bool   `json:"auto_inactive"`
}

func (c *call) createDeploymentStatus() response {
	var b deploymentStatusBody
	if resp, ok := c.decode(&b); !ok {
		return resp
	}
	if b.Description != nil && utf8.RuneCountInString(*b.Description) > 140 {
		reason := "description is longer than 140 characters"
		return c.invalid(reason, validationFailed("DeploymentStatus", "description", "custom", "Description is too long (maximum is 140 characters)"))
	}
	r := c.repo()
	id := c.intParam("deployment_id")
	var d *Deployment
	for _, x := range r.deployments {
		if x.ID == id {
			d = x
		}
	}
	if d == nil {
		return notFound()
	}
	st := DeploymentStatus{
		ID:          c.s.id("deployment_status"),
		State:       b.State,
		Environment: d.Environment,
		Login:       c.login,
		CreatedAt:   c.s.now(),
	}
	if n := len(d.Statuses); n > 0 {
		st.Environment = d.Statuses[n-1].Environment
	}
	if b.Environment != nil {
		st.Environment = *b.Environment
	}
	if b.Description != nil {
		st.Description = *b.Description
	}
	if b.EnvironmentURL != nil {
		st.EnvironmentURL = *b.EnvironmentURL
	}
	if b.TargetURL != nil {
		st.TargetURL = *b.TargetURL
	}
	if b.LogURL != nil {
		st.LogURL = *b.LogURL
		st.TargetURL = *b.LogURL
	}
	autoInactive := b.AutoInactive == nil || *b.AutoInactive
	if st.State == "success" && autoInactive {
		c.inactivatePrior(r, d, st)
	}
	d.Statuses = append(d.Statuses, st)
	return jsonResponse(http.StatusCreated, c.s.renderDeploymentStatus(r, d, &d.Statuses[len(d.Statuses)-1]))
}

// inactivatePrior adds an "inactive" status to earlier successful,
// non-transient, non-production deployments to the same environment, as
// GitHub's auto_inactive does.
func (c *call) inactivatePrior(r *repoState, current *Deployment, st DeploymentStatus) {
	for _, d := range r.deployments {
		if d == current || d.ID > current.ID || d.TransientEnvironment || d.ProductionEnvironment || len(d.Statuses) == 0 {
			continue
		}
		last := d.Statuses[len(d.Statuses)-1]
		if last.State != "success" || last.Environment != st.Environment {
			continue
		}
		d.Statuses = append(d.Statuses, DeploymentStatus{
			ID:           c.s.id("deployment_status"),
			State:        "inactive",
			Environment:  last.Environment,
			AutoInactive: true,
			Login:        c.login,
			CreatedAt:    st.CreatedAt,
		})
	}
}
