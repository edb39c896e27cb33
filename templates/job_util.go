package templates

import "net/url"

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// jobLinkHref is the sweep or tuner page (path) on the lab's current
// settings: their share query as a q: base ref.
func jobLinkHref(path, query string) string {
	return path + "?base=" + url.QueryEscape("q:"+query)
}
