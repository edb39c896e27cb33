package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A library designer's preset runs, tunes and sweeps their library when no
// technique is named: lab population, tune and sweep start on the settings'
// own technique, as the lab page's Tune…, Sweep… and Population… do; a
// preset of the lab's own starts on buffer, as before.
func TestStudiesStartOnTheLibrary(t *testing.T) {
	for _, tt := range []struct{ preset, want string }{
		{"geckos-20fps", "geckos"},
		{"mirror-30hz", "mirror"},
		{"harbor-before", "buffer"},
	} {
		var out, errb bytes.Buffer
		if code := runPopulation([]string{"-preset", tt.preset, "-entities", "2", "-rounds", "1", "-round", "5", "-json"}, &out, &errb); code != 0 {
			t.Fatalf("lab population -preset %s: exit %d\n%s", tt.preset, code, errb.String())
		}
		var pop struct{ Techniques []struct{ Name string } }
		if err := json.Unmarshal(out.Bytes(), &pop); err != nil || len(pop.Techniques) != 1 || pop.Techniques[0].Name != tt.want {
			t.Errorf("lab population -preset %s ran %+v (%v), want %s alone", tt.preset, pop.Techniques, err, tt.want)
		}

		out.Reset()
		errb.Reset()
		if code := runTune([]string{"-preset", tt.preset, "-set", "duration=5", "-budget", "2", "-json"}, &out, &errb); code != 0 {
			t.Fatalf("lab tune -preset %s: exit %d\n%s", tt.preset, code, errb.String())
		}
		var tune struct{ Spec struct{ Technique string } }
		if err := json.Unmarshal(out.Bytes(), &tune); err != nil || tune.Spec.Technique != tt.want {
			t.Errorf("lab tune -preset %s tuned %q (%v), want %s", tt.preset, tune.Spec.Technique, err, tt.want)
		}
	}
	var out, errb bytes.Buffer
	if code := runSweep([]string{"-preset", "mirror-30hz", "-set", "duration=5", "-x", "mirror.bufferTimeMultiplier=1:3:2", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("lab sweep -preset mirror-30hz: exit %d\n%s", code, errb.String())
	}
	var sweep struct{ Technique string }
	if err := json.Unmarshal(out.Bytes(), &sweep); err != nil || sweep.Technique != "mirror" {
		t.Errorf("lab sweep -preset mirror-30hz swept %q (%v), want mirror", sweep.Technique, err)
	}
}
