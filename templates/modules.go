package templates

// labModules are the modules web/lab.js imports, directly or through
// another, besides engine.js (preloaded beside boot.js): the page's head
// asks for all of them at once (modulepreload), so the browser fetches and
// compiles them while the engine downloads. Found only by the imports of
// each module as it arrives, they came in three rounds (lab.js; its
// imports; theirs), each after the main thread, busy with the page's
// first layout, got round to the previous one. TestPreloadsLabModules
// keeps the list equal to lab.js's imports.
var labModules = []string{
	// lab.js's own imports
	"controls.js", "url.js", "canvas.js", "timeline.js", "metrics.js", "colors.js",
	"session.js", "joblinks.js", "replay.js", "capture.js", "dom.js", "format.js",
	"scenario.js", "ab.js", "presets.js",
	// theirs
	"inert.js", "sync.js", "clients.js",
}
