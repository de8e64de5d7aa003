package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/openseek/openseek/internal/beneath"
)

// Embedded is a JetStream server running inside this process, the
// one-machine default. Its state survives restarts under Dir.
type Embedded struct {
	Server *server.Server
	Dir    string
	URL    string // with its token, as other local processes connect
	unlock func()
}

// StartEmbedded starts a JetStream server on a free loopback port with
// its store under dir. Only one process may own dir at a time: it holds a
// lock there and writes its URL (with a fresh token, mode 0600) to
// dir/server.url for the others.
func StartEmbedded(dir string) (*Embedded, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("fleet state directory %s: %w", dir, err)
	}
	unlock, err := lockDir(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, err
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	srv, err := server.NewServer(&server.Options{
		ServerName:    "openseek-embedded",
		Host:          "127.0.0.1",
		Port:          server.RANDOM_PORT,
		JetStream:     true,
		StoreDir:      filepath.Join(dir, "jetstream"),
		Authorization: token,
		NoLog:         true,
		NoSigs:        true,
	})
	if err != nil {
		unlock()
		return nil, fmt.Errorf("start the embedded NATS server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		unlock()
		return nil, fmt.Errorf("the embedded NATS server (store %s) did not start within 10s", dir)
	}
	url := strings.Replace(srv.ClientURL(), "nats://", "nats://"+token+"@", 1)
	if err := beneath.WriteFile(filepath.Join(dir, "server.url"), []byte(url+"\n"), 0o600); err != nil {
		srv.Shutdown()
		unlock()
		return nil, fmt.Errorf("write %s: %w", filepath.Join(dir, "server.url"), err)
	}
	return &Embedded{Server: srv, Dir: dir, URL: url, unlock: unlock}, nil
}

// Close stops the server and gives up the directory.
func (e *Embedded) Close() {
	_ = os.Remove(filepath.Join(e.Dir, "server.url"))
	e.Server.Shutdown()
	e.Server.WaitForShutdown()
	e.unlock()
}

// errLocked means another process owns the embedded server's directory.
var errLocked = errors.New("the fleet directory is in use by another process")

// localURL reads the URL of the embedded server another process runs.
func localURL(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "server.url"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// connectLocal connects to the machine's embedded server, starting one in
// this process when no other process runs it. The returned Embedded is
// nil when another process owns the server; the connection then follows
// the machine's server wherever it runs next (localDialer).
func connectLocal(dir string, opts []nats.Option) (*nats.Conn, *Embedded, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if addr, _ := localAddr(dir); addr != "" {
			follow := append(slices.Clone(opts), nats.SetCustomDialer(localDialer{dir: dir}), nats.TokenHandler(func() string {
				_, token := localAddr(dir)
				return token
			}))
			if nc, err := nats.Connect("nats://"+addr, follow...); err == nil {
				return nc, nil, nil
			}
		}
		emb, err := StartEmbedded(dir)
		if err == nil {
			nc, err := nats.Connect(emb.URL, append(opts, nats.InProcessServer(emb.Server))...)
			if err != nil {
				emb.Close()
				return nil, nil, fmt.Errorf("connect to the embedded NATS server: %w", err)
			}
			return nc, emb, nil
		}
		if !errors.Is(err, errLocked) {
			return nil, nil, err
		}
		// Another process is starting or running the server: wait for its URL.
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("another process holds %s but its NATS server does not answer; stop it or remove the directory", dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// localAddr is the address and token of the machine's embedded server,
// as its owner wrote them to dir/server.url ("" when none).
func localAddr(dir string) (addr, token string) {
	u, err := url.Parse(localURL(dir))
	if err != nil || u.Host == "" {
		return "", ""
	}
	return u.Host, u.User.Username()
}

// localDialer dials the machine's embedded server where it listens now:
// the address in server.url is read at every (re)connect, so when the
// process that ran the server dies and another starts it again (on
// another port, with another token: TokenHandler reads that), the
// clients of the old one reconnect to the new one by themselves, with
// their subscriptions, and the workers' tasks carry on.
type localDialer struct{ dir string }

func (l localDialer) Dial(network, address string) (net.Conn, error) {
	if addr, _ := localAddr(l.dir); addr != "" {
		address = addr
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	return d.Dial(network, address)
}
