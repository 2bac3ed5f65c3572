package cdkd

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Resource results of a deploy run, as ResourceOutcome.Result.
const (
	ResultCreated     = "created"
	ResultUpdated     = "updated"
	ResultDeleted     = "deleted"
	ResultFailed      = "failed"
	ResultSkipped     = "skipped"
	ResultRetained    = "retained"
	ResultInterrupted = "interrupted" // started, never finished
)

// Since picks the run a deploy started: the newest run of command that
// started at or after since. cdkd stamps runs with the clock of the machine
// it runs on, the same as ours; the caller leaves a little slack for
// rounding. ok is false when no run qualifies (the deploy never got as far
// as recording one, e.g. it could not take the lock).
func (l RunList) Since(command string, since time.Time) (RunSummary, bool) {
	var best RunSummary
	var bestAt time.Time
	found := false
	for _, r := range l.Runs {
		if command != "" && r.Command != command {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, r.StartedAt)
		if err != nil || at.Before(since) {
			continue
		}
		if !found || at.After(bestAt) {
			best, bestAt, found = r, at, true
		}
	}
	return best, found
}

// ResourceOutcome is what one run did to one resource.
type ResourceOutcome struct {
	LogicalID    string
	ResourceType string
	// Operation is CREATE, UPDATE or DELETE.
	Operation string
	// Result is one of the Result* constants.
	Result string
	// Duration is cdkd's durationMs; HasDuration is false without one.
	Duration    time.Duration
	HasDuration bool
	// PhysicalID and Error may carry a secret (a resource named after one):
	// redact before showing.
	PhysicalID string
	Error      string
}

// RunOutcome is a deploy run read from its events.
type RunOutcome struct {
	// Result is RUN_FINISHED's result (SUCCEEDED, FAILED), "" when the run
	// never finished.
	Result string
	Counts *Counts
	// Duration is the run's, when RUN_FINISHED gave one.
	Duration    time.Duration
	HasDuration bool
	// RolledBack is set when the run rolled back.
	RolledBack bool
	// Resources are sorted by logical id.
	Resources []ResourceOutcome
}

// SummarizeRun reads a run's events (cdkd's order): each resource's last
// word, and the run's own result and counts.
func SummarizeRun(events []Event) RunOutcome {
	var run RunOutcome
	byID := map[string]*ResourceOutcome{}
	var order []string
	for _, e := range events {
		switch e.EventType {
		case EventRunFinished:
			run.Result = e.Result
			run.Counts = e.Counts
			run.Duration, run.HasDuration = e.Duration()
			continue
		case EventRollbackStarted, EventRollbackFinished, EventRollbackResourceFailed:
			run.RolledBack = true
			continue
		}
		if e.LogicalID == "" {
			continue
		}
		o := byID[e.LogicalID]
		if o == nil {
			o = &ResourceOutcome{LogicalID: e.LogicalID}
			byID[e.LogicalID] = o
			order = append(order, e.LogicalID)
		}
		if e.ResourceType != "" {
			o.ResourceType = e.ResourceType
		}
		if e.Operation != "" {
			o.Operation = e.Operation
		}
		if e.PhysicalID != "" {
			o.PhysicalID = e.PhysicalID
		}
		if d, ok := e.Duration(); ok {
			o.Duration, o.HasDuration = d, true
		}
		switch e.EventType {
		case EventResourceStarted:
			if o.Result == "" {
				o.Result = ResultInterrupted
			}
		case EventResourceSucceeded:
			o.Result = succeeded(o.Operation)
			o.Error = ""
		case EventResourceFailed:
			o.Result = ResultFailed
			o.Error = eventError(e)
		case EventResourceSkipped:
			o.Result = ResultSkipped
		case EventResourceRetained:
			o.Result = ResultRetained
		}
	}
	for _, id := range order {
		run.Resources = append(run.Resources, *byID[id])
	}
	slices.SortStableFunc(run.Resources, func(a, b ResourceOutcome) int { return cmp.Compare(a.LogicalID, b.LogicalID) })
	return run
}

func succeeded(op string) string {
	switch strings.ToUpper(op) {
	case "CREATE":
		return ResultCreated
	case "DELETE":
		return ResultDeleted
	}
	return ResultUpdated
}

func eventError(e Event) string {
	switch {
	case e.Error != nil && e.Error.Name != "" && e.Error.Message != "":
		return e.Error.Name + ": " + e.Error.Message
	case e.Error != nil && e.Error.Message != "":
		return e.Error.Message
	case e.Error != nil:
		return e.Error.Name
	}
	return e.Reason
}

// ForceUnlockCommand is the command that releases a stack's lock by hand.
// cdkd's own hint names a --force-unlock flag that does not exist.
func ForceUnlockCommand(stack, region string) string {
	cmd := "cdkd force-unlock " + stack
	if region != "" {
		cmd += " --stack-region " + region
	}
	return cmd
}
