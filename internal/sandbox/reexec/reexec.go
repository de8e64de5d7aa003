// Package reexec runs sandbox.Main during package initialisation. The
// sandbox's helper and its sandboxed commands are re-executions of the
// openseek binary; imported (blank) by the main package, this package
// turns such a process into what it was started as once the sandbox
// package and its dependencies are initialised, before the rest of the
// binary's packages (the terminal UI's Markdown, the fleet's NATS server,
// the SDKs' types…), whose initialisation a helper has no use for: about
// a third of the binary's package-init time, measured in
// bench/startup.sh's sandboxed runs as 20 ms of CPU per run.
//
// A process that is neither returns at once and initialisation goes on.
package reexec

import "github.com/openseek/openseek/internal/sandbox"

func init() { sandbox.Main() }
