package jobs

import (
	"context"
	"encoding/json"
	"strconv"
)

// A queued study runs as units of work: its plan (Units.Plan) cuts it into
// units — a population's entity chunks, a sweep's runs of grid points, a
// tuning's candidates — that any worker takes from the queue and runs
// (Units.Run), each on every core of its machine. A unit's result is
// written with the progress items it makes (Units.Items) in one
// transaction, so a unit is recorded whole or not at all: a worker killed
// mid-unit loses that unit only, which another worker runs again, and the
// units already finished are kept. When the last unit of a batch is
// recorded, the worker that recorded it asks the plan for the next step in
// the same transaction: more units (a tuning's next generation, from the
// candidates so far), or the study's result (the population's merge, the
// sweep's grid, the tuning's outcome). Plans are deterministic functions
// of the spec, their state and the units' results, so the result is the
// same whichever workers ran the units, and however many.
//
// The database holds all of it (job_units, and jobs.plan for the plan's
// state), so no worker holds a study: the planning step itself is a queue
// job (StudyArgs), and a worker between units holds nothing.

// Units is a study cut into units of work, as its kind's code defines it.
// Every method is a deterministic function of its arguments and the
// study's spec: the same on every worker.
type Units interface {
	// Plan returns the study's next step, from the plan's state (nil at
	// the start) and the results of every unit so far, in the order the
	// plan made them.
	Plan(state []byte, results []json.RawMessage) (Step, error)
	// Run runs one unit, as Plan made it (its JSON), and returns its
	// result; when ctx is done it stops and returns ctx.Err().
	Run(ctx context.Context, unit json.RawMessage) (any, error)
	// Items returns the progress items of a finished unit (its result
	// as Run returned it, in JSON), as the study's page reads them while
	// it runs; done is how many items the study had before them.
	Items(result json.RawMessage, done int) ([]any, error)
}

// Step is what a plan does next: run more units, or end the study with its
// result.
type Step struct {
	State  []byte // kept for the next Plan, when the units are done
	Units  []any  // the units to run next, each encoded as JSON; none when the study is over
	Result any    // the study's result, when there are no more units
}

// UnitsOf turns a queued study's kind and spec (JSON, as Start was given
// it) into its units: the lab's studies' (studies.UnitsOf).
type UnitsOf func(kind string, spec []byte) (Units, error)

// UnitArgs is one unit of a queued study: its number N in the study's
// job_units.
type UnitArgs struct {
	ID string `json:"id"`
	N  int    `json:"n"`
}

// Kind is river's name of a unit job.
func (UnitArgs) Kind() string { return "study_unit" }

// lockKey is the name of the advisory lock a worker holds while it runs a
// study's plan (n < 0) or its unit n.
func lockKey(id string, n int) string {
	if n < 0 {
		return id
	}
	return id + "/" + strconv.Itoa(n)
}
