package fleet

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCluster runs a three-node JetStream cluster on loopback.
func startCluster(t *testing.T) []*server.Server {
	t.Helper()
	ports := []int{freePort(t), freePort(t), freePort(t)}
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	var nodes []*server.Server
	for i, p := range ports {
		s, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("n%d", i),
			Host:       "127.0.0.1",
			Port:       server.RANDOM_PORT,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			Cluster:    server.ClusterOpts{Name: "openseek-test", Host: "127.0.0.1", Port: p},
			Routes:     routes,
			NoLog:      true,
			NoSigs:     true,
		})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		nodes = append(nodes, s)
	}
	for _, s := range nodes {
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatalf("node %s not ready", s.Name())
		}
	}
	// Wait for the JetStream meta leader.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if nodes[0].JetStreamIsLeader() || nodes[1].JetStreamIsLeader() || nodes[2].JetStreamIsLeader() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no JetStream meta leader after 30s")
		}
	}
	return nodes
}

// With streams replicated three ways, the queue goes on when a node dies:
// tasks queued before and after the loss all complete.
func TestClusterSurvivesANodeLost(t *testing.T) {
	nodes := startCluster(t)
	var urls []string
	for _, s := range nodes {
		urls = append(urls, s.ClientURL())
	}
	const n = 6
	turns := make([]llmtest.Turn, 2*n)
	for i := range turns {
		turns[i] = llmtest.Text("done")
	}
	srv := llmtest.NewServer(t, turns...)
	srv.MultiConversation()
	// The client of tasks add speaks to the node that will survive.
	cfg := Config{URL: strings.Join(urls, ","), Replicas: 3, AckWait: 5 * time.Second}
	var c *Client
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		c, err = Connect(context.Background(), Config{URL: urls[1], Replicas: 3, AckWait: cfg.AckWait, Name: "adder"})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster did not form: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Cleanup(c.Close)
	repo := newRepo(t)
	add := func() []string {
		var ids []string
		for range n {
			task, err := c.Add(context.Background(), Spec{Prompt: "go", Dir: repo})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, task.ID)
		}
		return ids
	}
	ids := add()
	stop, _ := startWorkers(t, cfg, 2, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	waitAll(t, c, ids, time.Minute)

	nodes[0].Shutdown()
	nodes[0].WaitForShutdown()
	ids2 := add()
	got := waitAll(t, c, ids2, time.Minute)
	stop()
	for _, task := range got {
		if task.State != Completed {
			t.Errorf("task %s after the node loss: %s %s", task.ID, task.State, task.Error)
		}
	}
	ends := endMarkers(t, c)
	for _, id := range append(ids, ids2...) {
		if len(ends[id]) != 1 {
			t.Errorf("task %s: end markers %v, want one", id, ends[id])
		}
	}
}

func TestUnreachableNATSNamesTheURL(t *testing.T) {
	_, err := Connect(context.Background(), Config{URL: "nats://user:secret@127.0.0.1:1"})
	if err == nil || !strings.Contains(err.Error(), "cannot reach NATS at nats://***@127.0.0.1:1") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("error = %v", err)
	}
}
