// Package entry is the first thing a binary that runs the host imports
// (blank): the processes the host starts from the binary itself — the
// sandbox's helper and its sandboxed commands — become what they were
// started as here, during package initialisation, before the packages a
// helper has no use for initialise (internal/sandbox/reexec says why and
// what that saves). An ordinary start returns at once and initialisation
// goes on.
//
// It is a package of its own, not part of internal/engine, so that only
// binaries ask for it: a test binary that imports the engine keeps
// deciding for itself whether it runs sandboxed commands (sandbox.Main in
// its TestMain).
package entry

import (
	// Package initialisation order is by import path once a package's
	// imports are initialised, so importing reexec here runs it at the
	// same point as a blank import in package main would.
	_ "github.com/openseek/openseek/internal/sandbox/reexec"
)
