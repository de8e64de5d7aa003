// Command floor is the floor of start-up to the first model request: a Go
// program that does nothing but post one chat request to its first
// argument with net/http and read the answer, as any Go agent must.
// bench/startup.sh measures it beside openseek, so that the figures can
// be read against what this machine takes to start a Go program and make
// a loopback round trip.
package main

import (
	"io"
	"net/http"
	"os"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: floor URL\n")
		os.Exit(2)
	}
	body := `{"model":"bench","stream":true,"messages":[{"role":"user","content":"say done"}]}`
	resp, err := http.Post(os.Args[1], "application/json", strings.NewReader(body))
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
