package integration

import (
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
	go func() {
		time.Sleep(3 * time.Second)
		n.start()
	}()
	w := e.startWorker(t, "early")
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
