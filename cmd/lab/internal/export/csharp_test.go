package export

import (
	"os"
	"os/exec"
	"path/filepath"
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
// (testdata/csharp): unity-network with Unity Transport 2's define (no
// obsolete call: CS0618 would fail it) and without it against Transport
// 1.x's, for each built-in scenario; mirror-network; the mirror and ngo
// technique exports. The old unity-network call, SetDebugSimulatorParameters,
// fails under Transport 2, so the check can fail.
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
	for _, name := range netsim.Scenarios[:len(netsim.Scenarios)-1] {
		s := engine.Defaults()
		s.Scenario, s.Loss, s.Duplicate = name, 0.005, 0.01
		unity := render("unity-network", "", s)
		if out, ok := compileCS(t, unity, []string{"UTP_TRANSPORT_2_0_ABOVE"}, "unity.cs", "ngo.cs", "transport2.cs"); !ok {
			t.Errorf("unity-network (%s) does not compile against Transport 2:\n%s", name, out)
		}
		if out, ok := compileCS(t, unity, nil, "unity.cs", "ngo.cs", "transport1.cs"); !ok {
			t.Errorf("unity-network (%s) does not compile against Transport 1.x:\n%s", name, out)
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
