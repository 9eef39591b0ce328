package integration

import (
	"strings"
	"testing"
	"time"
)

// A worker that starts before its NATS server (pods scheduled together) waits for it and serves,
// without a restart.
func TestWorkerStartedBeforeNATSWaitsForIt(t *testing.T) {
	n := &natsProc{t: t, port: freePort(t), store: t.TempDir()}
	t.Cleanup(n.stop)
	e := &env{nats: n, bucket: "it-" + randomHex(5), dir: t.TempDir()}
	seedRegistry(t, e)
	natsUp := make(chan time.Time, 1)
	natsErr := make(chan error, 1)
	go func() {
		time.Sleep(3 * time.Second)
		err := n.startErr()
		natsUp <- time.Now()
		natsErr <- err
	}()
	w := e.startWorker(t, "early")
	ready := time.Now()
	if err := <-natsErr; err != nil {
		t.Fatal(err)
	}
	// It waited: it logged the wait for NATS and became ready only once NATS was up.
	if up := <-natsUp; ready.Before(up) {
		t.Fatalf("the worker was ready at %s, before NATS started at %s", ready.Format(time.StampMilli), up.Format(time.StampMilli))
	}
	if logs := readFile(w.logs); !strings.Contains(logs, `"msg":"waiting for a dependency"`) || !strings.Contains(logs, `"dependency":"nats"`) {
		t.Fatalf("the worker did not log that it waited for NATS:\n%s", logs)
	}
	seed(t, e)
	l := newLoad(t, e.nats.URL())
	for i := range 20 {
		getArtifact(l, i)
	}
	f := l.waitAll(30 * time.Second)
	t.Logf("FIGURES worker before NATS: %s; worker handled %v", f, w.handled())
	if f.Lost != 0 {
		t.Fatalf("requests lost: %s", f)
	}
	checkAllOK(t, l)
}
