package studies

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/study"
)

// TestTuneConstraintUnits: a constraint's max is a JSON number in the SI
// unit, or text as a person types it: a plain number in the display unit,
// or with a unit; a bad one names its row and the unit. A record keeps
// which it was.
func TestTuneConstraintUnits(t *testing.T) {
	var req TuneRequest
	body := `{"constraints":[{"metric":"addedLatency","max":"150ms"},{"metric":"underrun","max":"5"},{"metric":"errP95","max":0.2},{"metric":"extraLatency","max":"60"},{"metric":"recovery","max":"500"}]}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	cs, err := req.constraints()
	want := []study.Constraint{{Metric: "addedLatency", Max: 0.15}, {Metric: "underrun", Max: 0.05}, {Metric: "errP95", Max: 0.2}, {Metric: "extraLatency", Max: 0.06}, {Metric: "recovery", Max: 0.5}}
	if err != nil || !reflect.DeepEqual(cs, want) {
		t.Errorf("constraints = %v, %v; want %v", cs, err, want)
	}
	if f := tuneFormOf(req); f.Constraints[0].Max != "150" || f.Constraints[1].Max != "5" || f.Constraints[2].Max != "20" || f.Constraints[3].Max != "60" {
		t.Errorf("form constraints = %+v, want 150 (ms), 5 (%%), 20 (cm), 60 (ms)", f.Constraints)
	}
	stored, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var again TuneRequest
	if err := json.Unmarshal(stored, &again); err != nil {
		t.Fatal(err)
	}
	if cs, err := again.constraints(); err != nil || !reflect.DeepEqual(cs, want) {
		t.Errorf("constraints of the record %s = %v, %v; want %v", stored, cs, err, want)
	}
	req.Constraints = []tuneConstraint{{Metric: "addedLatency", Max: textOf("150 furlongs")}}
	_, err = req.constraints()
	if fe, ok := err.(*engine.FieldError); !ok || fe.Field != "constraints[0].max" || !strings.Contains(fe.Allowed, "ms") {
		t.Errorf("constraints(150 furlongs) = %v, want a FieldError on constraints[0].max", err)
	}
}

func TestBasePreset(t *testing.T) {
	tests := []struct{ ref, want string }{
		{"preset:wifi", "wifi"}, {"q:preset=harbor-before&delay=100", "harbor-before"}, {"q:delay=100", ""}, {"session:abc", ""}, {"", ""},
	}
	for _, tt := range tests {
		if got := basePreset(tt.ref); got != tt.want {
			t.Errorf("basePreset(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

// TestDecodeJob: every kind of archived study comes back as the types its
// page reads, with or without a result; an unknown kind or bad JSON is an
// error.
func TestDecodeJob(t *testing.T) {
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	sweep := &sweepJob{Label: "wifi"}
	tune := &tuneJob{Label: "lan", Preset: "lan"}
	pop := &populationJob{Label: "defaults", Population: "Harbor"}
	for _, tt := range []struct {
		kind         string
		spec, result any
	}{
		{"sweep", sweep, []study.SweepPoint{{X: 0.1}}},
		{"tune", tune, study.TuneResult{Feasible: true}},
		{"population", pop, &study.PopulationResult{Spec: study.PopulationSpec{Population: study.Population{Entities: 3}}}},
	} {
		spec, res, err := DecodeJob(tt.kind, enc(tt.spec), enc(tt.result))
		if err != nil || !reflect.DeepEqual(spec, tt.spec) || !reflect.DeepEqual(res, tt.result) {
			t.Errorf("%s: DecodeJob = %#v, %#v, %v; want %#v, %#v", tt.kind, spec, res, err, tt.spec, tt.result)
		}
		if spec, res, err := DecodeJob(tt.kind, enc(tt.spec), nil); err != nil || !reflect.DeepEqual(spec, tt.spec) || res != nil {
			t.Errorf("%s without a result: %#v, %#v, %v", tt.kind, spec, res, err)
		}
		if _, _, err := DecodeJob(tt.kind, []byte("{"), nil); err == nil {
			t.Errorf("%s: a broken spec decodes", tt.kind)
		}
	}
	if _, _, err := DecodeJob("bake", []byte("{}"), nil); err == nil {
		t.Error("an unknown kind decodes")
	}
}

// TestDecodeJobUpgradesOldTunings: a tuning archived before results said
// whether they recommend kept its least violating candidate as Best; read
// back, it recommends only what Tune would recommend now.
func TestDecodeJobUpgradesOldTunings(t *testing.T) {
	spec := []byte(`{}`)
	for _, tt := range []struct {
		name, result    string
		wantRecommended bool
		wantClosest     int
	}{
		{"a feasible, cheaper best", `{"base":{"cost":10,"feasible":true},"best":{"cost":5,"feasible":true},"feasible":true,"candidates":[]}`, true, 0},
		{"the base as best", `{"base":{"cost":10,"feasible":true},"best":{"cost":10,"feasible":true},"feasible":true,"candidates":[]}`, false, 0},
		{"nothing feasible", `{"base":{"cost":10,"violation":5},"best":{"cost":1,"violation":3},"feasible":false,"candidates":[{"cost":10,"violation":5},{"cost":1,"violation":3}]}`, false, 2},
	} {
		_, res, err := DecodeJob("tune", spec, []byte(tt.result))
		if err != nil {
			t.Fatal(err)
		}
		r := res.(study.TuneResult)
		if r.Recommended != tt.wantRecommended || len(r.Closest) != tt.wantClosest || !r.Recommended && !reflect.DeepEqual(r.Best, study.Candidate{}) {
			t.Errorf("%s: recommended %v, best %+v, %d closest; want %v, %d", tt.name, r.Recommended, r.Best, len(r.Closest), tt.wantRecommended, tt.wantClosest)
		}
		if tt.wantClosest > 0 && r.Closest[0].Violation != 3 {
			t.Errorf("%s: closest[0] violates by %v, want the least, 3", tt.name, r.Closest[0].Violation)
		}
	}
}

// TestSweepAxisUnits: an axis's min and max are JSON numbers in the stored
// unit, or text as a person types it (a plain number in the display unit).
func TestSweepAxisUnits(t *testing.T) {
	var req sweepRequest
	if err := json.Unmarshal([]byte(`{"x":{"name":"delay","min":0.02,"max":"200","steps":3},"y":{"name":"bandwidth","min":"256kbit/s","max":"2000","steps":2}}`), &req); err != nil {
		t.Fatal(err)
	}
	x, err := req.X.axis("x")
	if err != nil || x.Min != 0.02 || x.Max != 0.2 {
		t.Errorf("x = %+v, %v; want delay from 0.02 to 0.2 s", x, err)
	}
	y, err := req.Y.axis("y")
	if err != nil || y.Min != 256000 || y.Max != 2e6 {
		t.Errorf("y = %+v, %v; want bandwidth from 256000 to 2000000 bit/s", y, err)
	}
	f := sweepFormOf(req)
	if f.X.Min != "20ms" || f.X.Max != "200" || f.Y.Min != "256kbit/s" {
		t.Errorf("form = %+v %+v, want x from 20ms to 200, y from 256kbit/s", f.X, f.Y)
	}
	req.X.Max = textOf("900")
	if _, err := req.X.axis("x"); err == nil || !strings.Contains(err.Error(), `x.max = "900" is not allowed: want [0, 500] ms`) {
		t.Errorf("x.max 900 = %v, want the range in ms", err)
	}
}
