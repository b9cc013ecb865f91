package collective

import (
	"net"
	"testing"
)

// BenchmarkLink measures one authenticated link over loopback: a 1 MiB
// message written as records and read back (the TCP path's throughput),
// and a handshake.
func BenchmarkLink(b *testing.B) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	pair := func(b *testing.B) (*link, *link) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer ln.Close()
		ch := make(chan *link, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				ch <- nil
				return
			}
			l, _ := acceptAuth(c, secret, rolePeer)
			ch <- l
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		cl, err := dialAuth(c, secret, rolePeer)
		if err != nil {
			b.Fatal(err)
		}
		sv := <-ch
		if sv == nil {
			b.Fatal("no server link")
		}
		return cl, sv
	}
	b.Run("message-1MiB", func(b *testing.B) {
		cl, sv := pair(b)
		defer cl.conn.Close()
		defer sv.conn.Close()
		msg := make([]byte, 1<<20)
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		done := make(chan error, 1)
		go func() {
			for range b.N {
				if _, err := sv.readData(uint64(len(msg))); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		for range b.N {
			if err := cl.writeMsg(msg); err != nil {
				b.Fatal(err)
			}
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	})
	b.Run("handshake", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			cl, sv := pair(b)
			cl.conn.Close()
			sv.conn.Close()
		}
	})
}
