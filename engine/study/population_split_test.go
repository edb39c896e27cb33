package study

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"interplab/engine"
)

// A population run cut into entity chunks, each chunk's figures through
// JSON as a queue stores them, merges to RunPopulation's result byte for
// byte, whatever the cut and the worker count.
func TestPopulationChunksMerge(t *testing.T) {
	spec := testPopulationSpec()
	whole, err := RunPopulation(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(whole)
	n := spec.Population.Entities
	for _, cut := range [][]int{{0, n}, {0, 1, 2, 3, 4, 5, 6, n}, {0, 3, n}, {0, 5, 6, n}} {
		var ents []PopulationEntity
		// Chunks merged last first: the merge puts them in order.
		for c := len(cut) - 2; c >= 0; c-- {
			got, err := RunPopulationEntities(context.Background(), spec, cut[c], cut[c+1], c%2+1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != cut[c+1]-cut[c] || got[0].Entity != cut[c] {
				t.Fatalf("RunPopulationEntities(%d, %d) gave %d entities from %d", cut[c], cut[c+1], len(got), got[0].Entity)
			}
			raw, _ := json.Marshal(got)
			var back []PopulationEntity
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			ents = append(ents, back...)
		}
		merged, err := MergePopulation(spec, ents)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(merged); !bytes.Equal(got, want) {
			t.Errorf("cut %v: the merged result differs from RunPopulation's: %s", cut, firstDifference(got, want))
		}
	}
}

// A chunk outside the population, or a merge missing an entity or holding
// one twice, is an error naming what is wrong; nothing is merged.
func TestPopulationChunkErrors(t *testing.T) {
	spec := testPopulationSpec()
	n := spec.Population.Entities
	for _, r := range [][2]int{{-1, 2}, {3, 3}, {4, 2}, {0, n + 1}} {
		_, err := RunPopulationEntities(context.Background(), spec, r[0], r[1], 1, nil)
		if fe, ok := err.(*engine.FieldError); !ok || fe.Field != "from" && fe.Field != "to" {
			t.Errorf("RunPopulationEntities(%d, %d) = %v, want a FieldError on from or to", r[0], r[1], err)
		}
	}
	ents, err := RunPopulationEntities(context.Background(), spec, 0, n, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]PopulationEntity{
		"one missing":  ents[1:],
		"one twice":    append(append([]PopulationEntity(nil), ents[:n-1]...), ents[0]),
		"one too many": append(append([]PopulationEntity(nil), ents...), PopulationEntity{Entity: n, Techniques: ents[0].Techniques}),
		"bad figures":  append(append([]PopulationEntity(nil), ents[:n-1]...), PopulationEntity{Entity: n - 1}),
	} {
		if r, err := MergePopulation(spec, bad); err == nil || r != nil {
			t.Errorf("MergePopulation(%s) = %v, %v; want an error", name, r, err)
		}
	}
}

// firstDifference shows where a and b first differ.
func firstDifference(a, b []byte) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return fmt.Sprintf("at byte %d: %q vs %q", n, a[n:min(len(a), n+60)], b[n:min(len(b), n+60)])
}
