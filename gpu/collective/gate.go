package collective

import (
	"bytes"
	"net"
	"slices"
	"sync"
	"time"
)

// gate admits a listener's connections to authentication: at most
// maxPending at once, and at most maxPerSource from one address. A new
// connection past either limit takes the place of the oldest one still
// authenticating (of its own source, past the source's limit), which is
// closed: connections that never finish their handshake cannot keep a
// client that does out, and clients retry a connection closed under them.
// A connection younger than evictAge is not evicted (the newcomer is
// closed instead), so that a burst of honest clients, many ranks of one
// host joining at once, does not close handshakes about to finish.
type gate struct {
	mu sync.Mutex
	q  []*pendingConn // in arrival order
}

// evictAge is how long a connection authenticates before a newer one
// may take its place.
var evictAge = 100 * time.Millisecond

type pendingConn struct {
	conn  net.Conn
	src   string
	since time.Time
}

func sourceOf(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return c.RemoteAddr().String()
}

// admit adds c to the connections authenticating, or closes it and
// returns nil where no place is free.
func (g *gate) admit(c net.Conn) *pendingConn {
	p := &pendingConn{conn: c, src: sourceOf(c), since: time.Now()}
	g.mu.Lock()
	defer g.mu.Unlock()
	n, oldest := 0, -1
	for i, q := range g.q {
		if q.src == p.src {
			if oldest < 0 {
				oldest = i
			}
			n++
		}
	}
	victim := -1
	switch {
	case n >= maxPerSource:
		victim = oldest
	case len(g.q) >= maxPending:
		victim = 0
	}
	if victim >= 0 {
		if p.since.Sub(g.q[victim].since) < evictAge {
			c.Close()
			return nil
		}
		g.evict(victim)
	}
	g.q = append(g.q, p)
	return p
}

func (g *gate) evict(i int) {
	g.q[i].conn.Close()
	g.q = slices.Delete(g.q, i, i+1)
}

// leave removes p once its authentication ended; false if it was evicted
// (its connection is closed).
func (g *gate) leave(p *pendingConn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := slices.Index(g.q, p)
	if i < 0 {
		return false
	}
	g.q = slices.Delete(g.q, i, i+1)
	return true
}

// closeAll closes the connections still authenticating.
func (g *gate) closeAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range g.q {
		p.conn.Close()
	}
	g.q = nil
}

// acceptLinks authenticates the listener's connections concurrently
// through a gate, so that a slow or idle one delays no other, and hands
// on those that prove the secret with their first record (at most
// maxFirst bytes), read within the handshake's deadline too.
func acceptLinks(ln net.Listener, secret []byte, role byte, maxFirst int, done <-chan struct{}, out chan<- arrival) {
	var g gate
	defer g.closeAll()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		p := g.admit(conn)
		if p == nil {
			continue
		}
		go func() {
			// The connection leaves the gate once its client has proved
			// the secret, before it is told so.
			left := false
			l, err := acceptAuthGated(conn, secret, role, func() bool {
				left = true
				return g.leave(p)
			})
			if !left {
				g.leave(p)
			}
			var first []byte
			if err == nil {
				_ = conn.SetReadDeadline(time.Now().Add(handshakeTimeout()))
				first, err = l.readRecord(maxFirst)
				_ = conn.SetReadDeadline(time.Time{})
			}
			if err != nil {
				conn.Close()
				return
			}
			select {
			case out <- arrival{l, bytes.Clone(first)}:
			case <-done:
				conn.Close()
			}
		}()
	}
}
