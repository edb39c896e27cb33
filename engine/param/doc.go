// Package param is the engine's vocabulary: a parameter row (name, kind,
// unit, range, step, default, one line of doc) over the settings struct it
// reads and writes, the error that names a field and its allowed range, and
// the one rule for numbers a person types or reads (a plain number is in
// the display unit; any number may carry a unit of its kind; numbers are
// written exactly, without an exponent).
//
// Every group of settings (a technique's knobs, the network's) declares its
// rows over its own struct; the engine lifts them onto its Settings with
// Lift and so builds the one table that sliders, validation, links, flags
// and exports are generated from. The package uses the standard library
// only.
package param
