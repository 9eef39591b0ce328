package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
)

const requests = 1000

func getArtifact(l *load, i int) {
	id := fmt.Sprintf("%s-%04d", l.prefix[len("replies."):], i)
	l.send(contracts.SubjectGetArtifact, id, contracts.GetArtifactRequest{RequestID: id, Ref: "artifact:doc", ServiceID: "text-model"})
}

func seed(t *testing.T, e *env) {
	putObject(t, e, "artifacts/doc", "text/plain", []byte("integration test artifact"))
}

// sendAll publishes n get_artifact requests from 8 publishers.
func sendAll(l *load, n int) {
	done := make(chan struct{})
	for p := range 8 {
		go func() {
			for i := p; i < n; i += 8 {
				getArtifact(l, i)
			}
			done <- struct{}{}
		}()
	}
	for range 8 {
		<-done
	}
}

func checkAllOK(t *testing.T, l *load) {
	t.Helper()
	for _, id := range l.sent {
		for _, r := range l.reply(id) {
			if !r.OK {
				t.Fatalf("%s answered with an error: %+v", id, r.Error)
			}
		}
	}
}

func TestTwoReplicasShareTheWork(t *testing.T) {
	e := newEnv(t)
	seed(t, e)
	a := e.startWorker(t, "replica-a")
	b := e.startWorker(t, "replica-b")
	l := newLoad(t, e.nats.URL())
	sendAll(l, requests)
	f := l.waitAll(60 * time.Second)
	t.Logf("FIGURES two replicas: %s; replica-a handled %v, replica-b handled %v", f, a.handled(), b.handled())
	if f.Lost != 0 || f.Duplicated != 0 || f.Answered != requests {
		t.Fatalf("every request must be answered exactly once: %s", f)
	}
	checkAllOK(t, l)
	if a.handled()["ok"] == 0 || b.handled()["ok"] == 0 {
		t.Fatalf("both replicas must do some of the work: a=%v b=%v", a.handled(), b.handled())
	}
}

// A replica SIGKILLed mid-load, with the default settings: nothing is lost, and the requests it held
// (its victims, answered by the survivor on a later delivery) are answered within about ACK_WAIT
// (10 s) of the kill, since the dead replica's in-progress heartbeats stop.
func TestReplicaKilledMidLoadLosesNothing(t *testing.T) {
	e := newEnv(t)
	seed(t, e)
	a := e.startWorker(t, "victim")
	b := e.startWorker(t, "survivor")
	l := newLoad(t, e.nats.URL())
	go sendAll(l, requests)
	waitFor(t, 60*time.Second, "a third of the replies", func() bool { return l.answered() >= requests/3 })
	a.signal(syscall.SIGKILL)
	killed := time.Now()
	code, _ := a.wait(10 * time.Second)
	waitFor(t, 60*time.Second, "all requests sent", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.sent) == requests })
	f := l.waitAll(90 * time.Second)
	// Victims: requests the survivor answered on a later delivery whose first reply came after the
	// kill (a request the victim answered but could not ack has its first reply before).
	var sinceKill, sinceSent []time.Duration
	l.mu.Lock()
	for _, id := range b.redelivered() {
		if at, ok := l.firstAt[id]; ok && at.After(killed) {
			sinceKill = append(sinceKill, at.Sub(killed))
			sinceSent = append(sinceSent, at.Sub(l.sentAt[id]))
		}
	}
	l.mu.Unlock()
	most, repeated := executions(a, b)
	t.Logf("FIGURES SIGKILL mid-load (default ACK_WAIT): %s; victim exit %d handled %v, survivor handled %v; %d victims answered by the survivor, time to answer after the kill %s, after the request %s; executions per request_id at most %d (%d ran more than once)",
		f, code, a.handled(), b.handled(), len(sinceKill), quantiles(sinceKill), quantiles(sinceSent), most, len(repeated))
	requireOneExecution(t, "the SIGKILL", repeated, a, b)
	if f.Lost != 0 || f.Answered != requests {
		t.Fatalf("requests lost after SIGKILL: %s", f)
	}
	checkAllOK(t, l)
	// A loose bound, not a timing target (the FIGURES carry the numbers): past the delivery's
	// deadline (3 x HANDLER_TIMEOUT, 60 s) means the victims waited for something other than ACK_WAIT.
	if len(sinceKill) > 0 && slices.Max(sinceKill) > 60*time.Second {
		t.Fatalf("a victim of the kill waited %s for its answer", slices.Max(sinceKill))
	}
}

// Long handlers, with the default settings: the storage freezes (MinIO SIGSTOPped) for longer than
// ACK_WAIT, so every request in flight works longer than ACK_WAIT; then one replica is SIGKILLed.
// The survivor's long requests are not redelivered (its heartbeats keep them: none is answered
// twice), and the killed replica's long requests are answered by the survivor about ACK_WAIT after
// the kill, not after their handlers' deadline.
func TestLongHandlersSurviveAckWaitAndAReplicaKill(t *testing.T) {
	e := newEnv(t)
	seed(t, e)
	victim := e.startWorker(t, "victim")
	survivor := e.startWorker(t, "survivor")
	l := newLoad(t, e.nats.URL())
	pid := minio.PID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	frozen := true
	t.Cleanup(func() {
		if frozen {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	for i := range 40 {
		getArtifact(l, i)
	}
	time.Sleep(12 * time.Second) // past ACK_WAIT (10 s), within HANDLER_TIMEOUT (20 s)
	victim.signal(syscall.SIGKILL)
	killed := time.Now()
	_, _ = victim.wait(10 * time.Second)
	time.Sleep(time.Second)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	frozen = false
	f := l.waitAll(60 * time.Second)
	var sinceKill []time.Duration
	l.mu.Lock()
	for _, id := range survivor.redelivered() {
		if at, ok := l.firstAt[id]; ok && at.After(killed) {
			sinceKill = append(sinceKill, at.Sub(killed))
		}
	}
	l.mu.Unlock()
	most, repeated := executions(victim, survivor)
	t.Logf("FIGURES long handlers (storage frozen 13 s, a replica SIGKILLed after 12 s): %s; survivor handled %v; %d of the killed replica's long requests answered by the survivor, time to answer after the kill %s; executions per request_id at most %d (%d ran more than once)",
		f, survivor.handled(), len(sinceKill), quantiles(sinceKill), most, len(repeated))
	requireOneExecution(t, "the storage freeze and the SIGKILL", repeated, victim, survivor)
	if f.Lost != 0 || f.Answered != 40 {
		t.Fatalf("requests lost: %s", f)
	}
	if f.Duplicated != 0 {
		t.Fatalf("requests answered twice: a long handler's request was redelivered while it worked: %s", f)
	}
	checkAllOK(t, l)
}

// quantiles formats the p50, p99 and max of ds.
func quantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "(none)"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))].Round(time.Millisecond) }
	return fmt.Sprintf("p50 %s p99 %s max %s", at(0.5), at(0.99), s[len(s)-1].Round(time.Millisecond))
}

func TestSIGTERMUnderLoadDrainsAndExitsZero(t *testing.T) {
	e := newEnv(t, "ACK_WAIT=10s", "DRAIN_TIMEOUT=10s")
	seed(t, e)
	a := e.startWorker(t, "draining")
	b := e.startWorker(t, "staying")
	l := newLoad(t, e.nats.URL())
	go sendAll(l, requests)
	waitFor(t, 60*time.Second, "a third of the replies", func() bool { return l.answered() >= requests/3 })
	a.signal(syscall.SIGTERM)
	code, err := a.wait(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "all requests sent", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.sent) == requests })
	f := l.waitAll(60 * time.Second)
	t.Logf("FIGURES SIGTERM under load: %s; drained replica exit %d handled %v, other handled %v", f, code, a.handled(), b.handled())
	if code != 0 {
		t.Fatalf("SIGTERM exit code %d, want 0\n%s", code, readFile(a.logs))
	}
	if f.Lost != 0 || f.Answered != requests {
		t.Fatalf("requests lost after SIGTERM: %s", f)
	}
	// A graceful drain finishes (answers and acks) what it started and hands back what it did not
	// start: no request is answered twice.
	if f.Duplicated != 0 {
		t.Fatalf("requests answered twice after SIGTERM: %s", f)
	}
	if !strings.Contains(readFile(a.logs), `"signal":"SIGTERM"`) {
		t.Errorf("the drained replica's shutdown log does not name SIGTERM")
	}
	checkAllOK(t, l)
}

// MinIO stopped under load (at least 10 s, and until a first request has exhausted MAX_DELIVER):
// requests are retried and answered once it is back; those that exhaust MAX_DELIVER get an
// unavailable error and reach the dead-letter stream. Nothing is lost.
func TestStorageOutageRetriesThenDeadLetters(t *testing.T) {
	e := newEnv(t, "MAX_DELIVER=3", "ACK_WAIT=15s")
	seed(t, e)
	w := e.startWorker(t, "worker")
	l := newLoad(t, e.nats.URL())
	for i := range 100 {
		getArtifact(l, i)
	}
	waitFor(t, 30*time.Second, "the first 100 replies", func() bool { return l.answered() == 100 })
	if err := minio.Stop(); err != nil {
		t.Fatal(err)
	}
	outage := time.Now()
	i := 100
	for time.Since(outage) < 10*time.Second || (countDeadLetters(t, l) == 0 && time.Since(outage) < 60*time.Second) {
		getArtifact(l, i)
		i++
		time.Sleep(50 * time.Millisecond)
	}
	down := time.Since(outage).Round(100 * time.Millisecond)
	if err := minio.Restart(); err != nil {
		t.Fatal(err)
	}
	for j := range 100 {
		getArtifact(l, i+j)
	}
	f := l.waitAll(120 * time.Second)
	retried := w.retried()
	var ok, retriedOK, unavailable, other int
	for _, id := range l.sent[100 : len(l.sent)-100] {
		for _, r := range l.reply(id) {
			switch {
			case r.OK:
				ok++
				if retried[id] {
					retriedOK++
				}
			case r.Error.Code == contracts.CodeUnavailable:
				unavailable++
			default:
				other++
			}
		}
	}
	dead := countDeadLetters(t, l)
	t.Logf("FIGURES storage outage %s: %s; sent during outage=%d answered ok=%d (of which after failed deliveries=%d) unavailable after MAX_DELIVER=%d dead letters=%d; worker outcomes %v",
		down, f, len(l.sent)-200, ok, retriedOK, unavailable, dead, w.handled())
	if f.Lost != 0 || f.Duplicated != 0 {
		t.Fatalf("requests lost or answered twice during the outage: %s", f)
	}
	if retriedOK == 0 || unavailable == 0 || other != 0 {
		t.Fatalf("want requests retried to success and requests exhausted: ok after retries=%d unavailable=%d other=%d", retriedOK, unavailable, other)
	}
	if dead != unavailable {
		t.Fatalf("dead letters %d, want one per exhausted request (%d)", dead, unavailable)
	}
	for _, id := range append(l.sent[:100:100], l.sent[len(l.sent)-100:]...) {
		if r := l.reply(id); len(r) == 0 || !r[0].OK {
			t.Fatalf("request %s outside the outage failed: %+v", id, r)
		}
	}
}

func countDeadLetters(t *testing.T, l *load) int {
	ctx := context.Background()
	s, err := l.js.Stream(ctx, "WORKER_DEADLETTER")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(contracts.DeadLetterPrefix+contracts.SubjectGetArtifact))
	if err != nil {
		t.Fatal(err)
	}
	return int(info.State.Msgs)
}

func TestNATSRestartWorkerReconnects(t *testing.T) {
	e := newEnv(t)
	seed(t, e)
	w := e.startWorker(t, "worker")
	l := newLoad(t, e.nats.URL())
	for i := range 200 {
		getArtifact(l, i)
	}
	if f := l.waitAll(30 * time.Second); f.Lost != 0 {
		t.Fatalf("before restart: %s", f)
	}
	e.nats.stop()
	time.Sleep(2 * time.Second)
	e.nats.start()
	for i := 200; i < 400; i++ {
		getArtifact(l, i)
	}
	f := l.waitAll(60 * time.Second)
	t.Logf("FIGURES NATS restart: %s; worker handled %v", f, w.handled())
	if f.Lost != 0 {
		t.Fatalf("requests lost after a NATS restart: %s\n%s", f, readFile(w.logs))
	}
	checkAllOK(t, l)
}
