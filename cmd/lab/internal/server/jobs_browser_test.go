package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/link"
	"interplab/engine/study"
)

// jobsBrowserWait waits for a JavaScript condition in b's tab, through the
// reload of a tuner page once done.
func jobsBrowserWait(b *labTab, cond string, wait time.Duration) {
	b.t.Helper()
	if !b.poll(cond, wait) {
		var state string
		b.eval(`(document.getElementById('progress-text')?.textContent ?? '') + ' | ' + (document.getElementById('job-error')?.textContent ?? '')`, &state)
		b.t.Fatalf("waiting for %s: not within %v (page: %s)", cond, wait, state)
	}
}

// jobsFollowLink opens the href of the lab page's link id, as a click does.
func jobsFollowLink(b *labTab, id, wantBase string) {
	b.t.Helper()
	var href string
	b.eval(`document.getElementById('`+id+`').getAttribute('href')`, &href)
	if !strings.Contains(href, "base="+wantBase) {
		b.t.Errorf("%s href = %s, want base=%s", id, href, wantBase)
	}
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+href)); err != nil {
		b.t.Fatalf("open %s: %v", href, err)
	}
}

func TestSweepPageBrowser(t *testing.T) {
	s := newBrowserServer(t)
	b := openLabOn(t, s, "/?preset=wifi&duration=4&entities=2")
	jobsFollowLink(b, "sweep-link", "q%3Apreset%3Dwifi%26entities%3D2%26duration%3D4")

	b.eval(`document.querySelector('[name="x.name"]').value`, nil)
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.getElementById('job-form');
		f.elements['technique'].value = 'buffer';
		f.elements['x.name'].value = 'delay';
		f.elements['x.name'].dispatchEvent(new Event('change'));
		f.elements['x.min'].value = '50';
		f.elements['x.max'].value = '250ms';
		f.elements['x.steps'].value = '5';
	})()`), chromedp.Click(chromedp.ID("start")))
	jobsBrowserWait(b, `document.getElementById('job').dataset.state === 'done' && document.getElementById('sweep-chart').dataset.drawn === '5'`, 30*time.Second)

	var got struct {
		Progress, Max int
		Text          string
		Canvas        bool
		Values        int
		Path          string
	}
	b.eval(`(() => {
		const c = echarts.getInstanceByDom(document.getElementById('sweep-chart'));
		const data = c.getOption().series[0].data;
		return {Progress: document.getElementById('progress').value, Max: document.getElementById('progress').max,
			Text: document.getElementById('progress-text').textContent,
			Canvas: !!document.querySelector('#sweep-chart canvas'),
			Values: data.filter((d) => typeof (d.value ?? d)[1] === 'number').length, Path: location.pathname};
	})()`, &got)
	if got.Progress != 5 || got.Max != 5 || !strings.Contains(got.Text, "5 / 5 · done") || !got.Canvas || got.Values != 5 {
		t.Errorf("after the sweep: %+v, want progress 5 of 5, done, and a chart of 5 values", got)
	}
	if !strings.HasPrefix(got.Path, "/sweep/") {
		t.Errorf("page address %s, want the job's /sweep/{id}", got.Path)
	}

	// Another metric redraws from the same points.
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const m = document.getElementById('metric');
		m.value = 'underrun';
		m.dispatchEvent(new Event('change'));
	})()`))
	jobsBrowserWait(b, `echarts.getInstanceByDom(document.getElementById('sweep-chart')).getOption().title[0].text.includes('underrun')`, 10*time.Second)

	// A bad request shows the error next to its field.
	b.allow("400 (Bad Request)")
	b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('job-form').elements['x.max'].value = '9000'`),
		chromedp.Click(chromedp.ID("start")))
	jobsBrowserWait(b, `document.getElementById('job-error').dataset.field === 'x.max' && !document.getElementById('job-error').hidden`, 10*time.Second)
}

func TestTunePageBrowser(t *testing.T) {
	s := newBrowserServer(t)
	// Long enough runs that the recommendation stands on every seed set
	// (on 6 s of 2 entities the gain is within its noise).
	b := openLabOn(t, s, "/?preset=harbor-before&duration=20&entities=2")
	jobsFollowLink(b, "tune-link", "q%3Apreset%3Dharbor-before")

	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.getElementById('job-form');
		f.elements['technique'].value = 'buffer';
		f.elements['budget'].value = '16';
		f.elements['seed'].value = '5';
	})()`), chromedp.Click(chromedp.ID("start")))
	// When the tuning ends the page reloads with its results.
	jobsBrowserWait(b, `!!document.getElementById('apply') && !!echarts.getInstanceByDom(document.getElementById('tune-chart'))`, 60*time.Second)

	var page struct {
		Path, Apply, Seed string
		Series            []string
	}
	b.eval(`(() => ({Path: location.pathname, Apply: document.getElementById('apply').getAttribute('href'),
		Seed: document.getElementById('seed').textContent,
		Series: echarts.getInstanceByDom(document.getElementById('tune-chart')).getOption().series.map((s) => s.name)}))()`, &page)
	j := s.jobs.Get(strings.TrimPrefix(page.Path, "/tune/"))
	if j == nil {
		t.Fatalf("no job at %s", page.Path)
	}
	res, _ := j.Result()
	best := res.(study.TuneResult).Best.Settings
	if want := "/?" + link.Query("harbor-before", best); page.Apply != want {
		t.Errorf("Apply to lab = %s, want %s", page.Apply, want)
	}
	if page.Seed != "5" || strings.Join(page.Series, ",") != "infeasible,feasible,Pareto front,base,recommended" {
		t.Errorf("tune page: seed %s, series %v", page.Seed, page.Series)
	}

	// Clicked from the page itself: a node id chromedp looked up would be
	// stale if the finished page reloaded once more meanwhile.
	b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('apply').click()`))
	jobsBrowserWait(b, `location.pathname === "/" && document.documentElement.dataset.ready === "1" && !!globalThis.lab`, 30*time.Second)
	if bad := settingsMismatch(b.controls(), best); len(bad) > 0 {
		t.Errorf("the lab's sliders after Apply differ from the recommendation: %v", bad)
	}
}

func TestPopulationPageBrowser(t *testing.T) {
	s := newBrowserServer(t)
	b := openLabOn(t, s, "/?preset=harbor-before")
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+"/population?base=preset:harbor-before")); err != nil {
		t.Fatal(err)
	}
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.getElementById('job-form');
		f.elements['entities'].value = '4';
		f.elements['rounds'].value = '2';
		f.elements['round'].value = '5';
	})()`), chromedp.Click(chromedp.ID("start")))
	// When the run ends the page reloads with its results.
	jobsBrowserWait(b, `document.readyState === 'complete' && !!document.querySelector('a.open-entity') && !!echarts.getInstanceByDom(document.getElementById('population-underrunRounds'))`, 60*time.Second)

	var page struct {
		Path, Href, Underrun string
		Bars                 int
	}
	b.eval(`(() => ({Path: location.pathname, Href: document.querySelector('a.open-entity').getAttribute('href'),
		Underrun: document.querySelector('[data-figure="underrunRounds"] td.num').textContent,
		Bars: echarts.getInstanceByDom(document.getElementById('population-underrunRounds')).getOption().series[0].data.length}))()`, &page)
	j := s.jobs.Get(strings.TrimPrefix(page.Path, "/population/"))
	if j == nil {
		t.Fatalf("no job at %s", page.Path)
	}
	res, _ := j.Result()
	pr := res.(*study.PopulationResult)
	worst := pr.Techniques[0].Worst[0]
	if want := "/?" + link.Query("harbor-before", pr.Spec.Population.EntitySettings(pr.Spec.Base, worst)); page.Href != want {
		t.Errorf("worst entity opens %s, want %s", page.Href, want)
	}
	if page.Bars != 3 { // 0, 1 or 2 rounds with an underrun
		t.Errorf("underrun histogram has %d bars, want 3", page.Bars)
	}
	if page.Underrun == "" {
		t.Errorf("no underrunRounds figure")
	}

	// The worst entity opens in the lab with its exact link, motion and seed.
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+page.Href)); err != nil {
		t.Fatal(err)
	}
	b.waitReady()
	// The page runs the link's exact values (its sliders show them to
	// their step) and keeps them in its address.
	var got map[string]string
	b.eval(`globalThis.lab.settings()`, &got)
	want := pr.Spec.Population.EntitySettings(pr.Spec.Base, worst)
	for _, name := range []string{"latency", "jitter", "jitterDist", "loss", "lossModel", "burstLength", "clockDrift", "motion", "seed", "entities", "round"} {
		if w := want.Text(name); got[name] != w {
			t.Errorf("lab page %s = %s, want the entity's %s", name, got[name], w)
		}
	}
	if loc := b.location(); loc != page.Href {
		t.Errorf("lab page address %s, want %s", loc, page.Href)
	}
}

// TestTunePopulationBrowser: from the population page, "Tune for this
// population" opens the tuner with the population and the guide's
// objective; the form's run tunes over the population and shows its
// figures.
func TestTunePopulationBrowser(t *testing.T) {
	s := newBrowserServer(t)
	b := openLabOn(t, s, "/?preset=harbor-before")
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+"/population?base=preset:harbor-before")); err != nil {
		t.Fatal(err)
	}
	b.do(chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('a.page-link')].find((a) => a.textContent === 'Tune for this population').click()`))
	jobsBrowserWait(b, `location.pathname === '/tune' && document.readyState === 'complete' && !!document.getElementById('job-form')`, 30*time.Second)
	var form struct{ Population, Constraint string }
	b.eval(`(() => { const f = document.getElementById('job-form');
		return {Population: f.elements['population'].value, Constraint: f.querySelector('select[name="constraint.metric"]').value}; })()`, &form)
	if form.Population != "harbor-beta" || form.Constraint != "underrunRounds" {
		t.Fatalf("tuner form from the population page: %+v, want harbor-beta and an underrunRounds bound", form)
	}
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.getElementById('job-form');
		f.elements['population.entities'].value = '4';
		f.elements['population.rounds'].value = '1';
		f.elements['population.round'].value = '10';
		f.elements['budget'].value = '4';
	})()`), chromedp.Click(chromedp.ID("start")))
	jobsBrowserWait(b, `location.pathname.startsWith('/tune/') && document.readyState === 'complete' && !!document.getElementById('tune-result')`, 60*time.Second)
	var caption string
	b.eval(`document.querySelector('#metrics caption').textContent`, &caption)
	if caption != "Population figures (4 entities, the mean over run seeds 2–6)" {
		t.Errorf("result caption %q, want the population figures of 4 entities", caption)
	}
	var path string
	b.eval(`location.pathname`, &path)
	j := s.jobs.Get(strings.TrimPrefix(path, "/tune/"))
	if j == nil {
		t.Fatalf("no job at %s", path)
	}
	res, _ := j.Result()
	if base := res.(study.TuneResult).Base; base.Population == nil {
		t.Errorf("the tuning ran without its population: %+v", base)
	}
}
