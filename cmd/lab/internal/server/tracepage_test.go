package server

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// TestTraceTemplate: /traces links a CSV template, served as a download
// that uploads as it is.
func TestTraceTemplate(t *testing.T) {
	_, srv := jobsTestServer(t)
	resp, err := http.Get(srv.URL + "/traces")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `href="/traces/template.csv"`) {
		t.Error("/traces does not link the trace template")
	}
	resp, err = http.Get(srv.URL + "/traces/template.csv")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") || string(body) != traceio.Template {
		t.Fatalf("template = %d, %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Disposition"), len(body))
	}
	up, err := http.Post(srv.URL+"/api/traces?name=from-template", "text/csv", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(up.Body)
	up.Body.Close()
	if up.StatusCode != http.StatusCreated && up.StatusCode != http.StatusOK {
		t.Errorf("uploading the template = %d %s", up.StatusCode, msg)
	}
}

func TestTracesPageLinks(t *testing.T) {
	s, srv := jobsTestServer(t)
	st := s.store

	resp, err := http.Get(srv.URL + "/traces")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := html.UnescapeString(string(body))
	list, err := st.ListTraces()
	if err != nil || len(list) == 0 {
		t.Fatalf("ListTraces = %d traces, %v: want the samples", len(list), err)
	}
	for _, info := range list {
		_, tr, err := st.LoadTrace(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := traceio.Settings(tr, engine.Defaults())
		q := link.Query("", s)
		for _, want := range []string{`data-name="` + info.Name + `"`, `href="/?` + q + `"`, `href="/tune?base=` + url.QueryEscape("q:"+q) + `"`} {
			if !strings.Contains(page, want) {
				t.Errorf("GET /traces lacks %s", want)
			}
		}
	}
}

func TestTracesPageUploadBrowser(t *testing.T) {
	h, _ := newSessionServer(t)
	b := openLabOn(t, h, "/")
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+"/traces")); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("entity,sent,arrive,x,y,z,vx,vy,vz\n0,0,0.05,0,0,0,1,0,0\n0,0.05,0.1,zz,0,0,1,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.allow("400 (Bad Request)")
	b.do(chromedp.SetUploadFiles(chromedp.ID("trace-file"), []string{bad}), chromedp.Click(chromedp.ID("upload")))
	jobsBrowserWait(b, `!document.getElementById('trace-error').hidden`, 10*time.Second)
	var text string
	b.eval(`document.getElementById('trace-error').textContent`, &text)
	if !strings.HasPrefix(text, "line 3: ") {
		t.Errorf("error shown for a bad line 3: %q, want it to start with line 3", text)
	}
}
