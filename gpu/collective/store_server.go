package collective

import (
	"encoding/binary"
	"fmt"
	"time"
)

func (s *Store) serve() {
	arrivals := make(chan arrival)
	go acceptLinks(s.ln, s.key, roleStore, storeReq+storeMaxKey, s.done, arrivals)
	for {
		select {
		case a := <-arrivals:
			s.smu.Lock()
			ok := !s.closed && len(s.conns) < storeMaxConns
			if ok {
				s.conns[a.l.conn] = true
			}
			s.smu.Unlock()
			if !ok {
				go func() {
					_ = a.l.conn.SetDeadline(time.Now().Add(handshakeTimeout()))
					_ = replyStore(a.l, storeBusy, nil)
					a.l.conn.Close()
				}()
				continue
			}
			go s.client(a)
		case <-s.done:
			return
		}
	}
}

func replyStore(l *link, status byte, v []byte) error {
	var st [5]byte
	st[0] = status
	binary.LittleEndian.PutUint32(st[1:], uint32(len(v)))
	if err := l.writeRecord(st[:]); err != nil {
		return err
	}
	if len(v) == 0 {
		return l.flush()
	}
	return l.writeMsg(v)
}

// client serves one request. A Get waits for its key up to the
// rendezvous timeout.
func (s *Store) client(a arrival) {
	l := a.l
	defer func() {
		s.smu.Lock()
		delete(s.conns, l.conn)
		s.smu.Unlock()
		l.conn.Close()
	}()
	_ = l.conn.SetDeadline(time.Now().Add(handshakeTimeout()))
	kind, key, vlen, err := parseStoreReq(a.first)
	if err != nil {
		_ = replyStore(l, storeErr, []byte(err.Error()))
		return
	}
	var reply []byte
	switch kind {
	case storeSet:
		v := make([]byte, vlen)
		if err := l.readInto(v); err != nil {
			return
		}
		s.smu.Lock()
		_, had := s.kv[key]
		if !had && len(s.kv) >= storeMaxKeys {
			s.smu.Unlock()
			_ = replyStore(l, storeErr, []byte(fmt.Sprintf("the store holds %d keys, its limit", storeMaxKeys)))
			return
		}
		s.kv[key] = v
		close(s.changed)
		s.changed = make(chan struct{})
		s.smu.Unlock()
	case storeGet:
		s.smu.Lock()
		_, set := s.kv[key]
		busy := !set && s.waits >= storeMaxWaits
		if !busy && !set {
			s.waits++
			defer func() {
				s.smu.Lock()
				s.waits--
				s.smu.Unlock()
			}()
		}
		s.smu.Unlock()
		if busy {
			_ = replyStore(l, storeBusy, nil)
			return
		}
		timer := time.NewTimer(rendezvousTimeout())
		defer timer.Stop()
		// A client that hangs up stops the wait (it sends nothing more).
		gone := make(chan struct{})
		// The read outlives the timer, so a Get that times out is told
		// so instead of being hung up on (both firing at once lost the
		// reply now and then).
		_ = l.conn.SetReadDeadline(time.Now().Add(rendezvousTimeout() + handshakeTimeout()))
		go func() {
			var b [1]byte
			_, _ = l.conn.Read(b[:])
			close(gone)
		}()
		for {
			s.smu.Lock()
			v, ok := s.kv[key]
			changed := s.changed
			s.smu.Unlock()
			if ok {
				reply = v
				break
			}
			select {
			case <-changed:
				continue
			case <-s.done:
				return
			case <-gone:
				return
			case <-timer.C:
				_ = l.conn.SetDeadline(time.Now().Add(handshakeTimeout()))
				_ = replyStore(l, storeErr, []byte(fmt.Sprintf("%q was not set within %v", key, rendezvousTimeout())))
				return
			}
		}
		_ = l.conn.SetDeadline(time.Now().Add(handshakeTimeout()))
	}
	_ = replyStore(l, storeOK, reply)
}
