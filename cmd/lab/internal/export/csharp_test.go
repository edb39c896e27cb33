package export

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/presets"
)

var (
	mcsOnce sync.Once
	mcsBin  string
	mcsWhy  string // why there is none
)

// mcs returns mono's C# compiler, installing Debian's mono-mcs with apt-get
// the first time when it is missing and the test runs as root. A machine
// where it cannot be had skips the test, saying so loudly.
func mcs(t *testing.T) string {
	t.Helper()
	mcsOnce.Do(func() {
		if p, err := exec.LookPath("mcs"); err == nil {
			mcsBin = p
			return
		}
		if os.Geteuid() != 0 {
			mcsWhy = "mcs is not installed and the test is not root, so it cannot apt-get install mono-mcs"
			return
		}
		for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", "mono-mcs"}} {
			cmd := exec.Command("apt-get", args...)
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			if out, err := cmd.CombinedOutput(); err != nil {
				mcsWhy = "apt-get " + strings.Join(args, " ") + " failed: " + err.Error() + ": " + lastLines(string(out), 3)
				return
			}
		}
		p, err := exec.LookPath("mcs")
		if err != nil {
			mcsWhy = "mono-mcs installed, but no mcs on PATH"
			return
		}
		mcsBin = p
	})
	if mcsBin == "" {
		t.Skipf("SKIPPING THE C# COMPILE CHECK: %s", mcsWhy)
	}
	return mcsBin
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}

// compileCS compiles the export's body with mcs against the stub
// declarations named (testdata/csharp), every warning an error, and returns
// mcs's output and whether it compiled.
func compileCS(t *testing.T, body []byte, defines []string, stubs ...string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "Export.cs")
	if err := os.WriteFile(src, body, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-target:library", "-nologo", "-warnaserror+", "-out:" + filepath.Join(dir, "Export.dll")}
	for _, d := range defines {
		args = append(args, "-define:"+d)
	}
	for _, s := range stubs {
		args = append(args, filepath.Join("testdata", "csharp", s))
	}
	out, err := exec.Command(mcs(t), append(args, src)...).CombinedOutput()
	return string(out), err == nil
}

// TestExportsCompile compiles every C# export, with every warning an error,
// against declarations written from the libraries' public API
// (testdata/csharp): unity-network with Unity Transport 2's define under each
// build kind's defines (no obsolete call: CS0618 would fail it), and without
// the define, where it must stop the compile with an #error naming it
// (never fall back silently), for each built-in scenario; mirror-network; the
// mirror and ngo technique exports. The old unity-network call,
// SetDebugSimulatorParameters, fails under Transport 2, so the check can fail.
func TestExportsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mcs; skipped with -short")
	}
	mcs(t)
	render := func(format, preset string, s engine.Settings) []byte {
		t.Helper()
		f, err := Render(format, Origin{Preset: preset}, s)
		if err != nil {
			t.Fatal(err)
		}
		return f.Body
	}
	builds := [][]string{{"UNITY_EDITOR"}, {"DEVELOPMENT_BUILD"}, {"UNITY_MP_TOOLS_NETSIM_ENABLED_IN_RELEASE"}, nil}
	for _, name := range netsim.Scenarios[:len(netsim.Scenarios)-1] {
		s := engine.Defaults()
		s.Scenario, s.Loss, s.Duplicate = name, 0.005, 0.01
		unity := render("unity-network", "", s)
		for _, build := range builds {
			if out, ok := compileCS(t, unity, append([]string{"UTP_TRANSPORT_2_0_ABOVE"}, build...), "unity.cs", "ngo.cs", "transport2.cs"); !ok {
				t.Errorf("unity-network (%s) does not compile against Transport 2 with %v:\n%s", name, build, out)
			}
		}
		if out, ok := compileCS(t, unity, []string{"UNITY_EDITOR"}, "unity.cs", "ngo.cs", "transport2.cs"); ok || !strings.Contains(out, "CS1029") || !strings.Contains(out, "UTP_TRANSPORT_2_0_ABOVE") {
			t.Errorf("unity-network (%s) without UTP_TRANSPORT_2_0_ABOVE compiled (%v) or failed without an #error naming the define:\n%s", name, ok, out)
		}
		if out, ok := compileCS(t, render("mirror-network", "", s), nil, "unity.cs", "mirror.cs"); !ok {
			t.Errorf("mirror-network (%s) does not compile against Mirror:\n%s", name, out)
		}
	}
	for _, tt := range []struct{ format, preset, stub string }{{"mirror", "mirror-30hz", "mirror.cs"}, {"ngo", "ngo-defaults", "ngo.cs"}} {
		p, err := presets.Get(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		if out, ok := compileCS(t, render(tt.format, p.Name, p.Settings), nil, "unity.cs", tt.stub); !ok {
			t.Errorf("the %s export does not compile:\n%s", tt.format, out)
		}
	}
	old := []byte(`using Unity.Netcode;
using Unity.Netcode.Transports.UTP;
public class Old : UnityEngine.MonoBehaviour
{
    void Start() { NetworkManager.Singleton.GetComponent<UnityTransport>().SetDebugSimulatorParameters(60, 10, 1); }
}
`)
	if out, ok := compileCS(t, old, []string{"UTP_TRANSPORT_2_0_ABOVE"}, "unity.cs", "ngo.cs", "transport2.cs"); ok || !strings.Contains(out, "CS0618") {
		t.Errorf("SetDebugSimulatorParameters under Transport 2 compiled (%v) without CS0618:\n%s", ok, out)
	}
}

// runCS compiles the export's body with a harness holding Main against the
// stub declarations named, as mcs does for compileCS, runs it under mono
// and returns its output (stdout and stderr).
func runCS(t *testing.T, body []byte, harness string, defines []string, stubs ...string) string {
	t.Helper()
	dir := t.TempDir()
	src, main, exe := filepath.Join(dir, "Export.cs"), filepath.Join(dir, "Harness.cs"), filepath.Join(dir, "Harness.exe")
	if err := os.WriteFile(src, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-target:exe", "-nologo", "-warnaserror+", "-out:" + exe}
	for _, d := range defines {
		args = append(args, "-define:"+d)
	}
	for _, s := range stubs {
		args = append(args, filepath.Join("testdata", "csharp", s))
	}
	if out, err := exec.Command(mcs(t), append(args, src, main)...).CombinedOutput(); err != nil {
		t.Fatalf("the harness does not compile: %v\n%s", err, out)
	}
	mono, err := exec.LookPath("mono")
	if err != nil {
		t.Skipf("SKIPPING THE RUN: mcs is here but mono is not: %v", err)
	}
	out, err := exec.Command(mono, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("the harness failed: %v\n%s", err, out)
	}
	return string(out)
}

// TestUnityNetworkReleaseBuildSaysSo: in a release build without
// UNITY_MP_TOOLS_NETSIM_ENABLED_IN_RELEASE (NGO leaves Transport's simulator
// out), the unity-network component's Awake logs an error naming the define
// and disables itself, instead of registering a simulator that does nothing.
func TestUnityNetworkReleaseBuildSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mcs and mono; skipped with -short")
	}
	mcs(t)
	f, err := Render("unity-network", Origin{}, engine.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	const harness = `using System.Reflection;
public static class Harness
{
    public static void Main()
    {
        var c = new InterpLabNetworkScenario();
        typeof(InterpLabNetworkScenario).GetMethod("Awake", BindingFlags.Instance | BindingFlags.NonPublic).Invoke(c, null);
        System.Console.WriteLine("enabled=" + c.enabled);
    }
}
`
	out := runCS(t, f.Body, harness, []string{"UTP_TRANSPORT_2_0_ABOVE"}, "unity.cs", "ngo.cs", "transport2.cs")
	if !strings.Contains(out, "Debug.LogError") || !strings.Contains(out, "UNITY_MP_TOOLS_NETSIM_ENABLED_IN_RELEASE") || !strings.Contains(out, "enabled=False") {
		t.Errorf("a release build without the simulator's define: Awake printed %q; want an error naming UNITY_MP_TOOLS_NETSIM_ENABLED_IN_RELEASE and the component disabled", out)
	}
}

// TestUnityNetworkAsmdef: the unity-network export carries, in its comments,
// the assembly definition it needs: NGO's and Transport's assemblies as
// references, and a Version Define that sets UTP_TRANSPORT_2_0_ABOVE from
// com.unity.transport 2.0.0.
func TestUnityNetworkAsmdef(t *testing.T) {
	f, err := Render("unity-network", Origin{}, engine.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	in := false
	for _, line := range strings.Split(string(f.Body), "\n") {
		switch {
		case line == "//     {":
			in = true
		case !in:
			continue
		}
		text.WriteString(strings.TrimPrefix(line, "//     ") + "\n")
		if line == "//     }" {
			break
		}
	}
	var asmdef struct {
		Name           string   `json:"name"`
		References     []string `json:"references"`
		VersionDefines []struct {
			Name, Expression, Define string
		} `json:"versionDefines"`
	}
	if err := json.Unmarshal([]byte(text.String()), &asmdef); err != nil {
		t.Fatalf("the export's asmdef does not parse: %v\n%s", err, text.String())
	}
	for _, ref := range []string{"Unity.Netcode.Runtime", "Unity.Networking.Transport"} {
		if !slices.Contains(asmdef.References, ref) {
			t.Errorf("the asmdef's references %v lack %s", asmdef.References, ref)
		}
	}
	if len(asmdef.VersionDefines) != 1 || asmdef.VersionDefines[0].Name != "com.unity.transport" ||
		asmdef.VersionDefines[0].Expression != "2.0.0" || asmdef.VersionDefines[0].Define != "UTP_TRANSPORT_2_0_ABOVE" {
		t.Errorf("the asmdef's versionDefines = %+v, want com.unity.transport 2.0.0 -> UTP_TRANSPORT_2_0_ABOVE", asmdef.VersionDefines)
	}
}
