package server

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/compare"
	"interplab/engine"
	"interplab/templates"
)

// compareTestPresets stand in for package presets in these tests: short
// runs that differ in tuning and in scenario.
func compareTestPresets() map[string]engine.Settings {
	lan := engine.Defaults()
	lan.Latency, lan.Jitter, lan.Duration, lan.Entities = 0.01, 0.002, 8, 3

	wifi := engine.Defaults()
	wifi.Latency, wifi.Jitter, wifi.Loss = 0.03, 0.02, 0.02
	wifi.Motion, wifi.Duration, wifi.Entities, wifi.Seed = "strafe", 10, 4, 3

	mobile := engine.Defaults()
	mobile.Latency, mobile.Jitter, mobile.Loss, mobile.LossModel = 0.06, 0.04, 0.05, "burst"
	mobile.Adaptive, mobile.Seed, mobile.Duration, mobile.MaxSpeed = true, 7, 30, 9
	mobile.Techniques = []string{engine.TechSnap, engine.TechBuffer}
	return map[string]engine.Settings{"lan": lan, "wifi": wifi, "4g": mobile}
}

// compareTestResolve resolves the refs of these tests: preset:NAME,
// q:QUERY (settings over the defaults, as a share link carries them) and
// label:TEXT (the defaults, labelled TEXT, for escaping tests).
func compareTestResolve(ref string) (string, engine.Settings, error) {
	kind, arg, _ := strings.Cut(ref, ":")
	switch kind {
	case "preset":
		s, ok := compareTestPresets()[arg]
		if !ok {
			return "", engine.Settings{}, fmt.Errorf("no preset %q", arg)
		}
		return arg, s, nil
	case "q":
		q, err := url.ParseQuery(arg)
		if err != nil {
			return "", engine.Settings{}, fmt.Errorf("share query: %w", err)
		}
		s := engine.Defaults()
		s.Duration = 5
		for name, vals := range q {
			if err := s.SetText(name, vals[len(vals)-1]); err != nil {
				return "", engine.Settings{}, err
			}
		}
		return "current", s, nil
	case "label":
		s := engine.Defaults()
		s.Duration = 5
		return arg, s, nil
	}
	return "", engine.Settings{}, fmt.Errorf("ref %q: want preset:, q: or label:", ref)
}

// BenchmarkCompare is one whole comparison page of 8 variants of the
// default settings (6 entities, 60 s, every technique), run afresh: each
// iteration has its own seed, so the cache never answers.
func BenchmarkCompare(b *testing.B) {
	seed := 1000
	for b.Loop() {
		seed++
		vs := make([]compare.Variant, 8)
		refs := make([]string, 8)
		for i := range vs {
			s := engine.Defaults()
			s.Seed, s.Latency = seed, 0.01*float64(i+1)
			vs[i], refs[i] = compare.Variant{Label: fmt.Sprint("v", i), Settings: s}, fmt.Sprint("q:latency=", s.Latency)
		}
		c, err := compare.NewRunner(runtime.GOMAXPROCS(0)).Run(context.Background(), vs)
		if err != nil {
			b.Fatal(err)
		}
		view, err := compareView(refs, c)
		if err != nil {
			b.Fatal(err)
		}
		if err := templates.Compare(view).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
