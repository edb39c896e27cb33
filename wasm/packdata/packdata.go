// Command packdata rewrites the data section of a WebAssembly module that
// Go's linker wrote, so that the module compresses better, as the page
// downloads it (make wasm runs it between go build and zopfli):
//
//	go run ./wasm/packdata lab.wasm
//
// Go's linker leaves every run of more than 8 zero bytes out of the data
// section and starts a new data segment after it (cmd/link's writeDataSec:
// a segment's header costs about 8 bytes, as wasm-opt's memory packing
// counts). That makes the raw module smallest, but the module is served
// compressed, and there the trade turns over: a run of zeros costs gzip
// about a byte for every 258, while a header, an offset that changes with
// every segment and a length, hardly compresses at all. lab.wasm had 38,063
// segments, whose headers were 7 % of it under gzip -9. packdata joins
// segments whose gap is at most MaxGap bytes, writing the gap's zeros.
//
// The memory the module starts with is the same byte for byte: memory is
// zero before the segments are copied in, so writing a gap's zeros changes
// nothing. Every other section is copied as it is.
package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
)

// MaxGap is the longest run of zeros between two data segments that Pack
// joins. A longer gap keeps the segments apart: a few such gaps hold most
// of the zeros (tens of KiB each), which the raw module need not carry.
const MaxGap = 1024

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: packdata module.wasm (rewritten in place)")
		os.Exit(2)
	}
	name := os.Args[1]
	in, err := os.ReadFile(name)
	if err == nil {
		var out []byte
		if out, err = Pack(in); err == nil {
			err = os.WriteFile(name, out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "packdata %s: %v\n", name, err)
		os.Exit(1)
	}
}

// The sections Pack reads (WebAssembly 1.0, 5.5).
const (
	sectionData      = 11
	sectionDataCount = 12
)

// segment is an active data segment of memory 0 at a constant offset.
type segment struct {
	offset uint32
	data   []byte
}

// Pack returns module with its data segments joined where the gap between
// them is at most MaxGap bytes. It refuses, with an error, what Go's linker
// never writes: passive segments, a memory other than 0, an offset that is
// not a constant, overlapping segments, a data count section.
func Pack(module []byte) ([]byte, error) {
	if len(module) < 8 || string(module[:4]) != "\x00asm" || string(module[4:8]) != "\x01\x00\x00\x00" {
		return nil, errors.New("not a WebAssembly 1 module")
	}
	out := slices.Clip(module[:8])
	r := reader{b: module, at: 8}
	for r.at < len(r.b) {
		id := r.byte()
		body := r.bytes()
		if r.err != nil {
			return nil, r.err
		}
		switch id {
		case sectionDataCount:
			return nil, errors.New("a data count section: not written by Go's linker")
		case sectionData:
			segs, err := readData(body)
			if err != nil {
				return nil, err
			}
			body = writeData(join(segs))
		}
		out = append(out, id)
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	return out, nil
}

// readData reads a data section's segments, in address order.
func readData(body []byte) ([]segment, error) {
	r := reader{b: body}
	n := r.u32()
	segs := make([]segment, 0, min(n, uint32(len(body))))
	for range n {
		if flags := r.u32(); flags != 0 {
			return nil, fmt.Errorf("data segment %d: flags %d, want 0 (active, memory 0)", len(segs), flags)
		}
		if op := r.byte(); op != 0x41 { // i32.const
			return nil, fmt.Errorf("data segment %d: offset is not an i32.const", len(segs))
		}
		off := r.s32()
		if end := r.byte(); end != 0x0b {
			return nil, fmt.Errorf("data segment %d: offset expression does not end after its constant", len(segs))
		}
		data := r.bytes()
		if r.err != nil {
			return nil, fmt.Errorf("data segment %d: %w", len(segs), r.err)
		}
		if off < 0 || int64(off)+int64(len(data)) > 1<<32 {
			return nil, fmt.Errorf("data segment %d: offset %d outside memory", len(segs), off)
		}
		segs = append(segs, segment{uint32(off), data})
	}
	if r.err == nil && r.at != len(r.b) {
		r.err = errors.New("bytes after the last data segment")
	}
	if r.err != nil {
		return nil, r.err
	}
	slices.SortStableFunc(segs, func(a, b segment) int { return int(int64(a.offset) - int64(b.offset)) })
	for i := 1; i < len(segs); i++ {
		if prev := segs[i-1]; uint64(prev.offset)+uint64(len(prev.data)) > uint64(segs[i].offset) {
			return nil, fmt.Errorf("data segments at %d and %d overlap", prev.offset, segs[i].offset)
		}
	}
	return segs, nil
}

// join joins neighbouring segments, in address order, whose gap is at most
// MaxGap bytes, filling the gap with zeros.
func join(segs []segment) []segment {
	var out []segment
	for _, s := range segs {
		if k := len(out) - 1; k >= 0 {
			last := &out[k]
			end := uint64(last.offset) + uint64(len(last.data))
			if gap := uint64(s.offset) - end; gap <= MaxGap {
				last.data = append(append(slices.Clip(last.data), make([]byte, gap)...), s.data...)
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// writeData encodes segs as a data section's body.
func writeData(segs []segment) []byte {
	b := appendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		b = append(b, 0, 0x41) // memory 0, i32.const
		b = appendS32(b, int32(s.offset))
		b = append(b, 0x0b)
		b = appendU32(b, uint32(len(s.data)))
		b = append(b, s.data...)
	}
	return b
}

// reader reads a module's LEB128 numbers and byte vectors; its first error
// sticks and later reads return zeros.
type reader struct {
	b   []byte
	at  int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at byte %d", what, r.at)
	}
	r.at = len(r.b)
}

func (r *reader) byte() byte {
	if r.at >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	r.at++
	return r.b[r.at-1]
}

// u32 reads an unsigned LEB128 number of at most 32 bits.
func (r *reader) u32() uint32 {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if v > 1<<32-1 {
				r.fail("a u32 over 32 bits")
			}
			return uint32(v)
		}
	}
	r.fail("a u32 longer than 5 bytes")
	return 0
}

// s32 reads a signed LEB128 number of at most 32 bits.
func (r *reader) s32() int32 {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= int64(c&0x7f) << shift
		if c < 0x80 {
			if c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			if v < -1<<31 || v > 1<<31-1 {
				r.fail("an s32 over 32 bits")
			}
			return int32(v)
		}
	}
	r.fail("an s32 longer than 5 bytes")
	return 0
}

// bytes reads a vector of bytes: its length, then the bytes.
func (r *reader) bytes() []byte {
	n := int(r.u32())
	if r.err != nil {
		return nil
	}
	if n > len(r.b)-r.at {
		r.fail("a vector past the end")
		return nil
	}
	r.at += n
	return r.b[r.at-n : r.at]
}

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
