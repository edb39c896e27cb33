package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeEpicExample runs the README's lab epic line as written: the
// packet file it reads exists and the output is the seed program's own
// (the case's .out beside it), byte for byte.
func TestReadmeEpicExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`bin/lab epic ([^<\n]*)< (\S+)`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README has no `bin/lab epic … < FILE` line")
	}
	args, in := strings.Fields(string(m[1])), string(m[2])
	stdin, err := os.Open(filepath.Join("../..", in))
	if err != nil {
		t.Fatalf("the README's lab epic reads %s: %v", in, err)
	}
	defer stdin.Close()
	want, err := os.ReadFile(filepath.Join("../..", strings.TrimSuffix(in, ".in")+".out"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runEpic(args, stdin, &out, &errOut); code != 0 {
		t.Fatalf("lab epic %v < %s: exit %d: %s", args, in, code, errOut.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("lab epic %v < %s printed\n%s\nwant the seed program's\n%s", args, in, out.Bytes(), want)
	}
}
