package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRunDispatch(t *testing.T) {
	tests := []struct {
		args       []string
		wantStatus int
		wantOut    string // substring of stdout
		wantErr    string // substring of stderr
	}{
		{args: []string{"-h"}, wantStatus: 0, wantOut: "export"},
		{args: []string{"help"}, wantStatus: 0, wantOut: "serve"},
		{args: []string{"bogus"}, wantStatus: 2, wantErr: `unknown command "bogus"`},
		{args: []string{"-nope"}, wantStatus: 2, wantErr: "-nope"}, // flags without a command go to serve
		{args: []string{"serve", "-nope"}, wantStatus: 2, wantErr: "Usage: lab serve"},
		{args: []string{"serve", "extra"}, wantStatus: 2, wantErr: `unexpected argument "extra"`},
		{args: []string{"serve", "-addr", "no-port"}, wantStatus: 1, wantErr: "lab serve:"},
		{args: []string{"export", "-h"}, wantStatus: 0, wantErr: "-format"},
		{args: []string{"export", "-preset", "wifi"}, wantStatus: 0, wantOut: `"preset": "wifi"`},
		{args: []string{"export", "-format", "netem", "-preset", "wifi", "-set", "loss=10"}, wantStatus: 0, wantOut: "loss random 10%"},
		{args: []string{"export", "-format", "yaml"}, wantStatus: 2, wantErr: "unknown export format"},
		{args: []string{"export", "-set", "loss=95"}, wantStatus: 2, wantErr: `loss = "95" is not allowed: want [0, 90] %`},
		{args: []string{"export", "-set", "lost=0.1"}, wantStatus: 2, wantErr: `"lost"`},
		{args: []string{"export", "-preset", "mars"}, wantStatus: 2, wantErr: `"mars"`},
		{args: []string{"export", "stray"}, wantStatus: 2, wantErr: `unexpected argument "stray"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		status := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if status != tt.wantStatus {
			t.Errorf("run(%q) = %d, want %d (stderr %q)", tt.args, status, tt.wantStatus, stderr.String())
		}
		if !strings.Contains(stdout.String(), tt.wantOut) {
			t.Errorf("run(%q) stdout = %q, want it to contain %q", tt.args, stdout.String(), tt.wantOut)
		}
		if !strings.Contains(stderr.String(), tt.wantErr) {
			t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr.String(), tt.wantErr)
		}
	}
}

func TestRunExportMatchesExport(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if status := run([]string{"export", "-format", "json", "-preset", "4g", "-set", "delay=120"}, nil, &stdout, &stderr); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	var doc struct {
		Preset   string
		Settings map[string]any
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Preset != "4g" || doc.Settings["delay"] != 0.12 || doc.Settings["lossModel"] != "burst" {
		t.Errorf("export = preset %q, delay %v, lossModel %v; want 4g, 0.12, burst", doc.Preset, doc.Settings["delay"], doc.Settings["lossModel"])
	}
}
