package presets

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"interplab/engine/study"
)

// Population presets are player bases, one JSON file each under
// populations/: a distribution of connections (engine.Population) that a
// technique's settings are run over. They are files, like the setting
// presets, rather than a table in Go, because they are data a designer
// edits and reasons about: each carries its doc and, where it reproduces a
// published figure, the calibration that says which numbers were chosen,
// why they are plausible, and what they give.
//
// A population file looks like this:
//
//	{
//	  "name": "lan-tournament",
//	  "title": "LAN tournament",
//	  "doc": "One line: who these players are and why these ranges.",
//	  "calibration": "Optional: how the numbers were chosen and what they give.",
//	  "order": 20,
//	  "population": {"latency": {"min": 0.0005, "max": 0.002}, ...}
//	}
//
// Every field of population must be given; the file must pass
// engine.Population.Validate.

//go:embed populations/*.json
var populationFiles embed.FS

// PopulationPreset is one named player base.
type PopulationPreset struct {
	Name        string           // short name, used in URLs and -population
	Title       string           // human title
	Doc         string           // one line
	Calibration string           // how the numbers were chosen, when it reproduces a figure; may be ""
	Population  study.Population // valid
}

// DefaultPopulation is the population a run uses when none is named: the
// guide's Harbor Vanguard beta.
const DefaultPopulation = "harbor-beta"

var allPopulations = sync.OnceValues(func() ([]PopulationPreset, error) {
	sub, err := fs.Sub(populationFiles, "populations")
	if err != nil {
		return nil, err
	}
	return LoadPopulations(sub)
})

// Populations returns the embedded population presets in display order.
func Populations() ([]PopulationPreset, error) {
	list, err := allPopulations()
	return slices.Clone(list), err
}

// GetPopulation returns the embedded population preset with the given name.
func GetPopulation(name string) (PopulationPreset, error) {
	list, err := allPopulations()
	if err != nil {
		return PopulationPreset{}, err
	}
	for _, p := range list {
		if p.Name == name {
			return p, nil
		}
	}
	return PopulationPreset{}, fmt.Errorf("unknown population %q (want one of %s)", name, PopulationNames())
}

// PopulationNames lists the population presets' names, comma-separated,
// for a message or a flag's help.
func PopulationNames() string {
	list, _ := allPopulations()
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

type populationFile struct {
	Name        string            `json:"name"`
	Title       string            `json:"title"`
	Doc         string            `json:"doc"`
	Calibration string            `json:"calibration"`
	Order       int               `json:"order"`
	Population  *study.Population `json:"population"`
}

// LoadPopulations reads, checks and sorts every *.json file at the root of
// fsys.
func LoadPopulations(fsys fs.FS) ([]PopulationPreset, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, fmt.Errorf("list populations: %w", err)
	}
	if len(names) == 0 {
		return nil, errors.New("no population files")
	}
	type ordered struct {
		PopulationPreset
		order int
	}
	var list []ordered
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read population: %w", err)
		}
		pp, order, err := parsePopulation(name, data)
		if err != nil {
			return nil, err
		}
		list = append(list, ordered{pp, order})
	}
	slices.SortStableFunc(list, func(a, b ordered) int {
		if a.order != b.order {
			return a.order - b.order
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := make([]PopulationPreset, len(list))
	for i, p := range list {
		out[i] = p.PopulationPreset
	}
	return out, nil
}

// parsePopulation reads and checks one population file; name is its file
// name, which the population's name must match.
func parsePopulation(name string, data []byte) (PopulationPreset, int, error) {
	var f populationFile
	if err := decodeStrict(data, &f); err != nil {
		return PopulationPreset{}, 0, fmt.Errorf("population %s: %w", name, err)
	}
	switch {
	case f.Name != strings.TrimSuffix(path.Base(name), ".json"):
		return PopulationPreset{}, 0, fmt.Errorf("population %s: name %q does not match the file name", name, f.Name)
	case f.Title == "" || f.Doc == "":
		return PopulationPreset{}, 0, fmt.Errorf("population %s: missing title or doc", name)
	case f.Population == nil:
		return PopulationPreset{}, 0, fmt.Errorf("population %s: missing population", name)
	}
	if err := f.Population.Validate(); err != nil {
		return PopulationPreset{}, 0, fmt.Errorf("population %s: %w", name, err)
	}
	return PopulationPreset{Name: f.Name, Title: f.Title, Doc: f.Doc, Calibration: f.Calibration, Population: *f.Population}, f.Order, nil
}

// ReadPopulationFile reads a custom population: a population file, as
// those under populations/, anywhere (lab fit -population writes one). Its
// name must be the file's name without .json.
func ReadPopulationFile(file string) (PopulationPreset, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return PopulationPreset{}, err
	}
	pp, _, err := parsePopulation(filepath.Base(file), data)
	return pp, err
}

// WritePopulation writes pp as a population file, which
// ReadPopulationFile reads back when the file is named pp.Name + ".json".
func WritePopulation(w io.Writer, pp PopulationPreset) error {
	p := pp.Population
	data, err := json.MarshalIndent(populationFile{Name: pp.Name, Title: pp.Title, Doc: pp.Doc, Calibration: pp.Calibration, Population: &p}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
