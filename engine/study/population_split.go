package study

import (
	"context"
	"slices"
	"strconv"

	"interplab/engine"
)

// A population run cut into entity chunks: entity e's figures depend only
// on the spec and e (see Population), so the chunks [a, b) of a run can run
// anywhere, in any order, on any number of machines, and one merge of every
// entity's figures gives the result RunPopulation gives, byte for byte:
// the percentiles, the worst entities and each entity's figures alike.
// A team's lab runs its population studies this way, a chunk per unit of
// work on its queue.

// RunPopulationEntities runs entities [from, to) of spec as RunPopulation
// runs them, on workers goroutines (GOMAXPROCS when ≤ 0), and returns their
// figures in entity order: entities from to to−1. progress, ctx and the
// worker count are RunPopulation's, with total = to − from.
//
// It validates spec and the chunk first: from in [0, entities − 1] and to
// in [from + 1, entities]; the error is a *FieldError naming the spec's
// field, or "from" or "to".
func RunPopulationEntities(ctx context.Context, spec PopulationSpec, from, to, workers int, progress func(e PopulationEntity, done, total int)) ([]PopulationEntity, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := checkSpan(from, to, spec.Population.Entities, "an entity of the population", "entities"); err != nil {
		return nil, err
	}
	return runEntities(ctx, &spec, from, to, workers, progress)
}

// MergePopulation returns the result of spec from the figures of its
// entities, as RunPopulationEntities returned them for chunks that cover
// the population: every entity once, in any order. It is the result
// RunPopulation gives for spec. An entity missing or twice, one beyond the
// population, or figures of other techniques or rounds than spec's are an
// error, a *FieldError on "entities", and no result.
func MergePopulation(spec PopulationSpec, ents []PopulationEntity) (*PopulationResult, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	p := &spec.Population
	all := "every entity of the population once: 0 to " + strconv.Itoa(p.Entities-1)
	if len(ents) != p.Entities {
		return nil, &engine.FieldError{Field: "entities", Value: strconv.Itoa(len(ents)) + " entities", Allowed: all}
	}
	sorted := slices.Clone(ents)
	slices.SortStableFunc(sorted, func(a, b PopulationEntity) int { return a.Entity - b.Entity })
	techniques := len(engine.InOrder(p.EntitySettings(spec.Base, 0).Techniques))
	for i := range sorted {
		e := &sorted[i]
		if e.Entity != i {
			return nil, &engine.FieldError{Field: "entities", Value: "entity " + strconv.Itoa(e.Entity) + " where entity " + strconv.Itoa(i) + " belongs", Allowed: all}
		}
		if len(e.Techniques) != techniques {
			return nil, &engine.FieldError{Field: "entities", Value: "entity " + strconv.Itoa(i) + " with " + strconv.Itoa(len(e.Techniques)) + " techniques",
				Allowed: "the figures of the spec's " + strconv.Itoa(techniques) + " techniques"}
		}
		for k := range e.Techniques {
			if r := len(e.Techniques[k].Rounds); r != p.Rounds {
				return nil, &engine.FieldError{Field: "entities", Value: "entity " + strconv.Itoa(i) + " with " + strconv.Itoa(r) + " rounds",
					Allowed: "the spec's " + strconv.Itoa(p.Rounds) + " rounds"}
			}
		}
	}
	return mergePopulation(spec, sorted), nil
}
