package integration

import (
	"context"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/internal/testing/stallproxy"
)

// A handler that runs longer than 3 x ACK_WAIT (its storage stops answering: a proxy in front of
// MinIO, for this worker only, holds every byte) is kept by its worker's heartbeat: JetStream does
// not redeliver it, and a caller asking again meanwhile is not run but waits for it. When that worker
// is killed mid-run, the request is redelivered to the other worker, runs there once, and both asks
// are answered with that one execution's reply.
func TestLongHandlerKeptByItsHeartbeatThenItsWorkerKilled(t *testing.T) {
	const ackWait = 3 * time.Second // the least ACK_WAIT the worker takes
	e := newEnv(t, "ACK_WAIT=3s")
	seed(t, e)
	stall := stallproxy.Start(t, minio.Endpoint)
	slow := e.startWorker(t, "slow", "S3_ENDPOINT="+stall.Addr)
	l := newLoad(t, e.nats.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cons, err := l.js.Consumer(ctx, "WORKER_REQUESTS", "worker_tool_get_artifact")
	if err != nil {
		t.Fatal(err)
	}
	pending := func() (ackPending, redelivered int) {
		info, err := cons.Info(ctx)
		if err != nil {
			return -1, -1
		}
		return info.NumAckPending, info.NumRedelivered
	}
	stall.Hold()
	getArtifact(l, 0)
	id := l.sent[0]
	waitFor(t, 10*time.Second, "the slow worker took the request", func() bool { n, _ := pending(); return n == 1 })
	taken := time.Now()
	l.askAgain(id) // a caller asks again while it runs
	other := e.startWorker(t, "other")
	// Past 3 x ACK_WAIT: a request its heartbeat did not keep would have been redelivered by now,
	// to the other worker (ready for seconds), and the ask again would have run.
	time.Sleep(time.Until(taken.Add(3*ackWait + ackWait/2)))
	ran := time.Since(taken)
	acks, redelivered := pending()
	if redelivered != 0 || l.answered() != 0 {
		t.Fatalf("after %s of the long handler (ACK_WAIT %s): %d redelivered, %d answered; want none (its heartbeat keeps it)\n%s",
			ran.Round(time.Millisecond), ackWait, redelivered, l.answered(), trailOf([]string{id}, slow, other))
	}
	slow.kill()
	killed := time.Now()
	// Both asks answered: the request once it ran on the other worker, its ask again (held by either
	// worker, waiting; redelivered when it was the killed one's) with the same reply.
	waitFor(t, 30*time.Second, "both asks answered", func() bool { return len(l.reply(id)) >= 2 })
	f := l.waitAll(time.Second)
	after := time.Duration(0)
	l.mu.Lock()
	if at, ok := l.firstAt[id]; ok {
		after = at.Sub(killed)
	}
	l.mu.Unlock()
	most, repeated := executions(slow, other)
	t.Logf("FIGURES long handler (%s, over 3 x ACK_WAIT %s, asked again meanwhile): %d requests held, none redelivered before its worker was killed; after the kill %s, answered %s later; executions per request_id at most %d (%d ran more than once); other worker handled %v",
		ran.Round(time.Millisecond), ackWait, acks, f, after.Round(time.Millisecond), most, len(repeated), other.handled())
	if f.Lost != 0 || f.Answered != 1 || f.Duplicated != 1 {
		t.Fatalf("want the request and its ask again answered once each: %s\n%s", f, trailOf([]string{id}, slow, other))
	}
	if most != 1 {
		t.Fatalf("the request ran %d times, want once (by the other worker)\n%s", most, trailOf([]string{id}, slow, other))
	}
	reps := l.reply(id)
	if !reps[0].OK || string(reps[0].Result) != string(reps[1].Result) {
		t.Fatalf("replies %+v and %+v, want the one execution's reply twice", reps[0], reps[1])
	}
	if h := other.handled(); h["ok"] != 1 || h["replayed"] != 1 {
		t.Fatalf("the other worker handled %v, want one ok and one replayed", h)
	}
}
