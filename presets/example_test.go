package presets_test

import (
	"fmt"

	"interplab/presets"
)

func ExampleGet() {
	p, err := presets.Get("ping120")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: latency %g s one-way, delay %g s, adaptive %t\n", p.Title, p.Settings.Latency, p.Settings.Delay, p.Settings.Adaptive)
	// Output: Playtest at 120 ms ping: latency 0.06 s one-way, delay 0.1 s, adaptive true
}

func ExampleAll() {
	list, err := presets.All()
	if err != nil {
		fmt.Println(err) // a bad preset file: the lab refuses to start
		return
	}
	fmt.Println(list[0].Name, list[1].Name, list[2].Name)
	// Output: epic-seed harbor-before harbor-after
}
