//go:build !js

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestAPIMatchesTypeDeclaration checks that the page's type declaration of
// the WASM API (web/types/interplab.d.ts, against which tsc checks every
// script of the page) names exactly the members lab.object exports: a
// member renamed or added on one side only would otherwise surface as
// "undefined is not a function" in a designer's browser.
func TestAPIMatchesTypeDeclaration(t *testing.T) {
	goKeys := objectKeys(t, "lab_js.go")
	tsKeys := interfaceMembers(t, "../web/types/interplab.d.ts", "Interplab")
	slices.Sort(goKeys)
	slices.Sort(tsKeys)
	if !slices.Equal(goKeys, tsKeys) {
		t.Errorf("lab.object exports %v\nweb/types/interplab.d.ts declares %v", goKeys, tsKeys)
	}
}

// objectKeys returns the keys of the map literal that the method object
// returns in the Go file.
func objectKeys(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "object" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			ret, ok := n.(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				return true
			}
			lit, ok := ret.Results[0].(*ast.CompositeLit)
			if !ok {
				return true
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if b, ok := kv.Key.(*ast.BasicLit); ok && b.Kind == token.STRING {
					k, _ := strconv.Unquote(b.Value)
					keys = append(keys, k)
				}
			}
			return false
		})
	}
	if len(keys) == 0 {
		t.Fatalf("%s: no keys found in the map literal object returns", file)
	}
	return keys
}

var (
	tsMember = regexp.MustCompile(`^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*[(:]`)
	tsEnd    = regexp.MustCompile(`^\}`)
)

// interfaceMembers returns the member names of the named exported interface
// in a TypeScript declaration file written one member per line.
func interfaceMembers(t *testing.T, file, name string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	start := regexp.MustCompile(`(?m)^export interface ` + name + ` \{$`).FindIndex(data)
	if start == nil {
		t.Fatalf("%s: no 'export interface %s {' line", file, name)
	}
	var members []string
	for _, line := range regexp.MustCompile(`\r?\n`).Split(string(data[start[1]:]), -1) {
		if tsEnd.MatchString(line) {
			return members
		}
		if m := tsMember.FindStringSubmatch(line); m != nil {
			members = append(members, m[1])
		}
	}
	t.Fatalf("%s: interface %s does not end", file, name)
	return nil
}
