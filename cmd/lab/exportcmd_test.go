package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestExportTechniqueHint: a technique's export asked of settings that do
// not run the technique says how to get them: its library's preset, or the
// techniques with it added; and either way works.
func TestExportTechniqueHint(t *testing.T) {
	cases := []struct {
		args []string
		want []string // in stderr
		fix  [][]string
	}{
		{[]string{"export", "-format", "mirror"}, []string{"-preset mirror-30hz", "-set techniques=epic,epicfix,snap,buffer,hermite,mirror"},
			[][]string{{"export", "-format", "mirror", "-preset", "mirror-30hz"}, {"export", "-format", "mirror", "-set", "techniques=epic,epicfix,snap,buffer,hermite,mirror"}}},
		{[]string{"export", "-format", "ngo", "-preset", "wifi"}, []string{"-preset ngo-defaults", "-set techniques=epic,epicfix,snap,buffer,hermite,ngo"},
			[][]string{{"export", "-format", "ngo", "-preset", "wifi", "-set", "techniques=epic,epicfix,snap,buffer,hermite,ngo"}}},
		{[]string{"export", "-format", "cpp", "-set", "techniques=buffer"}, []string{"-set techniques=epic,buffer"},
			[][]string{{"export", "-format", "cpp", "-set", "techniques=epic,buffer"}}},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if status := run(c.args, nil, &stdout, &stderr); status != 2 {
			t.Errorf("run(%q) = %d, want 2", c.args, status)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("run(%q) stderr = %q, want it to suggest %q", c.args, stderr.String(), w)
			}
		}
		for _, fix := range c.fix {
			stdout.Reset()
			stderr.Reset()
			if status := run(fix, nil, &stdout, &stderr); status != 0 || stdout.Len() == 0 {
				t.Errorf("the suggested run(%q) = %d, %q", fix, status, stderr.String())
			}
		}
	}
}
