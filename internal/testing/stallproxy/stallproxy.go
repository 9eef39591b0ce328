// Package stallproxy is a TCP proxy for tests that can stop forwarding: in front of a storage
// server, it makes the calls of one process hang without closing their connections, as a storage
// that stops answering does, so that its handlers run as long as a test wants.
package stallproxy

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards every connection made to Addr to an upstream address. While held it forwards
// nothing: what it reads waits until Release.
type Proxy struct {
	Addr string
	mu   sync.Mutex
	cond *sync.Cond
	held bool
}

// Start listens on a free loopback port and forwards to upstream until the test ends.
func Start(t testing.TB, upstream string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String()}
	p.cond = sync.NewCond(&p.mu)
	t.Cleanup(func() {
		ln.Close()
		p.Release()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				u, err := net.Dial("tcp", upstream)
				if err != nil {
					c.Close()
					return
				}
				go p.pipe(u, c)
				p.pipe(c, u)
			}()
		}
	}()
	return p
}

func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			for p.held {
				p.cond.Wait()
			}
			p.mu.Unlock()
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Hold stops forwarding.
func (p *Proxy) Hold() {
	p.mu.Lock()
	p.held = true
	p.mu.Unlock()
}

// Release forwards again, what waited first.
func (p *Proxy) Release() {
	p.mu.Lock()
	p.held = false
	p.mu.Unlock()
	p.cond.Broadcast()
}
