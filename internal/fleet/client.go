package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the JetStream objects the fleet uses.
const (
	QueueStream   = "OPENSEEK_TASKS"
	queueSubject  = "openseek.tasks.queue"
	WorkersName   = "workers" // the durable consumer every worker shares
	EventsStream  = "OPENSEEK_EVENTS"
	eventsSubject = "openseek.events." // + task id
	TasksBucket   = "openseek_tasks"
)

// Config says where the fleet's NATS is and how its queue behaves.
type Config struct {
	// URL of a NATS server or cluster (comma-separated URLs); "" uses the
	// machine's embedded server under Dir.
	URL string
	// From says where URL was set ("--nats", a config file), for errors.
	From string
	// Dir holds the embedded server's state (~/.openseek/fleet).
	Dir string
	// Name identifies this client to the server.
	Name string
	// Replicas of each stream and the bucket (1 on one node; 3 on a
	// three-node cluster survives one node lost).
	Replicas int
	// AckWait is how long a task stays held without a heartbeat before
	// another worker may take it (default 30s). It is set when the queue
	// is created or when a worker starts with it.
	AckWait time.Duration
}

// DefaultDir is where the embedded server keeps its state for a home.
func DefaultDir(home string) string { return filepath.Join(home, ".openseek", "fleet") }

// Client is a connection to the fleet: the queue, the task records and
// the event streams. It is the Go API the CLI and the HTTP routes use.
type Client struct {
	cfg Config
	nc  *nats.Conn
	js  jetstream.JetStream
	kv  jetstream.KeyValue
	// events is the events stream, for reading single messages.
	events jetstream.Stream

	mu  sync.Mutex
	emb *Embedded // the server this client runs, if any
}

// Connect connects to the fleet's NATS (or the embedded server) and makes
// sure the streams and the bucket exist.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Replicas <= 0 {
		cfg.Replicas = 1
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = 30 * time.Second
	}
	if cfg.Name == "" {
		cfg.Name = "openseek"
	}
	opts := []nats.Option{
		nats.Name(cfg.Name),
		nats.Timeout(3 * time.Second),
		nats.MaxReconnects(-1), // a server gone mid-run: wait and reconnect
		nats.ReconnectWait(250 * time.Millisecond),
	}
	c := &Client{cfg: cfg}
	var err error
	if cfg.URL != "" {
		c.nc, err = nats.Connect(cfg.URL, opts...)
		if err != nil {
			from := cfg.From
			if from == "" {
				from = "--nats"
			}
			return nil, fmt.Errorf("cannot reach NATS at %s (set by %s): %v; check the address and that the server runs, or unset it to use the machine's embedded server", Redact(cfg.URL), from, err)
		}
	} else {
		if cfg.Dir == "" {
			return nil, fmt.Errorf("fleet: no NATS URL and no directory for the embedded server")
		}
		c.nc, c.emb, err = connectLocal(cfg.Dir, opts)
		if err != nil {
			return nil, err
		}
	}
	c.js, err = jetstream.New(c.nc)
	if err == nil {
		err = c.setup(ctx)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Redact hides the credentials of a URL list in messages.
func Redact(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			parts[i] = u.Scheme + "://***@" + u.Host + u.Path
		}
	}
	return strings.Join(parts, ",")
}

func (c *Client) setup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := c.ensureStream(ctx, jetstream.StreamConfig{
		Name:      QueueStream,
		Subjects:  []string{queueSubject},
		Retention: jetstream.WorkQueuePolicy,
		Storage:   jetstream.FileStorage,
		Replicas:  c.cfg.Replicas,
	}); err != nil {
		return fmt.Errorf("create the task queue stream %s: %w", QueueStream, err)
	}
	events, err := c.ensureStream(ctx, jetstream.StreamConfig{
		Name:     EventsStream,
		Subjects: []string{eventsSubject + ">"},
		Storage:  jetstream.FileStorage,
		Replicas: c.cfg.Replicas,
		MaxAge:   14 * 24 * time.Hour,
	})
	if err != nil {
		return fmt.Errorf("create the task events stream %s: %w", EventsStream, err)
	}
	c.events = events
	kv, err := c.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:   TasksBucket,
		History:  8,
		Storage:  jetstream.FileStorage,
		Replicas: c.cfg.Replicas,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = c.js.KeyValue(ctx, TasksBucket)
	}
	if err != nil {
		return fmt.Errorf("create the task bucket %s: %w", TasksBucket, err)
	}
	c.kv = kv
	return nil
}

// ensureStream creates a stream, or takes it as it is when it exists:
// every fleet command connects, and updating a stream's configuration
// while workers create their consumers races inside the server.
func (c *Client) ensureStream(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := c.js.CreateStream(ctx, cfg)
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return c.js.Stream(ctx, cfg.Name)
	}
	return st, err
}

// consumer returns the workers' shared durable consumer, creating it
// (or setting its ack wait) as configured.
func (c *Client) consumer(ctx context.Context) (jetstream.Consumer, error) {
	cons, err := c.js.CreateOrUpdateConsumer(ctx, QueueStream, jetstream.ConsumerConfig{
		Durable:       WorkersName,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.cfg.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: 10000,
	})
	if err != nil {
		return nil, fmt.Errorf("create the workers' consumer on %s: %w", QueueStream, err)
	}
	return cons, nil
}

// retry runs op again while it fails for a passing reason (a stream
// electing a new leader after a node was lost, a reconnect), for up to
// 20 seconds. An op retried after a lost reply may find its own write:
// the caller decides what that means.
func retry(ctx context.Context, op func() error) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := op()
		if err == nil || !transient(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		sleep(ctx, 250*time.Millisecond)
	}
}

// transient reports whether err is one of those passing reasons; a
// request's own timeout is one (the server did not answer in time), the
// caller's context ending is not (retry checks it).
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, jetstream.ErrNoHeartbeat)
}

// Embedded is the server this client runs in process, or nil.
func (c *Client) Embedded() *Embedded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.emb
}

// takeOver starts the machine's embedded server in this process when the
// one this client used is gone and no other process has started it
// again; the connection then reconnects to it (localDialer). It reports
// whether this client runs the server now.
func (c *Client) takeOver() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.emb != nil {
		return true, nil
	}
	emb, err := StartEmbedded(c.cfg.Dir)
	if errors.Is(err, errLocked) {
		return false, nil // another process is starting it
	}
	if err != nil {
		return false, err
	}
	c.emb = emb
	return true, nil
}

// Conn is the underlying NATS connection.
func (c *Client) Conn() *nats.Conn { return c.nc }

// Close drains the connection and stops an embedded server this client
// started.
func (c *Client) Close() {
	if c.nc != nil {
		if c.nc.IsConnected() { // a server that is away gets no wait
			_ = c.nc.FlushTimeout(2 * time.Second)
		}
		c.nc.Close()
	}
	if emb := c.Embedded(); emb != nil {
		emb.Close()
	}
}
