package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunEpicUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // parts of stderr
	}{
		{"help", []string{"-h"}, []string{"usage: lab epic", "-calcAhead ms", "[0, 1000] ms", "-slopTime ms", "[0, 5000] ms", "(default 500ms)"}},
		{"out of range", []string{"-calcAhead", "1500"}, []string{`-calcAhead: calcAhead = "1500" is not allowed: want [0, 1000] ms`}},
		{"out of range in s", []string{"-calcAhead", "1.5s"}, []string{`-calcAhead: calcAhead = "1.5s" is not allowed: want [0, 1] s, that is [0, 1000] ms`}},
		{"negative", []string{"-slopTime=-1"}, []string{`slopTime = "-1" is not allowed: want [0, 5000] ms`}},
		{"not a number", []string{"-displayBehind", "NaN"}, []string{`displayBehind = "NaN" is not allowed`}},
		{"unknown flag", []string{"-latency", "0.1"}, []string{"-latency", "usage: lab epic"}},
		{"argument", []string{"packets.txt"}, []string{`unexpected argument "packets.txt"`, "usage: lab epic"}},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := runEpic(tt.args, strings.NewReader("1,2,3/4,5,6/0.1\n"), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 {
			t.Errorf("%s: runEpic(%q) = %d with %d bytes on stdout, want 2 and none", tt.name, tt.args, code, stdout.Len())
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr does not contain %q:\n%s", tt.name, w, stderr.String())
			}
		}
	}
}

func TestRunEpicFlagsSetSettings(t *testing.T) {
	// With slopTime 0 every read fails and the display stays at the origin.
	var stdout, stderr bytes.Buffer
	runEpic([]string{"-slopTime", "0"}, strings.NewReader("1,2,3/4,5,6/0\n"), &stdout, &stderr)
	want := "pos: 0.00,0.00,0.00  vel: 9.000,15.000,21.000  time: 0.050\n" +
		"pos: 0.00,0.00,0.00  vel: 9.000,15.000,21.000  time: 0.100\n" +
		"pos: 0.00,0.00,0.00  vel: 9.000,15.000,21.000  time: 0.150\n"
	if stdout.String() != want {
		t.Errorf("-slopTime 0: stdout = %q, want %q", stdout.String(), want)
	}
}
