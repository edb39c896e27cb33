package templates

// ErrorView is an error page: a status, what went wrong in words, and the
// pages to go back to.
type ErrorView struct {
	Status  int
	Title   string
	Message string
	Links   []ErrorLink // first the page the request was looking under, last a fresh lab
}

// ErrorLink is one way back from an error page.
type ErrorLink struct {
	Href, Text string
}
