package main

import (
	"bytes"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

func TestFollowUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{args: nil, code: 2},
		{args: []string{"http://h/s/abcdefgh2345", "extra"}, code: 2},
		{args: []string{"-bogus", "http://h/s/abcdefgh2345"}, code: 2},
		{args: []string{"not a url"}, code: 2},
		{args: []string{"-unreal", "http://127.0.0.1:30010", "http://h/s/abcdefgh2345"}, code: 2}, // no -unreal-object
		{args: []string{"-h"}, code: 0},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := runFollow(tt.args, &out, &errb); code != tt.code {
			t.Errorf("runFollow(%q) = %d (%s), want %d", tt.args, code, errb.String(), tt.code)
		}
		if out.Len() != 0 {
			t.Errorf("runFollow(%q) printed %q on stdout, want nothing", tt.args, out.String())
		}
	}
}

// lab follow -once against the real server prints the session's config.
func TestFollowOnce(t *testing.T) {
	url, st := labServer(t)
	s := engine.Defaults()
	s.Latency, s.Techniques = 0.075, []string{"buffer"}
	r, err := st.Create(store.Draft{Name: "followed", Settings: s}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runFollow([]string{"-once", url + "/s/" + r.ID + "/r/1"}, &out, &errb); code != 0 {
		t.Fatalf("lab follow -once = %d, stderr %s", code, errb.String())
	}
	want, _ := json.Marshal(live.Config{Schema: live.ConfigSchema, Settings: r.Settings})
	if got := out.String(); got != string(want)+"\n" {
		t.Errorf("lab follow -once printed\n%s\nwant\n%s", got, want)
	}
}

func TestFollowFailures(t *testing.T) {
	url, _ := labServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	ln.Close()
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{name: "unknown session", args: []string{url + "/s/zzzzzzzzzzzz"}, want: "not found"},
		{name: "nothing listening, -once", args: []string{"-once", "http://" + closedPort + "/s/zzzzzzzzzzzz"}, want: "connect"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		done := make(chan int)
		go func() { done <- runFollow(tt.args, &out, &errb) }()
		select {
		case code := <-done:
			if code != 1 || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("%s: exit %d, stderr %q; want 1 and %q", tt.name, code, errb.String(), tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: lab follow did not exit", tt.name)
		}
	}
}

// TestFollowUnrealUnreachable: lab follow -once -unreal against an editor
// that does not answer prints the config, says the knobs were not set, and
// exits 1.
func TestFollowUnrealUnreachable(t *testing.T) {
	url, st := labServer(t)
	r, err := st.Create(store.Draft{Name: "unreal", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	editor := "http://" + ln.Addr().String()
	ln.Close()
	var out, errb bytes.Buffer
	code := runFollow([]string{"-once", "-unreal", editor, "-unreal-object", "/Game/Maps/Arena.Arena:PersistentLevel.BP_Hero_C_0.CharMoveComp",
		url + "/s/" + r.ID}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "unreal: the settings were not all set") || !strings.Contains(out.String(), `"settings"`) {
		t.Errorf("lab follow -once -unreal with no editor = %d, stdout %q, stderr %q; want 1, the config, and the knobs not set", code, out.String(), errb.String())
	}
}
