// Package importer turns another coding agent's transcript (a Codex CLI
// rollout, a Claude Code session) into OpenSeek session items.
package importer
