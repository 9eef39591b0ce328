package gcpace

import (
	"runtime/debug"
	"testing"
)

// percent reads the collector's current GC percent.
func percent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestHoldTightensUntilTheLastRelease(t *testing.T) {
	if configured != 100 {
		t.Skipf("GOGC=%d in the environment; the test assumes the default", configured)
	}
	if got := percent(); got != 100 {
		t.Fatalf("GC percent before = %d, want 100", got)
	}
	small := Hold(Threshold - 1)
	if got := percent(); got != 100 || heldNow() != 0 {
		t.Fatalf("after a small hold: GC percent %d, held %d; want 100, 0", got, heldNow())
	}
	a := Hold(Threshold)
	b := Hold(20 << 20)
	if got := percent(); got != 12 || heldNow() != 2 {
		t.Fatalf("two large holds: GC percent %d, held %d; want 12, 2", got, heldNow())
	}
	a()
	a() // a second release of the same hold changes nothing
	if got := percent(); got != 12 || heldNow() != 1 {
		t.Fatalf("one large hold left: GC percent %d, held %d; want 12, 1", got, heldNow())
	}
	small()
	b()
	if got := percent(); got != 100 || heldNow() != 0 {
		t.Fatalf("all released: GC percent %d, held %d; want 100, 0", got, heldNow())
	}
}

func TestTight(t *testing.T) {
	for _, c := range []struct{ in, want int }{{100, 12}, {400, 50}, {40, 5}, {5, 5}, {3, 3}, {0, 0}} {
		if got := Tight(c.in); got != c.want {
			t.Errorf("Tight(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestGOGC(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{{"", 100}, {"off", -1}, {"50", 50}, {"x", 100}, {"-1", -1}, {"3000000000", 100}} {
		if got := gogc(c.in); got != c.want {
			t.Errorf("gogc(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
