package client

import (
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// replies is a client's one reply subscription, as nats.go's own request uses: a wildcard inbox
// "<inbox>.*" subscribed when the client is made, before its first request, each call's reply
// subject a token under it, and replies routed to their call by the token.
//
// A subscription per call would put the server's interest in the reply subject in flight with each
// request: in a cluster, a reply published on another server before the new interest reached it
// across the route (routes re-forming after a failover, a busy server) is dropped, and the call has
// to ask again. The one subscription's interest is everywhere long before the first reply.
type replies struct {
	prefix string // "<inbox>." ; reply subjects are prefix + token
	sub    *nats.Subscription

	mu    sync.Mutex
	calls map[string]chan *nats.Msg
}

// replyBuffer is how many replies one call keeps until it reads them: a call asked again may get
// the first reply late and the second one too.
const replyBuffer = 4

func newReplies(nc *nats.Conn) (*replies, error) {
	r := &replies{prefix: nc.NewInbox() + ".", calls: map[string]chan *nats.Msg{}}
	sub, err := nc.Subscribe(r.prefix+"*", r.route)
	if err != nil {
		return nil, fmt.Errorf("client: subscribe %s*: %w", r.prefix, err)
	}
	r.sub = sub
	return r, nil
}

// route hands a reply to the call waiting on its token; a reply nobody waits for (a call that
// returned, a second answer) is dropped.
func (r *replies) route(m *nats.Msg) {
	token := m.Subject[len(r.prefix):]
	r.mu.Lock()
	ch := r.calls[token]
	r.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- m:
	default:
	}
}

// open returns a new reply subject and the channel its replies arrive on; close it with done.
func (r *replies) open() (subject string, ch <-chan *nats.Msg, done func()) {
	token := nuid.Next()
	c := make(chan *nats.Msg, replyBuffer)
	r.mu.Lock()
	r.calls[token] = c
	r.mu.Unlock()
	return r.prefix + token, c, func() {
		r.mu.Lock()
		delete(r.calls, token)
		r.mu.Unlock()
	}
}
