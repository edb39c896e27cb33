//go:build !js

package ioquake3

import "interplab/engine/technique/tools"

// The library's tools, outside lab.wasm: its cases.
func init() {
	Def.Cases = tools.Case[Case]
}
