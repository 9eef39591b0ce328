package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// link is a TCP proxy in front of one address that a test can cut: Cut closes every connection
// through it and closes each new one as soon as it is accepted (the dialer sees its connection end
// at once); Silence forwards nothing more either way and leaves every connection, and each new one,
// open and unanswered (as a network that drops the packets: TCP's buffers fill, the senders block);
// Heal ends either. The partition test routes every link between two nats-servers through one, and
// lets the workers reach the servers they must not start on through one.
type link struct {
	ln     net.Listener
	target string // "" for a link that leads nowhere: every connection is closed on accept

	mu    sync.Mutex
	cut   bool
	held  chan struct{} // non-nil while silenced; closed by Heal
	conns map[net.Conn]struct{}
}

func newLink(t *testing.T, target string) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &link{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go l.serve()
	t.Cleanup(func() {
		ln.Close()
		l.Cut()
		l.Heal() // releases the connections a silence holds (all closed by now)
	})
	return l
}

func (l *link) Addr() string { return l.ln.Addr().String() }

func (l *link) serve() {
	for {
		in, err := l.ln.Accept()
		if err != nil {
			return
		}
		go l.pipe(in)
	}
}

func (l *link) pipe(in net.Conn) {
	if l.target == "" || l.isCut() {
		in.Close()
		return
	}
	l.wait() // a connection made while silenced gets nothing back until the heal
	out, err := net.DialTimeout("tcp", l.target, 2*time.Second)
	if err != nil {
		in.Close()
		return
	}
	l.mu.Lock()
	if l.cut {
		l.mu.Unlock()
		in.Close()
		out.Close()
		return
	}
	l.conns[in], l.conns[out] = struct{}{}, struct{}{}
	l.mu.Unlock()
	done := make(chan struct{}, 2)
	copyTo := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				l.wait()
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}
	go copyTo(out, in)
	go copyTo(in, out)
	<-done
	in.Close()
	out.Close()
	l.mu.Lock()
	delete(l.conns, in)
	delete(l.conns, out)
	l.mu.Unlock()
}

func (l *link) isCut() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cut
}

// Cut closes every connection through the link and every new one until Heal.
func (l *link) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = true
	for c := range l.conns {
		c.Close()
	}
	clear(l.conns)
}

// Silence forwards nothing more through the link, either way, until Heal: its connections and new
// ones stay open, unanswered.
func (l *link) Silence() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = make(chan struct{})
	}
}

// wait returns once the link is not silenced.
func (l *link) wait() {
	l.mu.Lock()
	held := l.held
	l.mu.Unlock()
	if held != nil {
		<-held
	}
}

// Heal lets connections through again (what a silence held goes on, in order).
func (l *link) Heal() {
	l.mu.Lock()
	if l.held != nil {
		close(l.held)
		l.held = nil
	}
	l.cut = false
	l.mu.Unlock()
}

// startProxiedCluster is startCluster with every route between two servers through a link of its
// own: server i reaches server j only through routes[i][j] (no server dials another's route port
// directly: each advertises, for its peers' gossip, an address that leads nowhere). Cutting the
// links of one server cuts it off from its cluster while its clients still reach it.
func startProxiedCluster(t *testing.T, n int) (nodes []*natsProc, routes [][]*link) {
	t.Helper()
	nowhere := newLink(t, "")
	nodes = make([]*natsProc, n)
	for i := range nodes {
		nodes[i] = &natsProc{t: t, port: freePort(t), store: t.TempDir(),
			cluster: natstest.Cluster{Name: fmt.Sprintf("n%d", i+1), ClusterName: "it", Port: freePort(t), HTTPPort: freePort(t), Advertise: nowhere.Addr(),
				PingInterval: routePing, PingMax: routePingMax}}
	}
	routes = make([][]*link, n)
	for i := range nodes {
		routes[i] = make([]*link, n)
		for j := range nodes {
			if i == j {
				continue
			}
			routes[i][j] = newLink(t, fmt.Sprintf("127.0.0.1:%d", nodes[j].cluster.Port))
			nodes[i].cluster.Routes = append(nodes[i].cluster.Routes, "nats-route://"+routes[i][j].Addr())
		}
	}
	startNodes(t, nodes)
	return nodes, routes
}

// startNodes starts a cluster's servers and waits until it has a JetStream meta leader.
func startNodes(t *testing.T, nodes []*natsProc) {
	t.Helper()
	for _, node := range nodes {
		node.start()
		t.Cleanup(node.stop)
	}
	e := &env{cluster: nodes}
	nc, err := nats.Connect(e.natsURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	waitFor(t, 60*time.Second, "a JetStream meta leader", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := js.AccountInfo(ctx)
		return err == nil
	})
}

// partition is a cluster's cut: cut(i) cuts server i's routes, heal restores every route; mode
// says how (for the FIGURES line).
type partition struct {
	mode string
	cut  func(victim int)
	heal func()
}

// startPartitionableCluster starts n servers in one cluster whose routes a test can cut: in
// network namespaces (netnsCluster) unless PARTITION_MODE says "proxy" or "close" or they cannot be
// made (the reason is logged), otherwise through TCP proxies (startProxiedCluster) that go silent,
// or close with PARTITION_MODE=close.
func startPartitionableCluster(t *testing.T, n int) ([]*natsProc, partition) {
	t.Helper()
	mode := os.Getenv("PARTITION_MODE")
	if mode == "" || mode == "netns" {
		nodes, ns, err := newNetnsCluster(t, n)
		if err == nil {
			startNodes(t, nodes)
			t.Logf("partition: network namespaces %s* (servers at %s), route packets dropped by iptables", ns.prefix, strings.Join(ns.ips, ", "))
			return nodes, partition{
				mode: "network namespaces, route packets dropped by iptables",
				cut: func(victim int) {
					if err := ns.Cut(victim); err != nil {
						t.Error(err)
					}
				},
				heal: func() {
					if err := ns.Heal(); err != nil {
						t.Error(err)
					}
				},
			}
		}
		if mode == "netns" {
			t.Fatalf("PARTITION_MODE=netns: network namespaces unavailable: %v", err)
		}
		t.Logf("partition: network namespaces unavailable (%v): cutting TCP proxies instead", err)
	}
	nodes, routes := startProxiedCluster(t, n)
	p := partition{mode: "TCP proxies, silent links"}
	if mode == "close" {
		p.mode = "TCP proxies, closed links"
	}
	p.cut = func(victim int) {
		for i := range routes {
			for j := range routes[i] {
				if routes[i][j] != nil && (i == victim || j == victim) {
					if mode == "close" {
						routes[i][j].Cut()
					} else {
						routes[i][j].Silence()
					}
				}
			}
		}
	}
	p.heal = func() {
		for i := range routes {
			for j := range routes[i] {
				if routes[i][j] != nil {
					routes[i][j].Heal()
				}
			}
		}
	}
	return nodes, p
}

// routePing and routePingMax are the route ping settings docs/operations.md ("Partitions")
// recommends (cluster ping_interval and ping_max): a route whose peer went silent is closed 4-6 s
// after it last answered, instead of after 60-90 s with nats-server's defaults.
const (
	routePing    = 2 * time.Second
	routePingMax = 2
)

// timing is one call: when it started and ended, and its error.
type timing struct {
	start, end time.Time
	err        string
	id         string // the request_id, where the caller reports it (the Go callers)
}

// A partition of the server every process is on: a 3-server cluster, 2 workers and Go, JavaScript
// and Python callers all connected to one server, which also leads WORKER_REQUESTS; its route links
// are cut for 30 s (the clients still reach it), then healed. Everyone moves to the two servers
// that keep the quorum: every call is answered within 15 s of the cut, none is lost, each request
// runs once, and each worker's /readyz is 503 while it is on the cut-off server.
//
// The cut is made one of two ways, named in the FIGURES line (PARTITION_MODE chooses):
//   - Network namespaces (the default where the test runs as root and ip and iptables work): each
//     nats-server runs in a network namespace of its own, on a bridge the clients reach from the
//     test's namespace (netnsCluster). The cut drops, in every namespace, the packets of the
//     routes between the cut-off server and the others (iptables DROP: nothing is refused or
//     answered, the peers' TCP retransmits into silence); the clients' traffic goes on.
//     PARTITION_MODE=netns fails the test where namespaces cannot be made.
//   - TCP proxies (the fallback, logged with the reason, or PARTITION_MODE=proxy): every route link
//     goes through a proxy of its own (startProxiedCluster), so the test runs unprivileged. The cut
//     silences the cut-off server's links: they stay open and forward nothing, as a network
//     dropping the packets does. PARTITION_MODE=close closes them instead (and every new
//     connection on them), as a peer that is gone does.
//
// Either way the silent routes end when the servers' route pings give up (the cluster runs with
// the route ping settings docs/operations.md recommends, routePing).
// PARTITION_KEEP_LOGS=DIR copies the workers' logs there and logs when the cut and the heal were.
func TestPartitionOfTheServerEveryoneIsOn(t *testing.T) {
	t.Parallel()
	const cutFor, bound = 30 * time.Second, 15 * time.Second
	nodes, part := startPartitionableCluster(t, 3)
	victim := nodes[0]
	// The workers randomise their server list: the others are reached through gates closed until
	// both workers are connected to the victim, then open (they are where the workers move to).
	gates := []*link{newLink(t, nodes[1].addr(nodes[1].port)), newLink(t, nodes[2].addr(nodes[2].port))}
	for _, g := range gates {
		g.Cut()
	}
	e := &env{url: strings.Join([]string{victim.URL(), "nats://" + gates[0].Addr(), "nats://" + gates[1].Addr()}, ","),
		bucket: "it-" + randomHex(5), dir: t.TempDir(), extra: []string{"JETSTREAM_REPLICAS=3", "CONCURRENCY=8"}} // ACK_WAIT as deployed (10 s)
	seedRegistry(t, e)
	seed(t, e)
	a := e.startWorker(t, "part-a")
	b := e.startWorker(t, "part-b")
	for _, g := range gates {
		g.Heal()
	}
	callers := &env{cluster: nodes, bucket: e.bucket}
	nc, err := nats.Connect(serverFirst(callers, victim), nats.DontRandomize(), nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	waitFor(t, 60*time.Second, "every stream and consumer on 3 current replicas", func() bool { return replicated(js, 3) == nil })
	leader := leadOn(t, nc, js, victim.cluster.Name)
	consumerLeader := consumerLeadOn(t, nc, js, victim.cluster.Name)

	goCalls := partitionCallersGo(t, callers, victim)
	jsCalls := callThroughFailoverJS(t, callers, victim)
	pyCalls := callThroughFailoverPython(t, callers, victim)
	ready := watchReadiness(a, b)
	time.Sleep(2 * time.Second) // calls before the cut
	cutFrom := time.Now()
	part.cut(0)
	// The cut is in place once part.cut returns: in network namespaces, after an iptables run in
	// each (tens of milliseconds under load); the bounds count from then.
	cutAt := time.Now()
	time.Sleep(cutFor)
	healAt := time.Now()
	part.heal()
	time.Sleep(3 * time.Second) // calls after the heal
	samples := ready.stop()

	type outcome struct {
		name       string
		calls      int
		failed     []string
		worst      time.Duration
		worstStart time.Duration // when the slowest call started, from the cut
		worstID    string        // its request_id, when known
	}
	measure := func(name string, ts []timing) outcome {
		o := outcome{name: name, calls: len(ts)}
		for _, c := range ts {
			if c.err != "" {
				o.failed = append(o.failed, c.err)
			}
			if c.end.Before(cutAt) {
				continue
			}
			if d := c.end.Sub(later(c.start, cutAt)); d > o.worst {
				o.worst, o.worstStart, o.worstID = d, c.start.Sub(cutAt), c.id
			}
		}
		return o
	}
	goTimings, goMoves := goCalls()
	outcomes := []outcome{measure("Go", goTimings)}
	if jsCalls != nil {
		outcomes = append(outcomes, measure("JavaScript", reportTimings(jsCalls())))
	}
	if pyCalls != nil {
		outcomes = append(outcomes, measure("Python", reportTimings(pyCalls())))
	}
	most, repeated := executions(a, b)
	var parts []string
	lost, worst := 0, time.Duration(0)
	for _, o := range outcomes {
		lost += len(o.failed)
		worst = max(worst, o.worst)
		parts = append(parts, fmt.Sprintf("%s %d calls, %d lost, max latency from the cut %s (a call started at %+.1fs%s)",
			o.name, o.calls, len(o.failed), o.worst.Round(time.Millisecond), o.worstStart.Seconds(), strings.TrimSuffix(", "+o.worstID, ", ")))
	}
	for _, at := range goMoves {
		parts[0] += fmt.Sprintf(", moved at %+.1fs", at.Sub(cutAt).Seconds())
	}
	readiness, lies := readinessFigures(t, samples, cutAt, healAt, a, b)
	mode := fmt.Sprintf("%s, in place in %s; route pings %s x %d", part.mode, cutAt.Sub(cutFrom).Round(time.Millisecond), routePing, routePingMax)
	t.Logf("FIGURES partition of %s (%s; WORKER_REQUESTS leader %s, its get_artifact consumer's %s; every worker and caller on it) for %s: lost=%d max latency from the cut=%s; %s; executions per request_id at most %d (%d ran more than once); readiness: %s; part-a handled %v, part-b handled %v",
		victim.cluster.Name, mode, leader, consumerLeader, cutFor, lost, worst.Round(time.Millisecond), strings.Join(parts, "; "), most, len(repeated), readiness, a.handled(), b.handled())
	if dir := os.Getenv("PARTITION_KEEP_LOGS"); dir != "" {
		for _, w := range []*workerProc{a, b} {
			_ = os.WriteFile(dir+"/"+w.name+".log", []byte(readFile(w.logs)), 0o644)
		}
		t.Logf("cut at %s, healed at %s", cutAt.UTC().Format(time.RFC3339Nano), healAt.UTC().Format(time.RFC3339Nano))
	}
	for _, o := range outcomes {
		if len(o.failed) > 0 {
			var ids []string
			for _, f := range o.failed {
				if m := requestIDIn.FindStringSubmatch(f); m != nil {
					ids = append(ids, m[1])
				}
			}
			t.Errorf("%s callers: %d of %d calls failed through the partition: %v\n%s", o.name, len(o.failed), o.calls, o.failed, trailOf(ids, a, b))
		}
		if o.worst > bound {
			t.Errorf("%s callers: a call waited %s after the cut, want at most %s", o.name, o.worst.Round(time.Millisecond), bound)
			if o.worstID != "" {
				t.Logf("the slowest, %s, in the workers' logs:\n%s", o.worstID, trailOf([]string{o.worstID}, a, b))
			}
		}
	}
	if most > 1 {
		t.Errorf("requests executed more than once through the partition: %v\n%s", repeated, trailOf(repeated, a, b))
	}
	for _, lie := range lies {
		t.Error(lie)
	}
}

// requestIDIn finds the request_id a client's error names.
var requestIDIn = regexp.MustCompile(`request_id "([^"]+)"`)

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// leadOn makes server the leader of WORKER_REQUESTS (a step-down with it preferred), so that the cut
// takes the stream's leader away from the clients' side; it returns the leader it got.
func leadOn(t *testing.T, nc *nats.Conn, js jetstream.JetStream, server string) string {
	t.Helper()
	return groupLeadOn(t, nc, server, "WORKER_REQUESTS", "$JS.API.STREAM.LEADER.STEPDOWN.WORKER_REQUESTS", func(ctx context.Context) (*jetstream.ClusterInfo, error) {
		s, err := js.Stream(ctx, "WORKER_REQUESTS")
		if err != nil {
			return nil, err
		}
		return s.CachedInfo().Cluster, nil
	})
}

// consumerLeadOn makes server the leader of the worker's get_artifact consumer too: a leader cut off
// with its clients keeps answering their reads (consumer info) until it steps down for lost quorum,
// 10-20 s later, the worst case for a client that proves its server by such a read.
func consumerLeadOn(t *testing.T, nc *nats.Conn, js jetstream.JetStream, server string) string {
	t.Helper()
	name := contracts.ConsumerName(contracts.SubjectGetArtifact)
	return groupLeadOn(t, nc, server, name, "$JS.API.CONSUMER.LEADER.STEPDOWN.WORKER_REQUESTS."+name, func(ctx context.Context) (*jetstream.ClusterInfo, error) {
		c, err := js.Consumer(ctx, "WORKER_REQUESTS", name)
		if err != nil {
			return nil, err
		}
		return c.CachedInfo().Cluster, nil
	})
}

// groupLeadOn asks the raft group named name to step down (stepDown, the JetStream API subject) with
// server preferred until info says server leads it, for 20 s at most; it returns the leader it got.
func groupLeadOn(t *testing.T, nc *nats.Conn, server, name, stepDown string, info func(context.Context) (*jetstream.ClusterInfo, error)) string {
	t.Helper()
	leader := ""
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		ci, err := info(ctx)
		cancel()
		if err != nil || ci == nil {
			continue
		}
		if leader = ci.Leader; leader == server {
			return leader
		}
		_, _ = nc.Request(stepDown, []byte(`{"placement":{"preferred":"`+server+`"}}`), 2*time.Second)
	}
	t.Logf("%s is led by %s, not %s, after 20 s of step-downs: the cut leaves its leader on the healthy side", name, leader, server)
	return leader
}

// partitionCallersGo starts 8 callers using the Go client on a connection to server (the others
// listed after it), each calling get_artifact in a loop with a 30 s deadline; the function it
// returns stops them and returns every call's timing and when the connection reconnected.
func partitionCallersGo(t *testing.T, e *env, server *natsProc) func() ([]timing, []time.Time) {
	t.Helper()
	var moves struct {
		sync.Mutex
		at []time.Time
	}
	nc, err := nats.Connect(serverFirst(e, server), nats.DontRandomize(), nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { moves.Lock(); moves.at = append(moves.at, time.Now()); moves.Unlock() }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	c, err := client.New(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	var (
		stop  atomic.Bool
		mu    sync.Mutex
		calls []timing
		wg    sync.WaitGroup
	)
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				start := time.Now()
				err := c.Call(ctx, contracts.SubjectGetArtifact, contracts.GetArtifactRequest{
					RequestID: fmt.Sprintf("go-%s-%d-%d", e.bucket, p, i), Ref: "artifact:doc", ServiceID: "text-model"}, nil)
				cancel()
				c := timing{start: start, end: time.Now(), id: fmt.Sprintf("go-%s-%d-%d", e.bucket, p, i)}
				if err != nil {
					c.err = err.Error()
				}
				mu.Lock()
				calls = append(calls, c)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	waitFor(t, 30*time.Second, "the first Go client calls", func() bool { mu.Lock(); defer mu.Unlock(); return len(calls) >= 40 })
	return func() ([]timing, []time.Time) {
		stop.Store(true)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		moves.Lock()
		defer moves.Unlock()
		return calls, moves.at
	}
}

// reportTimings is a caller script's report as timings: each call's start and end (milliseconds
// since the epoch), its failures apart (they carry no time).
func reportTimings(r failoverReport) []timing {
	out := make([]timing, 0, len(r.Timings)+len(r.Failed))
	for _, c := range r.Timings {
		out = append(out, timing{start: time.UnixMilli(int64(c[0])), end: time.UnixMilli(int64(c[1]))})
	}
	for _, f := range r.Failed {
		out = append(out, timing{err: f, start: time.Now(), end: time.Now()})
	}
	return out
}

// readySample is one look at a worker's /readyz.
type readySample struct {
	worker string
	at     time.Time // when the look was sent
	done   time.Time // when its answer came (or the look failed)
	code   int       // 0: no answer
}

type readinessWatch struct {
	stopped atomic.Bool
	wg      sync.WaitGroup
	mu      sync.Mutex
	samples []readySample
}

// watchReadiness looks at each worker's /readyz every 100 ms until stop.
func watchReadiness(workers ...*workerProc) *readinessWatch {
	r := &readinessWatch{}
	hc := &http.Client{Timeout: time.Second}
	for _, w := range workers {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for !r.stopped.Load() {
				s := readySample{worker: w.name, at: time.Now()}
				if resp, err := hc.Get("http://" + w.http + "/readyz"); err == nil {
					resp.Body.Close()
					s.code = resp.StatusCode
				}
				s.done = time.Now()
				r.mu.Lock()
				r.samples = append(r.samples, s)
				r.mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	return r
}

func (r *readinessWatch) stop() []readySample {
	r.stopped.Store(true)
	r.wg.Wait()
	return r.samples
}

// readinessFigures describes each worker's /readyz through the partition against when its
// connections moved (its log's "nats reconnected" lines after the cut), and returns what it got
// wrong: ready while it was still on the cut-off server more than 4 s after the cut (a probe's 2 s
// timeout, a second of unanswered probes, the next look), never not ready there, or not ready again before
// the heal once it moved (on the side with the quorum: how soon depends on the leaders the
// cluster elects there, so no bound is asserted).
func readinessFigures(t *testing.T, samples []readySample, cutAt, healAt time.Time, workers ...*workerProc) (string, []string) {
	t.Helper()
	var figs, lies []string
	for _, w := range workers {
		moved := movedAt(w, cutAt, healAt)
		var notReady []time.Duration
		readyAgain := time.Duration(-1)
		var wrong []string
		for _, s := range samples {
			if s.worker != w.name || s.at.Before(cutAt) || s.at.After(healAt) {
				continue
			}
			since := s.at.Sub(cutAt)
			onCutSide := moved.IsZero() || s.at.Before(moved)
			if s.code != http.StatusOK {
				notReady = append(notReady, since)
			}
			// A 200 is a lie when its answer came before the move: the worker logs its reconnect
			// only after it happened (a look answered then may already see the new server), so
			// one answered within moveLogLag of the logged move is not counted.
			if s.code == http.StatusOK && since > 4*time.Second && (moved.IsZero() || s.done.Before(moved.Add(-moveLogLag))) {
				wrong = append(wrong, fmt.Sprintf("%s /readyz 200 at %+.1fs, on the cut-off server", w.name, since.Seconds()))
			}
			if !onCutSide && s.code == http.StatusOK && readyAgain < 0 {
				readyAgain = since
			}
		}
		fig := fmt.Sprintf("%s not ready in %d of the looks", w.name, len(notReady))
		if len(notReady) > 0 {
			fig += fmt.Sprintf(" (from %+.1fs to %+.1fs)", notReady[0].Seconds(), notReady[len(notReady)-1].Seconds())
		}
		if moved.IsZero() {
			fig += ", never moved"
			lies = append(lies, fmt.Sprintf("%s never moved off the cut-off server", w.name))
		} else {
			fig += fmt.Sprintf(", moved at %+.1fs, ready again at %+.1fs", moved.Sub(cutAt).Seconds(), readyAgain.Seconds())
			if len(notReady) == 0 || notReady[0] > moved.Sub(cutAt) {
				lies = append(lies, fmt.Sprintf("%s /readyz never said 503 before it moved off the cut-off server (at %+.1fs)", w.name, moved.Sub(cutAt).Seconds()))
			}
			if readyAgain < 0 {
				lies = append(lies, fmt.Sprintf("%s /readyz not 200 again before the heal, after its move to a server with the quorum at %+.1fs", w.name, moved.Sub(cutAt).Seconds()))
			}
		}
		figs = append(figs, fig)
		lies = append(lies, wrong...)
	}
	return strings.Join(figs, ", "), lies
}

// moveLogLag bounds how long after a connection reconnected the worker's log line says so (nats.go
// calls the reconnect handler from its own goroutine, after the connection is up).
const moveLogLag = 250 * time.Millisecond

// movedAt is when the last of w's connections reconnected between the cut and the heal (zero if
// none did): both its connections are then off the cut-off server.
func movedAt(w *workerProc, cutAt, healAt time.Time) time.Time {
	last := map[string]time.Time{}
	for _, line := range strings.Split(readFile(w.logs), "\n") {
		var l struct {
			Time       time.Time `json:"time"`
			Msg        string    `json:"msg"`
			Connection string    `json:"connection"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "nats reconnected" && l.Time.After(cutAt) && l.Time.Before(healAt) {
			last[l.Connection] = l.Time
		}
	}
	if len(last) < 2 {
		return time.Time{}
	}
	times := make([]time.Time, 0, len(last))
	for _, at := range last {
		times = append(times, at)
	}
	return slices.MaxFunc(times, func(a, b time.Time) int { return a.Compare(b) })
}
