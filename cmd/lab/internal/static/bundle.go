package static

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Engines are the browsers a bundle's code must run in as it is: the
// lab is tested in Chromium, Firefox ESR and WebKitGTK (Safari 16.4 and
// later). esbuild lowers any syntax newer than the oldest of them.
var Engines = []api.Engine{
	{Name: api.EngineChrome, Version: "156"},
	{Name: api.EngineFirefox, Version: "153"},
	{Name: api.EngineSafari, Version: "16.4"},
}

// bundleRoot is where the files of the assets' FS lie in the bundler's
// file namespace: the URL path they are served at, so that a source map
// written beside a bundle (under bundleRoot/…) names each source by the
// relative URL that serves it.
const bundleRoot = "/static"

// BundleModule bundles the ES module entry of fsys (a slash path in it)
// and every module it imports, directly or through another, into one ES
// module written as out (a slash path, usually in a folder of its own),
// with an external source map, out+".map", that holds the sources and
// names them by their paths relative to out: served beside the bundle,
// a browser's developer tools show the original files. It returns the
// two files' contents. Only relative imports of fsys's files are
// allowed; an import or a syntax error is an error naming the file and
// its line.
func BundleModule(fsys fs.FS, entry, out string) (js, sourceMap []byte, err error) {
	root := bundleRoot + "/"
	load := api.Plugin{
		Name: "assets",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				if a.Kind == api.ResolveEntryPoint {
					return api.OnResolveResult{Path: root + a.Path}, nil
				}
				if !strings.HasPrefix(a.Path, "./") && !strings.HasPrefix(a.Path, "../") {
					return api.OnResolveResult{}, fmt.Errorf("import %q: only relative imports of the lab's own modules are bundled", a.Path)
				}
				p := path.Join(path.Dir(a.Importer), a.Path)
				if !strings.HasPrefix(p, root) {
					return api.OnResolveResult{}, fmt.Errorf("import %q: outside the assets", a.Path)
				}
				return api.OnResolveResult{Path: p}, nil
			})
			b.OnLoad(api.OnLoadOptions{Filter: ".*"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				src, err := fs.ReadFile(fsys, strings.TrimPrefix(a.Path, root))
				if err != nil {
					return api.OnLoadResult{}, err
				}
				text := string(src)
				return api.OnLoadResult{Contents: &text, Loader: api.LoaderJS}, nil
			})
		},
	}
	outfile := root + out
	res := api.Build(api.BuildOptions{
		EntryPoints:    []string{entry},
		Bundle:         true,
		Write:          false,
		Format:         api.FormatESModule,
		Engines:        Engines,
		Charset:        api.CharsetUTF8,
		Sourcemap:      api.SourceMapLinked,
		SourcesContent: api.SourcesContentInclude,
		Outfile:        outfile,
		AbsWorkingDir:  root,
		LogLevel:       api.LogLevelSilent,
		Plugins:        []api.Plugin{load},
	})
	if len(res.Errors) > 0 {
		return nil, nil, bundleError(entry, res.Errors)
	}
	for _, f := range res.OutputFiles {
		switch f.Path {
		case outfile:
			js = f.Contents
		case outfile + ".map":
			sourceMap = f.Contents
		}
	}
	if js == nil || sourceMap == nil {
		return nil, nil, fmt.Errorf("bundle %s: esbuild wrote no %s and its map", entry, out)
	}
	return js, sourceMap, nil
}

// bundleError is esbuild's errors as one: each names the file (as a path
// of the assets) and its line and column, then what is wrong.
func bundleError(entry string, msgs []api.Message) error {
	var errs []error
	for _, m := range msgs {
		where := ""
		if l := m.Location; l != nil {
			where = fmt.Sprintf("%s:%d:%d: ", strings.TrimPrefix(l.File, bundleRoot+"/"), l.Line, l.Column+1)
		}
		errs = append(errs, errors.New(where+m.Text))
	}
	return fmt.Errorf("bundle %s: %w", entry, errors.Join(errs...))
}

// ConcatStyles returns the style sheets names of fsys one after the
// other, in that order, each after a comment naming it: the cascade is the
// same as the sheets linked in that order, provided none holds an @import
// or @charset, which only the first rules of a sheet may be (an error
// says which).
func ConcatStyles(fsys fs.FS, names []string) ([]byte, error) {
	var b bytes.Buffer
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("concatenate style sheets: %w", err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "@import") || strings.HasPrefix(t, "@charset") {
				return nil, fmt.Errorf("concatenate style sheets: %s:%d: %s is allowed only at a sheet's start: link the sheet on its own", name, i+1, strings.Fields(t)[0])
			}
		}
		fmt.Fprintf(&b, "/* %s */\n", name)
		b.Write(src)
		if len(src) > 0 && src[len(src)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}
