package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/obs"
)

// The flags lab serve and lab worker share.

// LogFlags are -log-format and -log-level of the long-running commands.
type LogFlags struct{ format, level *string }

// LogFlags registers them.
func (c *Command) LogFlags() *LogFlags {
	return &LogFlags{
		format: c.Flags.String("log-format", "text", "log lines as `format`: text (key=value) or json"),
		level:  c.Flags.String("log-level", "info", "log from `level` up: debug, info, warn or error"),
	}
}

// Logger returns the logger they name, writing to w (obs.Logger).
func (f *LogFlags) Logger(w io.Writer) (*slog.Logger, error) {
	return obs.Logger(w, *f.format, *f.level)
}

// SlotsFlag registers -jobs, how many of what run at once, in
// [jobs.MinSlots, jobs.MaxSlots], def unless given.
func (c *Command) SlotsFlag(def int, what, doc string) *int {
	n := def
	c.Flags.Func("jobs", fmt.Sprintf("run at most `n` %s at once, in [%d, %d] (default %d%s)", what, jobs.MinSlots, jobs.MaxSlots, def, doc), func(arg string) error {
		v, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("%q is not a number: want how many %s run at once, in [%d, %d]", arg, what, jobs.MinSlots, jobs.MaxSlots)
		}
		n = v
		return jobs.CheckSlots(v)
	})
	return &n
}

// DBFlag registers -db, a team's PostgreSQL database, $LAB_DB unless given:
// call the returned function after Parse.
func (c *Command) DBFlag(doc string) func() string {
	db := c.Flags.String("db", "", doc+" (default $LAB_DB)")
	return func() string {
		if *db == "" {
			return os.Getenv("LAB_DB")
		}
		return *db
	}
}

// DBWaitFlag registers -db-wait, how long a command on PostgreSQL waits
// for the database at start: 0 (the default) as long as it takes.
func (c *Command) DBWaitFlag() *time.Duration {
	d := new(time.Duration)
	c.Flags.Func("db-wait", "at start, wait at most `duration` (30s, 5m) for the PostgreSQL database to answer, then fail (default 0: as long as it takes, retrying with backoff)", func(arg string) error {
		v, err := time.ParseDuration(arg)
		if err != nil || v < 0 {
			return fmt.Errorf("%q is not allowed: want a duration of 0 or more (30s, 5m; 0 waits as long as it takes)", arg)
		}
		*d = v
		return nil
	})
	return d
}

// TokenFlag registers -token, an access token, with usage and a note that
// a flag's value shows in ps. The function it returns, called after Parse,
// gives the token: the flag's, with a warning to pass LAB_TOKEN instead, or
// else $LAB_TOKEN.
func (c *Command) TokenFlag(usage string) func() string {
	token := c.Flags.String("token", "", usage+". A flag's value shows to every user of the machine (ps): prefer LAB_TOKEN")
	return func() string {
		if *token == "" {
			return os.Getenv("LAB_TOKEN")
		}
		c.Printf("warning: -token shows the token to every user of this machine (ps, /proc/PID/cmdline): pass it as LAB_TOKEN instead")
		return *token
	}
}
