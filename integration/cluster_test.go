package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
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
	"github.com/agentworks/artifact-worker/workspace"
)

// startCluster runs n nats-server processes on loopback, routed to each other into one JetStream
// cluster, and waits until JetStream answers (a meta leader is elected).
func startCluster(t *testing.T, n int) []*natsProc {
	t.Helper()
	nodes := launchCluster(t, n)
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
	return nodes
}

// launchCluster starts the n servers of startCluster, each accepting connections, without waiting
// for JetStream.
func launchCluster(t *testing.T, n int) []*natsProc {
	t.Helper()
	nodes := make([]*natsProc, n)
	routes := make([]string, n)
	for i := range nodes {
		nodes[i] = &natsProc{t: t, port: freePort(t), store: t.TempDir(),
			cluster: natstest.Cluster{Name: fmt.Sprintf("n%d", i+1), ClusterName: "it", Port: freePort(t), HTTPPort: freePort(t)}}
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", nodes[i].cluster.Port)
	}
	for _, node := range nodes {
		node.cluster.Routes = routes
		node.start()
		t.Cleanup(node.stop)
	}
	return nodes
}

// Three replicas started together on a new 3-node cluster (before it has elected a JetStream meta
// leader), and three more right after the whole cluster restarted, all become ready with R3: the
// topology (streams, consumers, buckets) is created or updated idempotently and retried within the
// start-up wait, and consumers not yet bindable are bound with back-off. Five tries, each on a new
// cluster, side by side (each has its own servers, ports, bucket and folders; the test waits on
// elections and back-off far more than it computes).
func TestReplicasStartTogetherOnAFreshAndARestartedCluster(t *testing.T) {
	for try := range 5 {
		t.Run(fmt.Sprintf("try %d", try+1), func(t *testing.T) {
			t.Parallel()
			nodes := launchCluster(t, 3)
			e := &env{cluster: nodes, bucket: "it-" + randomHex(5), dir: t.TempDir(), extra: []string{"JETSTREAM_REPLICAS=3"}}
			seedRegistry(t, e)
			together := func(phase string) time.Duration {
				start := time.Now()
				ws := make([]*workerProc, 3)
				for i := range ws {
					ws[i] = e.spawnWorker(t, fmt.Sprintf("%s-%d", phase, i+1))
				}
				errs := make(chan error, len(ws))
				for _, w := range ws {
					go func() { errs <- w.waitReady(90 * time.Second) }()
				}
				for range ws {
					if err := <-errs; err != nil {
						t.Fatalf("%s cluster: %v", phase, err)
					}
				}
				took := time.Since(start)
				for _, w := range ws {
					w.kill()
				}
				return took
			}
			fresh := together("fresh")
			for _, n := range nodes {
				n.stop()
			}
			for _, n := range nodes {
				n.start()
			}
			restarted := together("restarted")
			t.Logf("FIGURES 3 replicas started together: all ready %s after their start on a fresh cluster, %s right after a cluster restart",
				fresh.Round(time.Millisecond), restarted.Round(time.Millisecond))
		})
	}
}

// replicated reports nil when every stream and every consumer of WORKER_REQUESTS has a leader and
// all its replicas online and current: the cluster can lose any one server. A JetStream API request
// made while there is no leader gets no answer: each poll has its own short deadline.
func replicated(js jetstream.JetStream, want int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	names := js.StreamNames(ctx)
	n := 0
	for name := range names.Name() {
		n++
		s, err := js.Stream(ctx, name)
		if err != nil {
			return err
		}
		info := s.CachedInfo()
		if info.Config.Replicas != want {
			return fmt.Errorf("stream %s has %d replicas, want %d", name, info.Config.Replicas, want)
		}
		if err := current("stream "+name, info.Cluster, want); err != nil {
			return err
		}
		if name != "WORKER_REQUESTS" {
			continue
		}
		for ci := range s.ListConsumers(ctx).Info() {
			if ci.Config.Replicas != want {
				return fmt.Errorf("consumer %s has %d replicas, want %d", ci.Name, ci.Config.Replicas, want)
			}
			if err := current("consumer "+ci.Name, ci.Cluster, want); err != nil {
				return err
			}
		}
	}
	if err := names.Err(); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("no streams")
	}
	return nil
}

// healthy reports whether the server's /healthz answers 200: it is up and every JetStream stream
// and consumer it holds a replica of is current (what a NATS rolling restart waits for).
func (n *natsProc) healthy() bool {
	resp, err := http.Get("http://" + n.addr(n.cluster.HTTPPort) + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func current(what string, c *jetstream.ClusterInfo, want int) error {
	if c == nil || c.Leader == "" {
		return fmt.Errorf("%s has no leader", what)
	}
	if len(c.Replicas) != want-1 {
		return fmt.Errorf("%s has %d followers, want %d", what, len(c.Replicas), want-1)
	}
	for _, r := range c.Replicas {
		if !r.Current || r.Offline {
			return fmt.Errorf("%s: replica %s is not current", what, r.Name)
		}
	}
	return nil
}

// fileWritten publishes one workspace.file_written event for file, with the request id as its
// message id.
func fileWritten(l *load, id, file string) {
	content := "written by " + id
	l.send(contracts.SubjectFileWritten, id, contracts.FileWrittenRequest{RequestID: id, WorkspaceID: "team", Path: file,
		MimeType: "text/markdown", AgentID: "agent-load", MessageID: id, Content: &content})
}

// The worker on a 3-node JetStream cluster with JETSTREAM_REPLICAS=3 and two replicas: the server
// leading WORKER_REQUESTS is killed under load, then every server is restarted in turn. No request is
// lost, redelivered file_written events are recorded once, and workspace metadata written before the
// kill is intact.
func TestClusterLeaderKilledAndRollingRestart(t *testing.T) {
	nodes := startCluster(t, 3)
	e := &env{cluster: nodes, bucket: "it-" + randomHex(5), dir: t.TempDir(), extra: []string{"JETSTREAM_REPLICAS=3", "ACK_WAIT=5s", "CONCURRENCY=8"}}
	seedRegistry(t, e)
	seed(t, e)
	a := e.startWorker(t, "cluster-a")
	b := e.startWorker(t, "cluster-b")
	byName := map[string]*natsProc{}
	for _, n := range nodes {
		byName[n.cluster.Name] = n
	}

	nc, err := nats.Connect(e.natsURL(), nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	waitFor(t, 30*time.Second, "every stream and consumer on 3 current replicas", func() bool { return replicated(js, 3) == nil })

	// Workspace metadata written before the kill.
	c, err := client.New(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]contracts.ArtifactInfo{}
	for i := range 10 {
		path := fmt.Sprintf("before/f%02d.md", i)
		content := fmt.Sprintf("file %d", i)
		req := contracts.FileWrittenRequest{RequestID: fmt.Sprintf("before-%s-%02d", e.bucket, i), WorkspaceID: "team", Path: path,
			MimeType: "text/markdown", AgentID: "agent-before", MessageID: fmt.Sprintf("m-%02d", i), Content: &content}
		if err := c.Call(ctx, contracts.SubjectFileWritten, req, nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		id, _ := workspace.EncodeID("team", path)
		var info contracts.ArtifactInfo
		if err := c.Call(ctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "meta-before-" + id, ID: id}, &info); err != nil {
			t.Fatal(err)
		}
		before[id] = info
	}

	// 1,000 requests, 100 of them file_written events on 10 files; the stream leader is killed once
	// a third is answered.
	l := newLoad(t, e.natsURL())
	const files, perFile = 10, 10
	written := map[string][]string{} // path -> request ids
	go func() {
		done := make(chan struct{})
		for p := range 8 {
			go func() {
				for i := p; i < requests; i += 8 {
					if i%10 == 0 {
						id := fmt.Sprintf("%s-fw-%04d", l.prefix[len("replies."):], i)
						fileWritten(l, id, fmt.Sprintf("load/f%02d.md", (i/10)%files))
					} else {
						getArtifact(l, i)
					}
				}
				done <- struct{}{}
			}()
		}
		for range 8 {
			<-done
		}
	}()
	for i := 0; i < requests; i += 10 {
		path := fmt.Sprintf("load/f%02d.md", (i/10)%files)
		written[path] = append(written[path], fmt.Sprintf("%s-fw-%04d", l.prefix[len("replies."):], i))
	}
	waitFor(t, 90*time.Second, "a third of the replies", func() bool { return l.answered() >= requests/3 })
	s, err := js.Stream(ctx, "WORKER_REQUESTS")
	if err != nil {
		t.Fatal(err)
	}
	leader := s.CachedInfo().Cluster.Leader
	callerOn := l.nc.ConnectedServerName()
	// Callers using the Go client, connected to the server about to die: their calls ride out the
	// kill (stored again under the same request_id, asked again after their reconnect).
	goCalls := callThroughFailover(t, e, byName[leader])
	jsCalls := callThroughFailoverJS(t, e, byName[leader])     // the same with the JavaScript client
	pyCalls := callThroughFailoverPython(t, e, byName[leader]) // and with the Python client
	killedAt := time.Now()
	byName[leader].kill()
	waitFor(t, 90*time.Second, "all requests sent", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.sent) == requests })
	fKill, againKill := settle(t, l, a, b)
	calls, failed := goCalls()
	t.Logf("FIGURES Go client through the leader kill: %d calls from 8 callers on the killed server, %d errors reached a caller", calls, len(failed))
	if len(failed) != 0 || calls == 0 {
		t.Errorf("Go client calls through the leader kill: %d of %d failed: %v", len(failed), calls, failed)
	}
	if jsCalls != nil {
		r := jsCalls()
		t.Logf("FIGURES JavaScript client through the leader kill: %d calls from 8 callers on the killed server, %d errors reached a caller, %d reconnects", r.Calls, len(r.Failed), r.Reconnects)
		if len(r.Failed) != 0 || r.Calls == 0 || r.Reconnects == 0 {
			t.Errorf("JavaScript client calls through the leader kill: %d of %d failed (%d reconnects): %v", len(r.Failed), r.Calls, r.Reconnects, r.Failed)
		}
	}
	if pyCalls != nil {
		r := pyCalls()
		t.Logf("FIGURES Python client through the leader kill: %d calls from 8 callers on the killed server (half JetStream, half plain request/reply), %d errors reached a caller, %d reconnects; %s", r.Calls, len(r.Failed), r.Reconnects, r.NATS)
		if len(r.Failed) != 0 || r.Calls == 0 || r.Reconnects == 0 {
			t.Errorf("Python client calls through the leader kill: %d of %d failed (%d reconnects): %v", len(r.Failed), r.Calls, r.Reconnects, r.Failed)
		}
	}
	again := askedAgain(t, js, "go-"+e.bucket, "js-"+e.bucket, "py-"+e.bucket)
	t.Logf("FIGURES client calls asked again through the leader kill (after a reconnect, or a reply 5 s overdue): Go %d, JavaScript %d, Python %d",
		again["go-"+e.bucket], again["js-"+e.bucket], again["py-"+e.bucket])
	newLeader := ""
	waitFor(t, 30*time.Second, "a new stream leader", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		info, err := s.Info(ctx)
		if err == nil && info.Cluster != nil {
			newLeader = info.Cluster.Leader
		}
		return newLeader != ""
	})
	most, repeated := executions(a, b)
	t.Logf("FIGURES cluster leader %s killed mid-load (new leader %s, caller on %s): %s; replies lost in transit and asked again=%d; answered %s after the kill; executions per request_id at most %d (%d ran more than once); cluster-a handled %v, cluster-b handled %v",
		leader, newLeader, callerOn, fKill, againKill, time.Since(killedAt).Round(time.Millisecond), most, len(repeated), a.handled(), b.handled())
	requireOneExecution(t, "the leader kill", repeated, a, b)
	if fKill.Lost != 0 || fKill.Answered != requests {
		t.Fatalf("requests lost after the leader's server was killed: %s\n%s", fKill, lostTrail(l, a, b))
	}
	checkAllOK(t, l)
	byName[leader].start()
	waitFor(t, 60*time.Second, "the killed server caught up", func() bool { return byName[leader].healthy() && replicated(js, 3) == nil })

	// Rolling restart: each server in turn, under a steady trickle of requests.
	var stop atomic.Bool
	trickle := make(chan struct{})
	go func() {
		defer close(trickle)
		for i := requests; !stop.Load(); i++ {
			getArtifact(l, i)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	rollStart := time.Now()
	for _, n := range nodes {
		n.stop()
		n.start()
		served := l.answered()
		waitFor(t, 60*time.Second, n.cluster.Name+" caught up after its restart", func() bool { return n.healthy() && replicated(js, 3) == nil })
		waitFor(t, 60*time.Second, "requests answered after restarting "+n.cluster.Name, func() bool { return l.answered() >= served+10 })
	}
	roll := time.Since(rollStart)
	stop.Store(true)
	<-trickle
	fRoll, againRoll := settle(t, l, a, b)
	most, repeated = executions(a, b)
	t.Logf("FIGURES cluster rolling restart of 3 servers in %s: %s (all requests since the start); replies lost in transit and asked again=%d; executions per request_id at most %d (%d ran more than once); cluster-a handled %v, cluster-b handled %v",
		roll.Round(time.Millisecond), fRoll, againRoll, most, len(repeated), a.handled(), b.handled())
	requireOneExecution(t, "the rolling restart", repeated, a, b)
	if fRoll.Lost != 0 || fRoll.Answered != fRoll.Sent {
		t.Fatalf("requests lost in the rolling restart: %s\n%s", fRoll, lostTrail(l, a, b))
	}
	checkAllOK(t, l)

	// Each file_written event recorded exactly once, whatever its deliveries.
	for path, ids := range written {
		id, _ := workspace.EncodeID("team", path)
		var info contracts.ArtifactInfo
		if err := c.Call(ctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "meta-after-" + randomHex(4), ID: id}, &info); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, m := range info.Meta.ModifiedBy {
			got[m.MessageID]++
		}
		if len(info.Meta.ModifiedBy) != len(ids) {
			t.Errorf("%s: %d modifiedBy entries, want %d (one per event)", path, len(info.Meta.ModifiedBy), len(ids))
		}
		for _, rid := range ids {
			if got[rid] != 1 {
				t.Errorf("%s: event %s recorded %d times, want once", path, rid, got[rid])
			}
		}
	}
	// Metadata written before the kill is intact.
	for id, want := range before {
		var info contracts.ArtifactInfo
		if err := c.Call(ctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "meta-final-" + randomHex(4), ID: id}, &info); err != nil {
			t.Fatalf("%s after the kill and the rolling restart: %v", id, err)
		}
		if !reflect.DeepEqual(info.Meta, want.Meta) {
			t.Errorf("%s changed:\n got %+v\nwant %+v", id, info.Meta, want.Meta)
		}
	}
}

// callThroughFailover starts 8 callers using the Go client on a connection to server (the others
// listed for its reconnect), each calling get_artifact in a loop with a 30 s deadline, and returns a
// function that stops them (after 10 s more) and reports the calls made and the errors that reached
// a caller.
func callThroughFailover(t *testing.T, e *env, server *natsProc) func() (int, []error) {
	t.Helper()
	urls := []string{server.URL()}
	for _, n := range e.cluster {
		if n != server {
			urls = append(urls, n.URL())
		}
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.DontRandomize(), nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	c, err := client.New(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	var (
		stop   atomic.Bool
		mu     sync.Mutex
		calls  int
		failed []error
		wg     sync.WaitGroup
	)
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				err := c.Call(ctx, contracts.SubjectGetArtifact, contracts.GetArtifactRequest{
					RequestID: fmt.Sprintf("go-%s-%d-%d", e.bucket, p, i), Ref: "artifact:doc", ServiceID: "text-model"}, nil)
				cancel()
				mu.Lock()
				calls++
				if err != nil {
					failed = append(failed, err)
				}
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	waitFor(t, 30*time.Second, "the first Go client calls", func() bool { mu.Lock(); defer mu.Unlock(); return calls >= 40 })
	return func() (int, []error) {
		time.Sleep(10 * time.Second)
		stop.Store(true)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return calls, failed
	}
}

// askedAgain counts, per request_id prefix, the get_artifact requests the stream holds that a
// client asked again (Nats-Msg-Id "<request_id>.again-<n>"), reading their headers only.
func askedAgain(t *testing.T, js jetstream.JetStream, prefixes ...string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// An ephemeral consumer of one replica, deleted at once after (the caught-up check that follows
	// wants every consumer on 3 replicas), its inactivity threshold the safety net.
	cons, err := js.CreateConsumer(ctx, "WORKER_REQUESTS", jetstream.ConsumerConfig{
		FilterSubject: contracts.SubjectGetArtifact, HeadersOnly: true, AckPolicy: jetstream.AckNonePolicy,
		MemoryStorage: true, Replicas: 1, InactiveThreshold: 5 * time.Second})
	if err != nil {
		t.Fatalf("count the requests asked again: %v", err)
	}
	defer func() {
		if err := js.DeleteConsumer(context.Background(), "WORKER_REQUESTS", cons.CachedInfo().Name); err != nil {
			t.Logf("delete the counting consumer: %v (it goes after 5 s idle)", err)
		}
	}()
	counts := map[string]int{}
	for {
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatalf("count the requests asked again: %v", err)
		}
		if info.NumPending == 0 {
			return counts
		}
		batch, err := cons.Fetch(1000, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatalf("count the requests asked again: %v", err)
		}
		for m := range batch.Messages() {
			id := m.Headers().Get(contracts.HeaderMsgID)
			for _, p := range prefixes {
				if strings.HasPrefix(id, p) && strings.Contains(id, ".again-") {
					counts[p]++
				}
			}
		}
		if err := batch.Error(); err != nil {
			t.Fatalf("count the requests asked again: %v", err)
		}
	}
}

// settle waits for every reply. A reply is core NATS: one in flight when the caller's server or the
// replying worker's server dies is lost although its request was handled. The caller then asks again
// (same request_id, new Nats-Msg-Id), once, for each request a worker logged as answered; a request
// no worker answered is not asked again and stays lost.
func settle(t *testing.T, l *load, workers ...*workerProc) (figures, int) {
	t.Helper()
	f := l.waitAll(30 * time.Second)
	if f.Lost == 0 {
		return f, 0
	}
	answered := map[string]bool{}
	for _, w := range workers {
		for _, line := range strings.Split(readFile(w.logs), "\n") {
			var rec struct {
				Msg       string `json:"msg"`
				Outcome   string `json:"outcome"`
				RequestID string `json:"request_id"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "request" && rec.Outcome == "ok" {
				answered[rec.RequestID] = true
			}
		}
	}
	again := 0
	l.mu.Lock()
	var lost []string
	for _, id := range l.sent {
		if len(l.replies[id]) == 0 && answered[id] {
			lost = append(lost, id)
		}
	}
	l.mu.Unlock()
	for _, id := range lost {
		l.askAgain(id)
		again++
	}
	return l.waitAll(60 * time.Second), again
}

// lostTrail returns the log lines the workers wrote about each unanswered request.
func lostTrail(l *load, workers ...*workerProc) string {
	l.mu.Lock()
	var lost []string
	for _, id := range l.sent {
		if len(l.replies[id]) == 0 {
			lost = append(lost, id)
		}
	}
	l.mu.Unlock()
	var b strings.Builder
	for _, id := range lost {
		fmt.Fprintf(&b, "unanswered %s:\n", id)
		for _, w := range workers {
			for _, line := range strings.Split(readFile(w.logs), "\n") {
				if strings.Contains(line, id) {
					fmt.Fprintf(&b, "  %s: %s\n", w.name, line)
				}
			}
		}
	}
	return b.String()
}
