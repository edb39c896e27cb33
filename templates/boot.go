package templates

import (
	"context"
	"html"
	"io"
	"strings"

	"github.com/a-h/templ"
)

// bootScript is the lab page's first script: boot.js's text inline, with
// the request's nonce (the Content-Security-Policy runs no other inline
// script), when the view holds it and it can be inlined (no "</script" or
// "<!--", which would end or change the element); else a request for
// /static/boot.js. Inline, boot.js starts the engine's worker, and so
// /lab.wasm's download, as the parser reaches it, not once its own
// response has come through the browser's busy first moments.
func bootScript(text string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if lower := strings.ToLower(text); text == "" || strings.Contains(lower, "</script") || strings.Contains(lower, "<!--") {
			_, err := io.WriteString(w, `<script src="/static/boot.js"></script>`)
			return err
		}
		nonce := ""
		if n := templ.GetNonce(ctx); n != "" {
			nonce = ` nonce="` + html.EscapeString(n) + `"`
		}
		_, err := io.WriteString(w, "<script"+nonce+">"+text+"</script>")
		return err
	})
}
