package main

import (
	"bytes"
	"strings"
	"testing"
)

// A team's commands refuse an address that is not PostgreSQL's, naming
// the flag and what it wants, with exit status 2; lab backup on
// PostgreSQL names pg_dump.
func TestTeamCommandsBadDB(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"worker"}, 2, "-db"},
		{[]string{"worker", "-db", "mysql://lab@db/lab"}, 2, "postgres://"},
		{[]string{"worker", "-db", "postgres://lab@db/lab", "-jobs", "0"}, 2, "-jobs"},
		{[]string{"serve", "-db", "./data"}, 2, "PostgreSQL address"},
		{[]string{"serve", "-trust-proxy", "10.0.0.0/99"}, 2, "-trust-proxy"},
		{[]string{"serve", "-log-format", "xml"}, 2, "-log-format"},
		{[]string{"backup", "-db", "postgres://lab@db/lab", "x.db"}, 1, "pg_dump"},
		{[]string{"restore", "-db", "postgres://lab@db/lab", "x.db"}, 1, "pg_restore"},
	} {
		t.Setenv("LAB_DB", "")
		var out, errb bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("lab %s: exit %d, %q; want exit %d naming %q", strings.Join(tt.args, " "), code, errb.String(), tt.code, tt.want)
		}
	}
}
