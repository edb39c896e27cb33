package interplab_test

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// depsRules is the module's dependency rule, from the bottom up, in the
// language of Go's go/build/deps_test.go: "a, b < c, d;" lets c and d import
// a and b and everything a and b may import. NONE is the bottom: what
// imports nothing of the module. Each package of the module matches the
// right side of exactly one rule; a name ending in /... stands for a
// package and every package below it. Names leave out the module path
// (interplab/). Only the module's own packages are held here; which
// standard and outside packages a package may use is for its own tests
// (wasm's size_test.go keeps fmt out of lab.wasm).
//
// The layers, bottom up: the engine (engine/layers_test.go orders its
// packages), what is built on it alone (presets, templates, lab.wasm), the
// file formats, the store, what the lab computes from stored things, the
// HTTP layer (jsonapi first), and the lab command. A file format or the
// store never imports the HTTP layer: a trace file is read the same way
// whether it came in a request, from a disk or over a WebSocket.
const depsRules = `
	NONE
	< engine/..., web, wasm/packdata, cmd/lab/internal/obs, cmd/lab/internal/pgtest;

	engine/...
	< presets, templates, wasm;

	# File formats: the lab's JSON and text as files and messages carry them,
	# the one error value bad input is reported as (wire), share links,
	# exports, the libraries' recorded cases.
	engine/...
	< cmd/lab/internal/wire, cmd/lab/internal/seeddriver, cmd/lab/internal/peers;

	cmd/lab/internal/wire
	< cmd/lab/internal/traceio;

	presets
	< cmd/lab/internal/link, cmd/lab/internal/export;

	# The store: saved sessions, presets and traces, on SQLite or PostgreSQL.
	cmd/lab/internal/traceio, cmd/lab/internal/obs, presets
	< cmd/lab/internal/store;

	# What the lab computes and shows from stored things, outside HTTP.
	cmd/lab/internal/store, cmd/lab/internal/export, engine/...
	< cmd/lab/internal/report;

	cmd/lab/internal/report, web
	< cmd/lab/internal/chart;

	cmd/lab/internal/chart, cmd/lab/internal/link
	< cmd/lab/internal/compare;

	# The HTTP layer: the API's errors and middleware, then the packages
	# that serve routes, then the server and what opens it.
	cmd/lab/internal/store
	< cmd/lab/internal/jsonapi;

	cmd/lab/internal/jsonapi, templates
	< cmd/lab/internal/access, cmd/lab/internal/static;

	cmd/lab/internal/jsonapi
	< cmd/lab/internal/jobs, cmd/lab/internal/live;

	cmd/lab/internal/jobs, cmd/lab/internal/compare, cmd/lab/internal/jsonapi, templates
	< cmd/lab/internal/studies;

	# A game's capture socket: batches written to the store as they arrive.
	cmd/lab/internal/store
	< cmd/lab/internal/capture;

	cmd/lab/internal/access, cmd/lab/internal/static, cmd/lab/internal/live, cmd/lab/internal/studies,
	cmd/lab/internal/capture, web
	< cmd/lab/internal/server;

	cmd/lab/internal/server
	< cmd/lab/internal/backend;

	# A follower that pushes the live settings into a running Unreal editor.
	cmd/lab/internal/live
	< cmd/lab/internal/unrealrc;

	# The lab command: what its subcommands share, the subcommands kept out
	# of main, then main.
	cmd/lab/internal/jobs, cmd/lab/internal/store
	< cmd/lab/internal/cli;

	cmd/lab/internal/cli, cmd/lab/internal/traceio
	< cmd/lab/internal/fitcmd;

	cmd/lab/internal/cli, cmd/lab/internal/fitcmd, cmd/lab/internal/unrealrc,
	cmd/lab/internal/backend, cmd/lab/internal/seeddriver, cmd/lab/internal/peers
	< cmd/lab;
`

// depRules is depsRules parsed: each right-side name with every name it
// may import, the left sides' allowances included.
type depRules map[string][]string

// parseDepsRules parses rules in depsRules' language. A left-side name must
// be declared by an earlier rule, so the rules are a DAG by construction.
func parseDepsRules(rules string) (depRules, error) {
	r := depRules{}
	var text strings.Builder
	for line := range strings.Lines(rules) {
		line, _, _ = strings.Cut(line, "#")
		text.WriteString(line)
	}
	for stmt := range strings.SplitSeq(text.String(), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		sides := strings.Split(stmt, "<")
		if len(sides) != 2 {
			return nil, &ruleError{stmt, "want one < between two lists of names"}
		}
		lower, upper := names(sides[0]), names(sides[1])
		if len(lower) == 0 || len(upper) == 0 {
			return nil, &ruleError{stmt, "an empty side"}
		}
		var may []string
		for _, l := range lower {
			if l == "NONE" {
				if len(lower) > 1 {
					return nil, &ruleError{stmt, "NONE stands alone"}
				}
				continue
			}
			lmay, ok := r[l]
			if !ok {
				return nil, &ruleError{stmt, l + " is used before a rule declares it"}
			}
			may = append(may, l)
			may = append(may, lmay...)
		}
		slices.Sort(may)
		may = slices.Compact(may)
		for _, u := range upper {
			if _, ok := r[u]; ok {
				return nil, &ruleError{stmt, u + " is declared twice"}
			}
			r[u] = may
		}
	}
	return r, nil
}

type ruleError struct{ stmt, why string }

func (e *ruleError) Error() string {
	return "rule " + strings.Join(strings.Fields(e.stmt), " ") + ": " + e.why
}

// names splits a side of a rule at its commas.
func names(side string) []string {
	var out []string
	for n := range strings.SplitSeq(side, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// ruleFor is the name of r that pkg matches, or "" for none (or more than
// one: the rules must place each package once).
func (r depRules) ruleFor(pkg string) string {
	var found []string
	for name := range r {
		if matchName(name, pkg) {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

func matchName(name, pkg string) bool {
	if dir, ok := strings.CutSuffix(name, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return name == pkg
}

// check holds graph, each module package with the module packages it
// imports, to r, and says what breaks it, one line each.
func (r depRules) check(graph map[string][]string) []string {
	var bad []string
	for _, pkg := range slices.Sorted(mapKeys(graph)) {
		own := r.ruleFor(pkg)
		if own == "" {
			bad = append(bad, pkg+" is placed by no rule (or by more than one) of depsRules")
			continue
		}
		for _, imp := range graph[pkg] {
			to := r.ruleFor(imp)
			if to == own || slices.Contains(r[own], to) {
				continue
			}
			bad = append(bad, pkg+" imports "+imp+": depsRules lets it import only "+strings.Join(r[own], ", "))
		}
	}
	return bad
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// moduleGraph reads the module's packages and their imports of the module
// with go list, natively and under GOOS=js GOARCH=wasm (wasm's files build
// only there; -e, as the server's packages do not build there), leaving out
// packages of tests alone (this one). Names lose the module path.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{len .GoFiles}} {{join .Imports \" \"}}", "./...")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %v: %v\n%s", env, err, out)
		}
		for line := range strings.Lines(strings.TrimSpace(string(out))) {
			f := strings.Fields(line)
			pkg, ok := inModule(f[0])
			if !ok || f[1] == "0" {
				continue
			}
			imports := graph[pkg]
			for _, imp := range f[2:] {
				if imp, ok := inModule(imp); ok && !slices.Contains(imports, imp) {
					imports = append(imports, imp)
				}
			}
			graph[pkg] = imports
		}
	}
	return graph
}

// inModule strips the module path from a package of the module.
func inModule(pkg string) (string, bool) {
	return strings.CutPrefix(pkg, "interplab/")
}

// TestDependencyRules holds the module to depsRules, reading each package's
// imports with go list: a package that reaches up (the store importing the
// HTTP layer), or a new package no rule places, fails here.
func TestDependencyRules(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("go list does not run under WebAssembly")
	}
	r, err := parseDepsRules(depsRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range r.check(moduleGraph(t)) {
		t.Error(line)
	}
}

// TestDependencyRulesCatch shows the check failing on graphs that break
// the rules: a file format or the store importing the HTTP layer, a
// package no rule places.
func TestDependencyRulesCatch(t *testing.T) {
	r, err := parseDepsRules(depsRules)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		graph map[string][]string
		want  []string // each a part of one complaint, in order
	}{
		{"store imports jsonapi", map[string][]string{
			"cmd/lab/internal/store":   {"cmd/lab/internal/traceio", "cmd/lab/internal/jsonapi"},
			"cmd/lab/internal/traceio": {"cmd/lab/internal/wire", "engine"},
		}, []string{"cmd/lab/internal/store imports cmd/lab/internal/jsonapi"}},
		{"traceio imports jsonapi through nothing", map[string][]string{
			"cmd/lab/internal/traceio": {"cmd/lab/internal/jsonapi", "engine/geom"},
		}, []string{"cmd/lab/internal/traceio imports cmd/lab/internal/jsonapi"}},
		{"a file format imports the server", map[string][]string{
			"cmd/lab/internal/link": {"presets", "cmd/lab/internal/server"},
		}, []string{"cmd/lab/internal/link imports cmd/lab/internal/server"}},
		{"the engine imports a file format", map[string][]string{
			"engine/netsim": {"engine/geom", "cmd/lab/internal/traceio"},
		}, []string{"engine/netsim imports cmd/lab/internal/traceio"}},
		{"a package no rule places", map[string][]string{
			"cmd/lab/internal/newthing": {"engine"},
		}, []string{"cmd/lab/internal/newthing is placed by no rule"}},
		{"what the rules allow", map[string][]string{
			"cmd/lab/internal/server":  {"cmd/lab/internal/jsonapi", "cmd/lab/internal/store", "engine/param", "web"},
			"cmd/lab/internal/store":   {"cmd/lab/internal/traceio", "cmd/lab/internal/wire", "presets", "engine/netsim"},
			"cmd/lab/internal/traceio": {"cmd/lab/internal/wire", "engine/geom"},
			"engine/netsim":            {"engine/geom"},
		}, nil},
	}
	for _, tt := range tests {
		got := r.check(tt.graph)
		ok := len(got) == len(tt.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], tt.want[i])
		}
		if !ok {
			t.Errorf("%s: check = %q, want complaints containing %q", tt.name, got, tt.want)
		}
	}
}

// TestDependencyRulesParse: rules that are not a DAG of declared names are
// refused.
func TestDependencyRulesParse(t *testing.T) {
	for _, rules := range []string{
		"NONE < a; b < c;",    // b used before it is declared
		"NONE < a; a < a;",    // a declared twice, a cycle
		"NONE < a; a < b < c", // two <
		"NONE, a < b;",        // NONE with others
		"NONE < ;",            // empty side
	} {
		if _, err := parseDepsRules(rules); err == nil {
			t.Errorf("parseDepsRules(%q) = nil error, want one", rules)
		}
	}
	r, err := parseDepsRules("NONE < a; a < b; # b may import a\n b < c, d;")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(r["c"], want) || !slices.Equal(r["d"], want) {
		t.Errorf("c, d may import %v, %v, want %v", r["c"], r["d"], want)
	}
}
