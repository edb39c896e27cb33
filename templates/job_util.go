package templates

import "net/url"

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// jobLinkHref is the sweep or tuner page (path) on the lab's current
// settings: their share query as a q: base ref.
func jobLinkHref(path, query string) string {
	return path + "?base=" + url.QueryEscape("q:"+query)
}

// tuneFloorOf is the floor hint of the technique the tuner form has chosen.
func tuneFloorOf(v TuneView) string {
	for _, t := range v.Techniques {
		if t.Name == v.Form.Technique {
			return t.Floor
		}
	}
	return ""
}
