package collective

import (
	"fmt"
	"net"
	"os"
)

// bindHost is the address the meeting point and peer listeners bind and
// advertise, as DESIGN.md's Security decisions say: HIPGO_COLLECTIVE_HOST
// where set (an unspecified address, 0.0.0.0 or ::, asks for every
// interface); the loopback address when MASTER_ADDR is loopback or unset;
// otherwise the interface that owns MASTER_ADDR or routes to it.
func bindHost() (bind, advertise string, err error) {
	if h := os.Getenv("HIPGO_COLLECTIVE_HOST"); h != "" {
		if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
			return h, firstHostIP(), nil
		}
		return h, h, nil
	}
	m := os.Getenv("MASTER_ADDR")
	if m == "" || isLoopback(m) {
		if ip := net.ParseIP(m); ip != nil && ip.To4() == nil {
			return "::1", "::1", nil
		}
		return "127.0.0.1", "127.0.0.1", nil
	}
	ips, err := net.LookupIP(m)
	if err != nil || len(ips) == 0 {
		return "", "", fmt.Errorf("MASTER_ADDR=%q: %v", m, err)
	}
	if ips[0].IsLoopback() {
		return ips[0].String(), ips[0].String(), nil
	}
	// A UDP "connection" sends nothing: it asks the kernel which local
	// address routes to MASTER_ADDR (its own, where this host owns it).
	c, err := net.Dial("udp", net.JoinHostPort(ips[0].String(), "9"))
	if err != nil {
		return "", "", fmt.Errorf("no route to MASTER_ADDR=%q: %v", m, err)
	}
	defer c.Close()
	ip := c.LocalAddr().(*net.UDPAddr).IP.String()
	return ip, ip, nil
}

// firstHostIP is the first non-loopback IPv4 address of an interface
// that is up, else the loopback address.
func firstHostIP() string {
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return "127.0.0.1"
}

// listen opens a listener on bindHost and returns the address to
// advertise for it.
func listen() (net.Listener, string, error) {
	bind, adv, err := bindHost()
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(bind, "0"))
	if err != nil {
		return nil, "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return ln, net.JoinHostPort(adv, fmt.Sprint(port)), nil
}
