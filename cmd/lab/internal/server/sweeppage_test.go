package server

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/study"
)

// sweepPageBase is a short scenario for sweeps in tests.
const sweepPageBase = "q:duration=4&entities=2"

func sweepTestSpec(t *testing.T, s *Server, y bool) study.SweepSpec {
	t.Helper()
	_, base, err := s.refs.Settings(sweepPageBase)
	if err != nil {
		t.Fatal(err)
	}
	spec := study.SweepSpec{Base: base, Technique: "buffer", X: study.Axis{Name: "delay", Min: 0.05, Max: 0.2, Steps: 4}}
	if y {
		spec.Y = &study.Axis{Name: "jitter", Min: 0, Max: 0.03, Steps: 3}
	}
	return spec
}

func sweepGetJSON(t *testing.T, u string, out any) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return resp.StatusCode
}

func TestSweepJobMatchesEngine(t *testing.T) {
	for _, twoD := range []bool{false, true} {
		t.Run("y="+strconv.FormatBool(twoD), func(t *testing.T) {
			s, srv := jobsTestServer(t)
			spec := sweepTestSpec(t, s, twoD)
			body := `{"technique":"buffer","base":"` + sweepPageBase + `","x":{"name":"delay","min":0.05,"max":"200","steps":4}`
			if twoD {
				body += `,"y":{"name":"jitter","min":0,"max":0.03,"steps":3}`
			}
			acc := jobsStart(t, srv, "/api/sweeps", body+"}")
			if acc.Total != spec.Points() {
				t.Errorf("total = %d, want %d", acc.Total, spec.Points())
			}
			msgs := jobsFollow(t, jobsDial(t, srv, acc))

			// Progress: done grows to total, every point arrives once.
			var got []study.SweepPoint
			last := 0
			for _, m := range msgs[:len(msgs)-1] {
				if m.Type != "progress" || m.Done < last {
					t.Errorf("message %+v after done %d: want progress, done not decreasing", m, last)
				}
				last = m.Done
				for _, raw := range m.Items {
					var p study.SweepPoint
					if err := json.Unmarshal(raw, &p); err != nil {
						t.Fatal(err)
					}
					got = append(got, p)
				}
			}
			end := msgs[len(msgs)-1]
			if end.State != jobs.Done || end.Done != spec.Points() || len(got) != spec.Points() {
				t.Fatalf("end %+v with %d points, want done with %d", end, len(got), spec.Points())
			}

			want, err := study.Sweep(context.Background(), spec, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			byIJ := map[[2]int]study.SweepPoint{}
			for _, p := range got {
				byIJ[[2]int{p.I, p.J}] = p
			}
			for _, w := range want {
				if g := byIJ[[2]int{w.I, w.J}]; !reflect.DeepEqual(g, w) {
					t.Errorf("point (%d, %d) over the socket = %+v, want study.Sweep's %+v", w.I, w.J, g, w)
				}
			}

			// The chart of each metric holds engine.Sweep's values.
			for _, metric := range []string{"errP95", "underrun"} {
				var ch struct {
					Option struct {
						Series []struct {
							Data []struct {
								Value json.RawMessage `json:"value"`
							} `json:"data"`
						} `json:"series"`
					} `json:"option"`
				}
				if code := sweepGetJSON(t, srv.URL+acc.Page+"/chart?metric="+metric, &ch); code != http.StatusOK {
					t.Fatalf("chart %s = %d", metric, code)
				}
				mi := report.MetricIndex(metric)
				f := engine.MetricFields[mi]
				data := ch.Option.Series[0].Data
				if len(data) != len(want) {
					t.Fatalf("chart %s has %d values, want %d", metric, len(data), len(want))
				}
				for k, w := range want {
					var v []float64
					if err := json.Unmarshal(data[k].Value, &v); err != nil {
						t.Fatalf("chart %s value %d = %s: %v", metric, k, data[k].Value, err)
					}
					wantV := report.Round(w.Metrics.Values(nil)[mi]*f.Scale, 4) // as charted
					if gotV := v[len(v)-1]; gotV != wantV {
						t.Errorf("chart %s at (%d, %d) = %g, want %g", metric, w.I, w.J, gotV, wantV)
					}
				}
			}

			// The CSV has every point in grid order, SI units, every digit.
			resp, err := http.Get(srv.URL + acc.Page + "/data.csv")
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(resp.Body).ReadAll()
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(want)+1 {
				t.Fatalf("CSV has %d rows, want %d", len(rows), len(want)+1)
			}
			col := 1
			if twoD {
				col = 2
			}
			for k, w := range want {
				if g, wv := rows[k+1][col], strconv.FormatFloat(w.Metrics.ErrRMS, 'g', -1, 64); g != wv {
					t.Errorf("CSV row %d errRMS = %s, want %s", k+1, g, wv)
				}
			}

			// The job's page shows the chart.
			resp, err = http.Get(srv.URL + acc.Page)
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(page), `id="sweep-chart"`) || !strings.Contains(string(page), `data-state="done"`) {
				t.Errorf("GET %s: no chart of a done job in the page", acc.Page)
			}
		})
	}
}

func TestSweepChartBadMetric(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/sweeps", `{"technique":"buffer","base":"`+sweepPageBase+`","x":{"name":"adaptive","min":"false","max":"true","steps":2}}`)
	jobsFollow(t, jobsDial(t, srv, acc))
	var e errorBody
	if code := sweepGetJSON(t, srv.URL+acc.Page+"/chart?metric=nope", &e); code != http.StatusBadRequest || e.Field != "metric" {
		t.Errorf("chart?metric=nope = %d %+v, want 400 on metric", code, e)
	}
}

func TestSweepPageFromLab(t *testing.T) {
	_, srv := jobsTestServer(t)
	base := "q:preset=wifi&loss=5"
	resp, err := http.Get(srv.URL + "/sweep?base=" + url.QueryEscape(base))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `value="q:preset=wifi&amp;loss=5"`) {
		t.Errorf("GET /sweep?base=%s = %d, want the base in the form", base, resp.StatusCode)
	}
	if strings.Contains(string(page), "//cdn") || strings.Contains(string(page), "https://") {
		t.Errorf("the sweep page loads something from outside the lab")
	}
}
