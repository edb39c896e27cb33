package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// module returns a WebAssembly module with a custom section, then a data
// section holding segs in the order given, then another custom section.
func module(segs ...segment) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	custom := func(name string) {
		body := append(appendU32(nil, uint32(len(name))), name...)
		m = append(appendU32(append(m, 0), uint32(len(body))), body...)
	}
	custom("before")
	data := writeData(segs)
	m = append(appendU32(append(m, sectionData), uint32(len(data))), data...)
	custom("after")
	return m
}

// memory is the memory module starts with (its data segments applied to
// zeros), from the first segment's offset on, and its sections other than
// data, in order.
func memory(t *testing.T, module []byte) (mem []byte, segments int, others [][]byte) {
	t.Helper()
	r := reader{b: module, at: 8}
	for r.at < len(r.b) {
		id := r.byte()
		body := r.bytes()
		if r.err != nil {
			t.Fatal(r.err)
		}
		if id != sectionData {
			// The id and the body: a size's LEB128 may be padded.
			others = append(others, append([]byte{id}, body...))
			continue
		}
		segs, err := readData(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range segs {
			at := int(s.offset - segs[0].offset)
			if end := at + len(s.data); end > len(mem) {
				mem = append(mem, make([]byte, end-len(mem))...)
			}
			copy(mem[at:], s.data)
		}
		segments = len(segs)
	}
	return mem, segments, others
}

func TestPack(t *testing.T) {
	tests := []struct {
		name string
		segs []segment
		want int // segments after Pack
	}{
		{"none", nil, 0},
		{"one", []segment{{100, []byte{1, 2, 3}}}, 1},
		{"a small gap joins", []segment{{100, []byte{1, 2}}, {110, []byte{3}}}, 1},
		{"touching", []segment{{0, []byte{1}}, {1, []byte{2}}}, 1},
		{"out of order", []segment{{5000, []byte{9}}, {10, []byte{1}}, {20, []byte{2}}}, 2},
		{"a gap of MaxGap joins", []segment{{0, []byte{1}}, {1 + MaxGap, []byte{2}}}, 1},
		{"a longer gap does not", []segment{{0, []byte{1}}, {2 + MaxGap, []byte{2}}}, 2},
		{"high offsets", []segment{{1<<31 - 10, []byte{1}}, {1<<31 - 2, []byte{2, 3}}}, 1},
		{"empty segments", []segment{{50, nil}, {60, []byte{7}}, {70, nil}}, 1},
	}
	for _, tt := range tests {
		in := module(tt.segs...)
		out, err := Pack(in)
		if err != nil {
			t.Errorf("%s: Pack = %v", tt.name, err)
			continue
		}
		inMem, _, inOthers := memory(t, in)
		outMem, n, outOthers := memory(t, out)
		if !bytes.Equal(inMem, outMem) {
			t.Errorf("%s: the packed module's memory differs from the module's", tt.name)
		}
		if !slices.EqualFunc(inOthers, outOthers, bytes.Equal) {
			t.Errorf("%s: Pack changed a section other than data", tt.name)
		}
		if n != tt.want {
			t.Errorf("%s: %d segments after Pack, want %d", tt.name, n, tt.want)
		}
	}
}

func TestPackRefuses(t *testing.T) {
	good := module(segment{8, []byte{1}})
	dataAt := bytes.IndexByte(good[8:], sectionData) + 8 // the data section's id
	edit := func(f func(m []byte) []byte) []byte { return f(slices.Clone(good)) }
	segAt := dataAt + 3 // id, size, count: the first segment's flags
	tests := []struct {
		name   string
		module []byte
		want   string
	}{
		{"not wasm", []byte("\x7fELF\x02\x01\x01\x00"), "not a WebAssembly 1 module"},
		{"short", []byte("\x00as"), "not a WebAssembly 1 module"},
		{"passive", edit(func(m []byte) []byte { m[segAt] = 1; return m }), "flags 1"},
		{"memory 2", edit(func(m []byte) []byte { m[segAt] = 2; return m }), "flags 2"},
		{"global offset", edit(func(m []byte) []byte { m[segAt+1] = 0x23; return m }), "not an i32.const"},
		{"truncated", good[:len(good)-12], "past the end"},
		{"overlap", module(segment{8, []byte{1, 2}}, segment{9, []byte{3}}), "overlap"},
		{"data count", append(slices.Clone(good), sectionDataCount, 1, 1), "data count"},
	}
	for _, tt := range tests {
		if _, err := Pack(tt.module); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Pack = %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

func TestLEB(t *testing.T) {
	for _, v := range []int32{0, 1, 63, 64, -1, -64, -65, 127, 128, 1<<31 - 1, -1 << 31} {
		r := reader{b: appendS32(nil, v)}
		if got := r.s32(); got != v || r.err != nil || r.at != len(r.b) {
			t.Errorf("s32(appendS32(%d)) = %d, %v", v, got, r.err)
		}
	}
	for _, v := range []uint32{0, 1, 127, 128, 1<<32 - 1} {
		r := reader{b: appendU32(nil, v)}
		if got := r.u32(); got != v || r.err != nil || r.at != len(r.b) {
			t.Errorf("u32(appendU32(%d)) = %d, %v", v, got, r.err)
		}
	}
	r := reader{b: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}}
	if r.u32(); r.err == nil {
		t.Error("u32 of 6 bytes: no error")
	}
}
