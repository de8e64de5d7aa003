// Command gen writes the JSON Schemas of internal/wireschema into the
// directory given as its argument (go generate ./internal/wireschema).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/openseek/openseek/internal/wireschema"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR")
		os.Exit(2)
	}
	for name, gen := range wireschema.Files() {
		data, err := gen()
		if err == nil {
			err = os.WriteFile(filepath.Join(os.Args[1], name), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}
