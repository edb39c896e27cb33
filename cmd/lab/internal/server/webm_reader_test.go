package server

// A small reader of the WebM files the page writes from WebCodecs
// (web/webm.js), for the browser tests: EBML elements of known size (the
// page writes no element of unknown size), read from the Matroska
// specification (RFC 9559), enough to say what the file holds.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// webmFile is what readWebM finds in a WebM file.
type webmFile struct {
	DocType        string
	TimestampScale uint64  // ns
	Duration       float64 // in TimestampScale units
	Tracks         []webmTrack
	Blocks         []webmBlock // in file order
	Cues           int         // CuePoints
}

type webmTrack struct {
	Number, Type  uint64
	Codec         string
	Width, Height uint64
}

// webmBlock is one SimpleBlock.
type webmBlock struct {
	Track uint64
	Time  int64 // its Cluster's Timestamp plus its own, in TimestampScale units
	Key   bool
	Size  int  // of its frame
	First bool // the first of its Cluster
}

// ebmlElement is one element: its ID (marker bits included) and its data.
type ebmlElement struct {
	ID   uint64
	Data []byte
}

// The Matroska element IDs readWebM reads.
const (
	idEBML           = 0x1A45DFA3
	idDocType        = 0x4282
	idSegment        = 0x18538067
	idInfo           = 0x1549A966
	idTimestampScale = 0x2AD7B1
	idDuration       = 0x4489
	idTracks         = 0x1654AE6B
	idTrackEntry     = 0xAE
	idTrackNumber    = 0xD7
	idTrackType      = 0x83
	idCodecID        = 0x86
	idVideo          = 0xE0
	idPixelWidth     = 0xB0
	idPixelHeight    = 0xBA
	idCluster        = 0x1F43B675
	idTimestamp      = 0xE7
	idSimpleBlock    = 0xA3
	idCues           = 0x1C53BB6B
	idCuePoint       = 0xBB
)

// readVint reads an EBML variable-size integer at the start of b: its
// value without the length marker, its length in bytes, and whether all
// its value bits are ones (an unknown size).
func readVint(b []byte) (v uint64, n int, allOnes bool, err error) {
	if len(b) == 0 {
		return 0, 0, false, errors.New("vint: no bytes")
	}
	for n = 1; n <= 8 && b[0]&(0x80>>(n-1)) == 0; n++ {
	}
	if n > 8 {
		return 0, 0, false, fmt.Errorf("vint: first byte %#x has no length marker", b[0])
	}
	if len(b) < n {
		return 0, 0, false, fmt.Errorf("vint: %d bytes, want %d", len(b), n)
	}
	v = uint64(b[0] & (0xFF >> n))
	for _, c := range b[1:n] {
		v = v<<8 | uint64(c)
	}
	return v, n, v == 1<<(7*n)-1, nil
}

// ebmlChildren reads b as elements one after another, to its end.
func ebmlChildren(b []byte) ([]ebmlElement, error) {
	var out []ebmlElement
	for at := 0; at < len(b); {
		_, idLen, _, err := readVint(b[at:])
		if err != nil {
			return nil, fmt.Errorf("at %d: id: %v", at, err)
		}
		if idLen > 4 {
			return nil, fmt.Errorf("at %d: id of %d bytes, want at most 4", at, idLen)
		}
		var id uint64
		for _, c := range b[at : at+idLen] {
			id = id<<8 | uint64(c)
		}
		size, sizeLen, unknown, err := readVint(b[at+idLen:])
		if err != nil {
			return nil, fmt.Errorf("at %d: element %#x: size: %v", at, id, err)
		}
		if unknown {
			return nil, fmt.Errorf("at %d: element %#x has an unknown size", at, id)
		}
		start := at + idLen + sizeLen
		if size > uint64(len(b)-start) {
			return nil, fmt.Errorf("at %d: element %#x of %d bytes runs %d bytes past its parent", at, id, size, size-uint64(len(b)-start))
		}
		out = append(out, ebmlElement{id, b[start : start+int(size)]})
		at = start + int(size)
	}
	return out, nil
}

// ebmlUint reads an unsigned integer element's data.
func ebmlUint(b []byte) (uint64, error) {
	if len(b) > 8 {
		return 0, fmt.Errorf("uint of %d bytes", len(b))
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v, nil
}

// readWebM reads a WebM file: its header, then one Segment with its
// Info, Tracks, Clusters and Cues.
func readWebM(b []byte) (webmFile, error) {
	var f webmFile
	top, err := ebmlChildren(b)
	if err != nil {
		return f, err
	}
	if len(top) != 2 || top[0].ID != idEBML || top[1].ID != idSegment {
		ids := make([]string, len(top))
		for i, e := range top {
			ids[i] = fmt.Sprintf("%#x", e.ID)
		}
		return f, fmt.Errorf("top-level elements %v, want the EBML header then one Segment", ids)
	}
	head, err := ebmlChildren(top[0].Data)
	if err != nil {
		return f, fmt.Errorf("EBML header: %v", err)
	}
	for _, e := range head {
		if e.ID == idDocType {
			f.DocType = string(e.Data)
		}
	}
	seg, err := ebmlChildren(top[1].Data)
	if err != nil {
		return f, fmt.Errorf("Segment: %v", err)
	}
	for _, e := range seg {
		switch e.ID {
		case idInfo:
			err = f.readInfo(e.Data)
		case idTracks:
			err = f.readTracks(e.Data)
		case idCluster:
			err = f.readCluster(e.Data)
		case idCues:
			var cues []ebmlElement
			cues, err = ebmlChildren(e.Data)
			for _, c := range cues {
				if c.ID == idCuePoint {
					f.Cues++
				}
			}
		}
		if err != nil {
			return f, fmt.Errorf("Segment: element %#x: %v", e.ID, err)
		}
	}
	return f, nil
}

func (f *webmFile) readInfo(b []byte) error {
	els, err := ebmlChildren(b)
	if err != nil {
		return err
	}
	for _, e := range els {
		switch e.ID {
		case idTimestampScale:
			if f.TimestampScale, err = ebmlUint(e.Data); err != nil {
				return fmt.Errorf("TimestampScale: %v", err)
			}
		case idDuration:
			switch len(e.Data) {
			case 4:
				f.Duration = float64(math.Float32frombits(binary.BigEndian.Uint32(e.Data)))
			case 8:
				f.Duration = math.Float64frombits(binary.BigEndian.Uint64(e.Data))
			default:
				return fmt.Errorf("Duration of %d bytes, want 4 or 8", len(e.Data))
			}
		}
	}
	return nil
}

func (f *webmFile) readTracks(b []byte) error {
	entries, err := ebmlChildren(b)
	if err != nil {
		return err
	}
	for _, entry := range entries {
		if entry.ID != idTrackEntry {
			continue
		}
		els, err := ebmlChildren(entry.Data)
		if err != nil {
			return fmt.Errorf("TrackEntry: %v", err)
		}
		var t webmTrack
		for _, e := range els {
			switch e.ID {
			case idTrackNumber:
				t.Number, err = ebmlUint(e.Data)
			case idTrackType:
				t.Type, err = ebmlUint(e.Data)
			case idCodecID:
				t.Codec = string(e.Data)
			case idVideo:
				var video []ebmlElement
				video, err = ebmlChildren(e.Data)
				for _, v := range video {
					if err != nil {
						break
					}
					switch v.ID {
					case idPixelWidth:
						t.Width, err = ebmlUint(v.Data)
					case idPixelHeight:
						t.Height, err = ebmlUint(v.Data)
					}
				}
			}
			if err != nil {
				return fmt.Errorf("TrackEntry: element %#x: %v", e.ID, err)
			}
		}
		f.Tracks = append(f.Tracks, t)
	}
	return nil
}

func (f *webmFile) readCluster(b []byte) error {
	els, err := ebmlChildren(b)
	if err != nil {
		return err
	}
	if len(els) == 0 || els[0].ID != idTimestamp {
		return errors.New("Cluster does not start with its Timestamp")
	}
	at, err := ebmlUint(els[0].Data)
	if err != nil {
		return err
	}
	first := true
	for _, e := range els[1:] {
		if e.ID != idSimpleBlock {
			continue
		}
		track, n, _, err := readVint(e.Data)
		if err != nil {
			return fmt.Errorf("SimpleBlock: track: %v", err)
		}
		if len(e.Data) < n+3 {
			return fmt.Errorf("SimpleBlock of %d bytes", len(e.Data))
		}
		rel := int16(binary.BigEndian.Uint16(e.Data[n:]))
		f.Blocks = append(f.Blocks, webmBlock{
			Track: track,
			Time:  int64(at) + int64(rel),
			Key:   e.Data[n+2]&0x80 != 0,
			Size:  len(e.Data) - n - 3,
			First: first,
		})
		first = false
	}
	return nil
}
