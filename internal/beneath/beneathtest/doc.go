// Package beneathtest plays, in tests, the command that races the file
// tools: one that keeps exchanging a directory with a symlink (or another
// directory) while a path through it is checked and written. Linux only
// (renameat2).
package beneathtest
