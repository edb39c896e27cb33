package store

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"

	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/presets"
)

// SamplePrefix starts every sample's name, and no stored trace's.
const SamplePrefix = "sample-"

// samples are the built-in sample traces (presets.TraceSamples), parsed
// once, on first use; every backend lists and loads them beside the traces
// it stores.
type samples struct {
	all func() ([]sampleEntry, error)
}

func newSamples() samples { return samples{all: sync.OnceValues(parseSamples)} }

// sampleEntry is a built-in sample, parsed once.
type sampleEntry struct {
	info  TraceInfo
	trace *engine.Trace
	err   error
}

// parseSamples reads the built-in samples.
func parseSamples() ([]sampleEntry, error) {
	samples, err := presets.TraceSamples()
	if err != nil {
		return nil, err
	}
	out := make([]sampleEntry, len(samples))
	for i, s := range samples {
		tr, _, err := traceio.Parse(bytes.NewReader(s.Data), "csv", s.Name)
		if err != nil {
			return nil, fmt.Errorf("sample trace %s: %w", s.Name, err)
		}
		info := traceInfo(tr, "sample", time.Time{})
		info.Sample, info.Title, info.Doc = true, s.Title, s.Doc
		out[i] = sampleEntry{info: info, trace: tr}
	}
	return out, nil
}

// find returns the sample trace called name (its err set if the samples
// cannot be read).
func (s samples) find(name string) (sampleEntry, bool) {
	if !strings.HasPrefix(name, SamplePrefix) {
		return sampleEntry{}, false
	}
	all, err := s.all()
	if err != nil {
		return sampleEntry{err: err}, true
	}
	for _, e := range all {
		if e.info.Name == name {
			return e, true
		}
	}
	return sampleEntry{}, false
}
