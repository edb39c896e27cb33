package study

import (
	"strings"
	"testing"
)

func TestParseAxis(t *testing.T) {
	tests := []struct {
		arg     string
		want    Axis
		wantErr string
	}{
		{arg: "delay=0:200:5", want: Axis{Name: "delay", Min: 0, Max: 0.2, Steps: 5}},
		{arg: " sendRate = 10:20:3", want: Axis{Name: "sendRate", Min: 10, Max: 20, Steps: 3}},
		{arg: "motion=strafe:circle", want: Axis{Name: "motion", Min: 0, Max: 3, Steps: 4}},
		{arg: "adaptive", want: Axis{Name: "adaptive", Min: 0, Max: 1, Steps: 2}},
		{arg: "speedClamp=false:true:2", want: Axis{Name: "speedClamp", Min: 0, Max: 1, Steps: 2}},
		{arg: "entities=1:8", want: Axis{Name: "entities", Min: 1, Max: 8, Steps: 8}},
		{arg: "delay", wantErr: "delay=min:max:steps"},
		{arg: "delay=0:200ms:5", want: Axis{Name: "delay", Min: 0, Max: 0.2, Steps: 5}},
		{arg: "delay=0s:0.2s:5", want: Axis{Name: "delay", Min: 0, Max: 0.2, Steps: 5}},
		{arg: "delay=0:200", wantErr: "delay=min:max:steps"},
		{arg: "nosuch=1:2:3", wantErr: `unknown parameter "nosuch"`},
		{arg: "delay=a:200:3", wantErr: "delay"},
		{arg: "delay=0:900:3", wantErr: "[0, 500] ms"},
		{arg: "delay=0:200:x", wantErr: "steps"},
		{arg: "motion=strafe:moon", wantErr: "one of strafe"},
		{arg: "techniques", wantErr: "cannot be swept"},
	}
	for _, tt := range tests {
		got, err := ParseAxis(tt.arg)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseAxis(%q) error = %v, want one containing %q", tt.arg, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("ParseAxis(%q) error = %v", tt.arg, err)
		case got != tt.want:
			t.Errorf("ParseAxis(%q) = %+v, want %+v", tt.arg, got, tt.want)
		}
	}
}

func TestParseTuneText(t *testing.T) {
	var w TuneWeights
	if err := ParseTuneWeights("errP95=2, underrun=0.5", &w); err != nil || w.ErrP95 != 2 || w.Underrun != 0.5 {
		t.Errorf("ParseTuneWeights = %+v, %v", w, err)
	}
	for text, want := range map[string]string{"lag=1": "errP95, addedLatency", "snaps": "name=value", "snaps=x": "weights.snaps"} {
		if err := ParseTuneWeights(text, &w); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTuneWeights(%q) = %v, want an error naming %q", text, err, want)
		}
	}
	cs, err := ParseConstraints("addedLatency=150,underrun=2")
	if err != nil || len(cs) != 2 || cs[0] != (Constraint{"addedLatency", 0.15}) || cs[1] != (Constraint{"underrun", 0.02}) {
		t.Errorf("ParseConstraints = %+v, %v", cs, err)
	}
	for text, want := range map[string]string{"lag=1": "a metric name", "underrun": "metric=value", "underrun=lots": "constraints.underrun"} {
		if _, err := ParseConstraints(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConstraints(%q) = %v, want an error naming %q", text, err, want)
		}
	}
}
