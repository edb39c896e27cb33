package traceio

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/geom"
	"interplab/presets"
)

// update rewrites the sample traces, presets/traces/*.csv, from the engine.
var update = flag.Bool("update", false, "rewrite presets/traces/*.csv from the engine's recording")

func TestParseTraceFormats(t *testing.T) {
	csvFile := "# a capture\n" +
		"Entity, SEQ, sent, arrive, x, y, z, vx, vy, vz, qx, qy, qz, qw\n" +
		"7, 3, 1.10, 1.16, 1, 2, 0, 1, 0, 0, 0, 0, 0, 1\n" +
		"\n" +
		"7, 2, 1.05, , 0.95, 2, 0, 1, 0, 0, 0, 0, 0, 1\n" + // lost, and listed after a later send
		"2, 2, 1.05, 1.09, 5, 5, 0, 0, 1, 0, 0, 0, 0.7071068, 0.7071068\n" +
		"7, 4, 1.15, 1.2, 1.05, 2, 0, 1, 0, 0, 0, 0, 0, 1\n"
	jsonFile := `{"entity":7,"seq":3,"sent":1.10,"arrive":1.16,"pos":[1,2,0],"vel":[1,0,0],"rot":[0,0,0,1]}
{"entity":7,"seq":2,"sent":1.05,"arrive":null,"x":0.95,"y":2,"z":0,"vx":1,"vy":0,"vz":0,"qx":0,"qy":0,"qz":0,"qw":1}

{"entity":2,"seq":2,"sent":1.05,"delay":0.04,"pos":[5,5,0],"vel":[0,1,0],"rot":[0,0,0.7071068,0.7071068]}
{"entity":7,"seq":4,"sent":1.15,"arrive":1.2,"pos":[1.05,2,0],"vel":[1,0,0],"rot":[0,0,0,1]}
`
	for _, c := range []struct{ name, format, data string }{
		{"csv", "csv", csvFile}, {"jsonl", "jsonl", jsonFile},
		{"csv detected", "", csvFile}, {"jsonl detected", "", jsonFile},
	} {
		tr, format, err := Parse(strings.NewReader(c.data), c.format, "t")
		if err != nil {
			t.Fatalf("%s: Parse = %v", c.name, err)
		}
		if want := strings.Fields(c.name)[0]; format != want {
			t.Errorf("%s: format = %q, want %q", c.name, format, want)
		}
		if tr.Entities != 2 || len(tr.Packets) != 4 {
			t.Fatalf("%s: %d entities, %d packets; want 2, 4", c.name, tr.Entities, len(tr.Packets))
		}
		// Sorted by sent, in file order at the same sent; id 2 is
		// entity 0, id 7 entity 1.
		want := []struct {
			entity, seq int
			sent        float64
			lost        bool
		}{{1, 2, 1.05, true}, {0, 2, 1.05, false}, {1, 3, 1.10, false}, {1, 4, 1.15, false}}
		for i, w := range want {
			p := tr.Packets[i]
			if p.Entity != w.entity || p.Seq != w.seq || p.Sent != w.sent || math.IsNaN(p.Arrive) != w.lost || !p.HasRot {
				t.Errorf("%s: packet %d = %+v, want entity %d seq %d sent %v lost %v with a rotation",
					c.name, i, p, w.entity, w.seq, w.sent, w.lost)
			}
		}
		if d := tr.Packets[1].Arrive - 1.09; math.Abs(d) > 1e-12 {
			t.Errorf("%s: arrive from delay = %v, want 1.09", c.name, tr.Packets[1].Arrive)
		}
		if y := tr.Packets[1].Rot.Yaw(); math.Abs(y-math.Pi/2) > 1e-6 {
			t.Errorf("%s: yaw = %v, want π/2", c.name, y)
		}
	}
}

func TestParseTraceSeed(t *testing.T) {
	data := "0,0,0 / 1,0.5,0 / 0\n 0.05 , 0.025,0/1,0.5,0/0.05\n\n0.1,0.05,0/1,0.5,0/0.1\nq\n1,1,1/1,1,1/9\n"
	tr, format, err := Parse(strings.NewReader(data), "", "seed")
	if err != nil {
		t.Fatal(err)
	}
	if format != "seed" || tr.Entities != 1 || len(tr.Packets) != 3 {
		t.Fatalf("format %q, %d entities, %d packets; want seed, 1, 3 (q ends the input)", format, tr.Entities, len(tr.Packets))
	}
	for i, p := range tr.Packets {
		if p.Seq != i || p.Arrive != p.Sent || p.Vel != (geom.Vec3{1, 0.5, 0}) || p.HasRot {
			t.Errorf("packet %d = %+v, want seq %d, arrive = sent, vel (1, 0.5, 0), no rotation", i, p, i)
		}
	}
	if e := tr.Network(); e.Latency != 0 || e.Jitter != 0 || e.Loss != 0 || e.SendRate != 20 {
		t.Errorf("Network() = %+v, want no delay, no loss, 20 Hz", e)
	}
}

// A malformed file is an error naming its line and field.
func TestParseTraceErrors(t *testing.T) {
	const head = "sent,arrive,x,y,z,vx,vy,vz\n"
	cases := []struct {
		name, format, data string
		line               int
		field              string
	}{
		{"empty", "csv", "", 0, ""},
		{"header only", "csv", head, 1, ""},
		{"unknown column", "csv", "sent,arrival,x,y,z,vx,vy,vz\n", 1, "arrival"},
		{"missing column", "csv", "sent,arrive,x,y,vx,vy,vz\n", 1, "z"},
		{"arrive and delay", "csv", "sent,arrive,delay,x,y,z,vx,vy,vz\n", 1, "arrive"},
		{"half a quaternion", "csv", "sent,arrive,x,y,z,vx,vy,vz,qz,qw\n", 1, "qw"},
		{"not a number", "csv", head + "0,0.1,0,0,0,0,0,0\n0.05,0.15,zero,0,0,0,0,0\n", 3, "x"},
		{"infinite", "csv", head + "0,0.1,0,0,0,0,0,inf\n", 2, "vz"},
		{"short row", "csv", head + "0,0.1,0,0,0,0,0,0\n0.05,0.15,0,0\n", 3, ""},
		{"bad quote", "csv", head + "0,\"0.1,0,0,0,0,0,0\n", 2, ""},
		{"negative entity", "csv", "entity," + head + "-1,0,0.1,0,0,0,0,0,0\n", 2, "entity"},
		{"not unit", "csv", "sent,arrive,x,y,z,vx,vy,vz,qx,qy,qz,qw\n0,0.1,0,0,0,0,0,0,0,0,0,2\n", 2, "qw"},
		{"arrives early", "csv", head + "0,0.1,0,0,0,0,0,0\n# note\n0.05,0.04,0,0,0,0,0,0\n", 4, "arrive"},
		{"two states at once", "csv", "seq," + head + "0,0,0.1,0,0,0,0,0,0\n1,0,0.1,0,0,0,0,0,0\n", 3, "sent"},
		{"seq backwards", "csv", "seq," + head + "5,0,0.1,0,0,0,0,0,0\n4,0.05,0.1,0,0,0,0,0,0\n", 3, "seq"},
		{"json syntax", "jsonl", `{"sent":0,"arrive":0,"pos":[0,0,0],"vel":[0,0,0]}` + "\n{\"sent\":\n", 2, "sent"},
		{"json key twice", "jsonl", `{"sent":0,"arrive":0,"pos":[0,0,0],"vel":[0,0,0],"sent":1}`, 1, "sent"},
		{"json not UTF-8", "jsonl", "{\"sent\":0,\"arrive\":0,\"pos\":[0,0,0],\"vel\":[0,0,0],\"note\xff\":1}", 1, ""},
		{"json unknown key", "jsonl", `{"sent":0,"arrive":0,"pos":[0,0,0],"vel":[0,0,0],"speed":3}`, 1, "speed"},
		{"json pos length", "jsonl", `{"sent":0,"arrive":0,"pos":[0,0],"vel":[0,0,0]}`, 1, "pos"},
		{"json twice", "jsonl", `{"sent":0,"arrive":0,"pos":[0,0,0],"x":1,"vel":[0,0,0]}`, 1, "x"},
		{"json type", "jsonl", `{"sent":"0","arrive":0,"pos":[0,0,0],"vel":[0,0,0]}`, 1, "sent"},
		{"json fraction entity", "jsonl", `{"entity":0.5,"sent":0,"arrive":0,"pos":[0,0,0],"vel":[0,0,0]}`, 1, "entity"},
		{"json seq on some", "jsonl", `{"seq":0,"sent":0,"arrive":0,"pos":[0,0,0],"vel":[0,0,0]}` + "\n" +
			`{"sent":1,"arrive":1,"pos":[0,0,0],"vel":[0,0,0]}`, 2, "seq"},
		{"json missing vel", "jsonl", `{"sent":0,"arrive":0,"pos":[0,0,0]}`, 1, "vx"},
		{"seed fields", "seed", "0,0,0/1,0,0/0\n0,0/1,0,0/0.05\n", 2, "x"},
		{"seed parts", "seed", "0,0,0/1,0,0/0\n0,0,0/1,0,0\n", 2, ""},
		{"seed trailing text", "seed", "0,0,0/1,0,0/0 ok\n", 1, "sent"},
		{"seed same time", "seed", "0,0,0/1,0,0/0\n0,0,0/1,0,0/0.05\n0,0,0/2,0,0/0.05\n", 3, "vx"},
		{"unknown format", "xml", "<trace/>", 0, "format"},
	}
	for _, c := range cases {
		_, _, err := Parse(strings.NewReader(c.data), c.format, "t")
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: Parse = %v, want a *InputError", c.name, err)
			continue
		}
		if ie.Line != c.line || ie.Field != c.field {
			t.Errorf("%s: Parse = %q (line %d, field %q), want line %d, field %q", c.name, err, ie.Line, ie.Field, c.line, c.field)
		}
		if c.line > 0 && !strings.HasPrefix(err.Error(), "line ") {
			t.Errorf("%s: error %q does not start with its line", c.name, err)
		}
	}
}

func TestParseTraceLimits(t *testing.T) {
	big := bytes.Repeat([]byte("x"), MaxBytes+1)
	if _, _, err := Parse(bytes.NewReader(big), "", "t"); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("Parse(%d bytes) = %v, want a size error", len(big), err)
	}
	var b bytes.Buffer
	b.WriteString("sent,arrive,x,y,z,vx,vy,vz\n")
	for i := range MaxPackets + 1 {
		b.WriteString(formatNumber(float64(i)/100) + ",,0,0,0,0,0,0\n")
	}
	_, _, err := Parse(bytes.NewReader(b.Bytes()), "csv", "t")
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != MaxPackets+2 {
		t.Errorf("Parse(%d rows) = %v, want an error at line %d", MaxPackets+1, err, MaxPackets+2)
	}
	b.Reset()
	b.WriteString("entity,sent,arrive,x,y,z,vx,vy,vz\n")
	for i := range engine.TraceMaxEntities + 1 {
		b.WriteString(formatNumber(float64(i)) + ",0,,0,0,0,0,0,0\n")
	}
	_, _, err = Parse(bytes.NewReader(b.Bytes()), "csv", "t")
	if !errors.As(err, &ie) || ie.Line != engine.TraceMaxEntities+2 || ie.Field != "entity" {
		t.Errorf("Parse(%d entities) = %v, want an entity error at line %d", engine.TraceMaxEntities+1, err, engine.TraceMaxEntities+2)
	}
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteCSV's output reads back as the same trace, to its rounding.
func TestWriteTraceCSVRoundTrip(t *testing.T) {
	s := engine.Defaults()
	s.Entities, s.Duration, s.Loss, s.Duplicate = 3, 5, 0.1, 0.05
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	got, format, err := Parse(bytes.NewReader(b.Bytes()), "", "t")
	if err != nil {
		t.Fatalf("Parse(WriteCSV) = %v", err)
	}
	if format != "csv" || got.Entities != tr.Entities || len(got.Packets) != len(tr.Packets) {
		t.Fatalf("read back %s with %d entities, %d packets; want csv, %d, %d", format, got.Entities, len(got.Packets), tr.Entities, len(tr.Packets))
	}
	for i, p := range tr.Packets {
		q := got.Packets[i]
		if q.Entity != p.Entity || q.Seq != p.Seq || math.Abs(q.Sent-p.Sent) > 1e-6 ||
			math.IsNaN(q.Arrive) != math.IsNaN(p.Arrive) || q.Pos.Sub(p.Pos).Len() > 1e-4 ||
			math.Abs(q.Rot.Yaw()-p.Rot.Yaw()) > 1e-5 && math.Abs(math.Abs(q.Rot.Yaw()-p.Rot.Yaw())-2*math.Pi) > 1e-5 {
			t.Fatalf("packet %d read back as %+v, want %+v", i, q, p)
		}
	}
}

// sampleTraceSettings are the settings a sample trace is made with.
func sampleTraceSettings(t *testing.T, s presets.TraceSample) engine.Settings {
	p, err := presets.Get(s.Preset)
	if err != nil {
		t.Fatal(err)
	}
	set := p.Settings
	set.Entities, set.Seed, set.Motion, set.Duration = 2, 1, "mix", 10
	if s.Name == "sample-4g" {
		// 2% loss leaves 15 s without a loss for some seeds (1 and 4);
		// seed 5 shows the preset's bursts: three, 3.3% of the sends.
		set.Duration, set.Seed = 15, 5
	}
	return set
}

// The sample traces are exactly what the engine records at their presets'
// settings; go test -update rewrites them.
func TestSampleTraces(t *testing.T) {
	samples, err := presets.TraceSamples()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		tr, err := engine.SyntheticTrace(sampleTraceSettings(t, s))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteCSV(&b, tr); err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(filepath.Join("..", "..", "..", "..", "presets", "traces", s.Name+".csv"), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal(b.Bytes(), s.Data) {
			t.Errorf("presets/traces/%s.csv differs from the engine's recording (go test ./cmd/lab/internal/traceio -run TestSampleTraces -update)", s.Name)
			continue
		}
		got, _, err := Parse(bytes.NewReader(s.Data), "", s.Name)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if n := len(got.Packets); n < 200 || n > 1000 {
			t.Errorf("%s: %d packets, want a few hundred", s.Name, n)
		}
		e := got.Network()
		switch s.Preset {
		case "lan":
			if e.Loss != 0 || math.Abs(e.Latency-0.001) > 0.0005 {
				t.Errorf("%s: derived %+v, want a LAN: no loss, about 1 ms", s.Name, e)
			}
		case "4g":
			if e.LossModel != "burst" || math.Abs(e.Latency-0.03) > 0.003 {
				t.Errorf("%s: derived %+v, want 4G: burst loss, about 30 ms", s.Name, e)
			}
		}
	}
}

// FuzzParseTrace: no input panics the parsers, and what they accept is a
// valid trace that survives the flat encoding.
func FuzzParseTrace(f *testing.F) {
	f.Add([]byte("entity,seq,sent,arrive,x,y,z,vx,vy,vz,yaw\n0,0,0,0.05,1,2,3,1,0,0,0.5\n1,0,0,,1,2,3,1,0,0,0\n"), "")
	f.Add([]byte(`{"sent":1,"arrive":1.2,"pos":[0,0,0],"vel":[1,0,0],"rot":[0,0,0,1]}`+"\n"), "jsonl")
	f.Add([]byte("0,0,0 / 1,0.5,0 / 0\n0.05,0.025,0/1,0.5,0/0.05\nq\n"), "")
	f.Add([]byte("sent,delay,x,y,z,vx,vy,vz\n1e9,0.01,0,0,0,0,0,0\n"), "csv")
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		tr, _, err := Parse(bytes.NewReader(data), format, "fuzz")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Parse error %v is not an *InputError", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid trace: %v", err)
		}
		if _, err := engine.TraceFromFlat(tr.AppendFlat(nil)); err != nil {
			t.Fatalf("flat round trip: %v", err)
		}
	})
}

func TestTraceNames(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"capture.csv", "capture"},
		{"/tmp/My Capture (2).JSONL", "my-capture--2"},
		{`C:\logs\run.7.txt`, "run.7"},
		{".csv", "csv"},
		{"ûñí.csv", "trace"},
		{strconv.Itoa(1) + string(make([]byte, 100)), "1"},
	} {
		got := NameFrom(c.file)
		if got != c.want {
			t.Errorf("NameFrom(%q) = %q, want %q", c.file, got, c.want)
		}
		if err := CheckName(got); err != nil {
			t.Errorf("NameFrom(%q) = %q, which CheckName refuses: %v", c.file, got, err)
		}
	}
}

// A line over MaxLine is an error naming it, read no further: a file of
// one endless line cannot make the reader hold it.
func TestParseLongLine(t *testing.T) {
	for _, format := range []string{"jsonl", "seed"} {
		data := "1,2,3 / 0,0,0 / 1\n" + strings.Repeat(" ", MaxLine+1) + "\n"
		if format == "jsonl" {
			data = `{"sent":1,"arrive":1.1,"pos":[0,0,0],"vel":[0,0,0]}` + "\n" + strings.Repeat(" ", MaxLine+1) + "\n"
		}
		_, _, err := Parse(strings.NewReader(data), format, "t")
		ie, ok := errors.AsType[*InputError](err)
		if !ok || ie.Line != 2 || !strings.Contains(ie.Msg, "line over") {
			t.Errorf("%s: Parse of a %d-byte line = %v, want an error at line 2", format, MaxLine+1, err)
		}
	}
}
