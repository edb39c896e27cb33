package engine

import (
	"testing"
)

// Every technique is classed: one added later must say whether the network
// sets it a floor.
func TestEveryTechniqueSaysItsReach(t *testing.T) {
	for _, d := range techDefs {
		if d.reach == 0 {
			t.Errorf("technique %s says nothing of its reach (technique.Def.Reach)", d.name)
		}
	}
}
