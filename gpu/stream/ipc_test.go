package stream_test

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// The two-process tests re-execute the test binary: the child runs
// TestIPCPeer with the handles in its environment, and talks to the
// parent over its stdin and stdout, one line per step.
const (
	peerMode  = "HIPGO_IPC_PEER"
	peerMem   = "HIPGO_IPC_PEER_MEM"
	peerEvent = "HIPGO_IPC_PEER_EVENT"
	peerN     = 1024 // elements of the shared buffer
	peerSlow  = 16   // elements the child writes late, after a sleep
)

// peer is a running child process.
type peer struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	lines []string // everything it printed, for failures
}

func startPeer(t *testing.T, mode string, env ...string) *peer {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestIPCPeer$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), append(env, peerMode+"="+mode)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &peer{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

// expect reads the child's output up to a line "ipc: want".
func (p *peer) expect(want string) {
	p.t.Helper()
	for p.out.Scan() {
		l := p.out.Text()
		p.lines = append(p.lines, l)
		if l == "ipc: "+want {
			return
		}
	}
	p.t.Fatalf("peer ended before %q:\n%s", want, strings.Join(p.lines, "\n"))
}

func (p *peer) send(line string) {
	p.t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(p.t, err)
}

// wait waits for the child's exit and requires success.
func (p *peer) wait() {
	p.t.Helper()
	for p.out.Scan() {
		p.lines = append(p.lines, p.out.Text())
	}
	err := p.cmd.Wait()
	all := strings.Join(p.lines, "\n")
	require.NoError(p.t, err, "peer failed:\n%s", all)
	require.Contains(p.t, all, "--- PASS: TestIPCPeer", "the peer ran its test")
}

func say(s string) { _, _ = os.Stdout.WriteString("\nipc: " + s + "\n") }

func hexEnv(key string, h gpu.IPCHandle) string { return key + "=" + hex.EncodeToString(h[:]) }

func handleFromEnv(t *testing.T, key string) gpu.IPCHandle {
	b, err := hex.DecodeString(os.Getenv(key))
	require.NoError(t, err)
	h, err := gpu.ParseIPCHandle(b)
	require.NoError(t, err)
	return h
}

// TestIPCTwoProcesses: a second process opens a shareable buffer and an
// interprocess event, reads what this one wrote, writes back, and records
// the event after work that ends late; this process waits for the event
// on a stream and sees that work's result.
func TestIPCTwoProcesses(t *testing.T) {
	e := setup(t)
	b, err := buffer.NewShareable[int32](e.dev, peerN)
	require.NoError(t, err)
	src := make([]int32, peerN)
	for i := range src {
		src[i] = int32(i)
	}
	require.NoError(t, b.CopyFrom(src))
	h, err := b.IPCHandle()
	require.NoError(t, err)
	assert.Equal(t, uint64(4*peerN), h.Size())
	ev, err := stream.NewEvent(e.dev, stream.EventInterprocess|stream.EventDisableTiming)
	require.NoError(t, err)
	eh, err := ev.IPCHandle()
	require.NoError(t, err)

	p := startPeer(t, "exchange", hexEnv(peerMem, h), hexEnv(peerEvent, eh))
	p.expect("recorded")
	// The peer's last write is still sleeping: only the event orders it.
	s := e.stream()
	dst := newBuf(t, e.dev, peerN)
	require.NoError(t, s.WaitEvent(ev))
	e.launch(s, "stream_test_copy", dst, b, int32(peerN))
	sync(t, s)
	got, err := dst.ToSlice()
	require.NoError(t, err)
	for i, v := range got {
		want := int32(2*i + 1)
		if i < peerSlow {
			want = -1
		}
		if v != want {
			t.Fatalf("element %d is %d after the peer's event, want %d", i, v, want)
		}
	}
	assert.NoError(t, ev.Query())
	p.send("done")
	p.wait()
	assert.NoError(t, ev.Destroy())
	assert.NoError(t, b.Free())
	assert.NoError(t, dst.Free())
}

// TestIPCFreeWhileOpen: the exporter frees its buffer while the peer has
// it open, and allocates again. The peer's mapping keeps its own pages
// (it writes and reads them back), the exporter's new memory is untouched
// by those writes, and the handle no longer opens.
func TestIPCFreeWhileOpen(t *testing.T) {
	e := setup(t)
	b, err := buffer.NewShareable[int32](e.dev, peerN)
	require.NoError(t, err)
	require.NoError(t, b.Fill(5))
	h, err := b.IPCHandle()
	require.NoError(t, err)
	p := startPeer(t, "afterfree", hexEnv(peerMem, h))
	p.expect("opened")
	require.NoError(t, b.Free())
	// New memory, shareable and not, likely where the old was.
	b2, err := buffer.NewShareable[int32](e.dev, peerN)
	require.NoError(t, err)
	require.NoError(t, b2.Fill(9))
	b3 := newBuf(t, e.dev, peerN)
	require.NoError(t, b3.Fill(9))
	p.send("freed")
	p.expect("written")
	for _, x := range []*buffer.Buffer[int32]{b2, b3} {
		got, err := x.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			require.Equal(t, int32(9), v, "element %d of %s changed by the peer's writes to freed memory", i, x)
		}
	}
	p.send("done")
	p.wait()
	assert.NoError(t, b2.Free())
	assert.NoError(t, b3.Free())
}

// TestIPCPeer is the second process of the tests above; it skips when run
// on its own.
func TestIPCPeer(t *testing.T) {
	mode := os.Getenv(peerMode)
	if mode == "" {
		t.Skip("the second process of TestIPCTwoProcesses and TestIPCFreeWhileOpen")
	}
	e := setup(t)
	in := bufio.NewScanner(os.Stdin)
	await := func(want string) {
		t.Helper()
		require.True(t, in.Scan(), "parent closed stdin before %q", want)
		require.Equal(t, want, in.Text())
	}
	if mode == "exportdie" {
		// Exports an event recorded behind a host function that never
		// returns, and waits to be killed.
		ev, err := stream.NewEvent(e.dev, stream.EventInterprocess|stream.EventDisableTiming)
		require.NoError(t, err)
		eh, err := ev.IPCHandle()
		require.NoError(t, err)
		s := e.stream()
		never := make(chan struct{})
		require.NoError(t, s.LaunchHostFunc(func() error { <-never; return nil }))
		require.NoError(t, s.Record(ev))
		say("event " + hex.EncodeToString(eh[:]))
		await("never")
		return
	}
	h := handleFromEnv(t, peerMem)
	switch mode {
	case "exchange":
		b, err := buffer.OpenIPC[int32](e.dev, h)
		require.NoError(t, err)
		require.Equal(t, peerN, b.Len())
		got, err := b.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			require.Equal(t, int32(i), v, "element %d", i)
			got[i] = 2*v + 1
		}
		require.NoError(t, b.CopyFrom(got))
		ev, err := stream.OpenIPCEvent(e.dev, handleFromEnv(t, peerEvent))
		require.NoError(t, err)
		_, err = ev.IPCHandle()
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "an opened event is not exported again")
		s := e.stream()
		e.launch(s, "stream_test_slow_write", b, int32(-1), int32(300), int32(peerSlow))
		require.NoError(t, s.Record(ev))
		say("recorded")
		await("done")
		sync(t, s)
		require.NoError(t, ev.Destroy())
		require.NoError(t, b.Free())
		assert.ErrorIs(t, b.Free(), gpu.ErrInvalidValue, "closing twice")
		peerForgeries(t, e.dev, h)
	case "afterfree":
		b, err := buffer.OpenIPC[int32](e.dev, h)
		require.NoError(t, err)
		say("opened")
		await("freed")
		got, err := b.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			require.Equal(t, int32(5), v, "element %d after the exporter freed it", i)
		}
		require.NoError(t, b.Fill(7))
		got, err = b.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			require.Equal(t, int32(7), v, "element %d", i)
		}
		// Open here still, the handle opens again: the same mapping,
		// counted, as HIP's hipIpcOpenMemHandle gives.
		again, err := buffer.OpenIPC[int32](e.dev, h)
		require.NoError(t, err, "a handle open here opens again")
		assert.Equal(t, b.Ptr(), again.Ptr())
		require.NoError(t, again.Free())
		// Close races close and a copy: one Free wins, nothing crashes.
		var wg gosync.WaitGroup
		errs := make([]error, 3)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i == 2 {
					_, errs[i] = b.ToSlice()
					return
				}
				errs[i] = b.Free()
			}()
		}
		wg.Wait()
		assert.True(t, (errs[0] == nil) != (errs[1] == nil), "exactly one Free closes: %v, %v", errs[0], errs[1])
		_, err = buffer.OpenIPC[int32](e.dev, h)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "a freed buffer's handle opens nothing once closed here")
		say("written")
		await("done")
	default:
		t.Fatalf("unknown mode %q", mode)
	}
}

// peerForgeries runs in the peer, where the handle is another process's:
// handles altered in their driver part, which only the exporter's memory
// can refute, open nothing.
func peerForgeries(t *testing.T, dev *gpu.Device, h gpu.IPCHandle) {
	nonce := h
	nonce[32+4] ^= 1
	fd := h
	binary.LittleEndian.PutUint32(fd[32:], binary.LittleEndian.Uint32(fd[32:])+1)
	bigger := h
	binary.LittleEndian.PutUint64(bigger[24:], h.Size()+1<<20)
	for name, f := range map[string]gpu.IPCHandle{"nonce": nonce, "descriptor": fd, "size": bigger} {
		_, err := buffer.OpenIPC[int32](dev, f)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "forged %s", name)
	}
}

// Handles that are malformed, of another kind or driver, or of this
// process are refused before anything is opened.
func TestIPCBadHandles(t *testing.T) {
	e := setup(t)
	b, err := buffer.NewShareable[int32](e.dev, 64)
	require.NoError(t, err)
	h, err := b.IPCHandle()
	require.NoError(t, err)

	_, err = gpu.ParseIPCHandle(h[:100])
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "truncated")
	_, err = gpu.ParseIPCHandle(append(h[:], 0))
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "too long")
	got, err := gpu.ParseIPCHandle(h[:])
	require.NoError(t, err)
	assert.Equal(t, h, got)

	other := func(f func(h *gpu.IPCHandle)) gpu.IPCHandle {
		x := h
		binary.LittleEndian.PutUint32(x[12:], uint32(os.Getpid()+1)) // another process's
		f(&x)
		return x
	}
	cases := map[string]gpu.IPCHandle{
		"zero":          {},
		"magic":         other(func(h *gpu.IPCHandle) { h[0] ^= 1 }),
		"version":       other(func(h *gpu.IPCHandle) { h[8] = 9 }),
		"kind":          other(func(h *gpu.IPCHandle) { h[10] = 2 }),
		"unknown kind":  other(func(h *gpu.IPCHandle) { h[10] = 7 }),
		"payload 0":     other(func(h *gpu.IPCHandle) { h[11] = 0 }),
		"payload long":  other(func(h *gpu.IPCHandle) { h[11] = 200 }),
		"trailing":      other(func(h *gpu.IPCHandle) { h[127] = 1 }),
		"pid 0":         other(func(h *gpu.IPCHandle) { binary.LittleEndian.PutUint32(h[12:], 0) }),
		"driver":        other(func(h *gpu.IPCHandle) { copy(h[16:24], "cuda\x00\x00\x00\x00") }),
		"no driver":     other(func(h *gpu.IPCHandle) { clear(h[16:24]) }),
		"driver padded": other(func(h *gpu.IPCHandle) { h[23] = 'x' }),
		"size 0":        other(func(h *gpu.IPCHandle) { clear(h[24:32]) }),
		"size huge":     other(func(h *gpu.IPCHandle) { binary.LittleEndian.PutUint64(h[24:], 1<<62) }),
		"payload size":  other(func(h *gpu.IPCHandle) { h[11] = 19 }),
		"no process":    other(func(h *gpu.IPCHandle) { binary.LittleEndian.PutUint32(h[12:], 1<<22) }),
	}
	for name, x := range cases {
		_, err := buffer.OpenIPC[int32](e.dev, x)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
	}
	// As HIP: a process opening its own handle is hipErrorInvalidContext.
	_, err = buffer.OpenIPC[int32](e.dev, h)
	assert.Equal(t, gpu.ErrInvalidContext, gpu.CodeOf(err), "own process: %v", err)
	_, err = buffer.OpenIPC[[3]int32](e.dev, other(func(*gpu.IPCHandle) {}))
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "256 bytes are no whole number of [3]int32")
	_, err = stream.OpenIPCEvent(e.dev, other(func(*gpu.IPCHandle) {}))
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "a memory handle is no event handle")

	// What cannot be exported.
	plain := newBuf(t, e.dev, 64)
	defer plain.Free()
	_, err = plain.IPCHandle()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "New's memory is not shareable")
	empty, err := buffer.NewShareable[int32](e.dev, 0)
	require.NoError(t, err)
	_, err = empty.IPCHandle()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "empty")
	var nilBuf *buffer.Buffer[int32]
	_, err = nilBuf.IPCHandle()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	ev := e.event(stream.EventDisableTiming)
	_, err = ev.IPCHandle()
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle, "an event made without EventInterprocess")
	_, err = stream.NewEvent(e.dev, stream.EventInterprocess)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "EventInterprocess needs EventDisableTiming")
	require.NoError(t, b.Free())
	_, err = b.IPCHandle()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "freed")
}

// An interprocess event works within its process too, and its Record,
// WaitEvent, Query and Destroy race without a crash, a hang or a signal
// used after it is gone. So do a shareable buffer's IPCHandle and Free.
func TestIPCRaces(t *testing.T) {
	e := setup(t)
	for round := 0; round < 20; round++ {
		ev, err := stream.NewEvent(e.dev, stream.EventInterprocess|stream.EventDisableTiming)
		require.NoError(t, err)
		b, err := buffer.NewShareable[int32](e.dev, 256)
		require.NoError(t, err)
		s1, s2 := e.stream(), e.stream()
		var wg gosync.WaitGroup
		for g := 0; g < 6; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch g {
				case 0:
					assert.NoError(t, e.tryLaunch(s1, "test_sleep", int32(1)))
					_ = s1.Record(ev)
				case 1:
					_ = s2.WaitEvent(ev)
					_ = s2.Synchronize()
				case 2:
					_ = ev.Query()
					_ = ev.Synchronize()
				case 3:
					time.Sleep(time.Duration(round%3) * time.Millisecond)
					_ = ev.Destroy()
				case 4:
					_, _ = b.IPCHandle()
				case 5:
					time.Sleep(time.Duration(round%2) * time.Millisecond)
					_ = b.Free()
				}
			}()
		}
		wg.Wait()
		assert.NoError(t, s1.Synchronize())
		assert.NoError(t, s2.Synchronize())
		assert.NoError(t, s1.Destroy())
		assert.NoError(t, s2.Destroy())
	}
}

// Shutdown with shareable memory and interprocess events live releases
// them, and racing it is no crash.
func TestIPCShutdown(t *testing.T) {
	e := setup(t)
	_, err := buffer.NewShareable[float32](e.dev, 1<<12)
	require.NoError(t, err)
	_, err = stream.NewEvent(e.dev, stream.EventInterprocess|stream.EventDisableTiming)
	require.NoError(t, err)
	var wg gosync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				dev, err := gpu.Default()
				if err != nil {
					continue
				}
				b, err := buffer.NewShareable[int32](dev, 64)
				if err == nil {
					_, _ = b.IPCHandle()
					_ = b.Free()
				}
				if ev, err := stream.NewEvent(dev, stream.EventInterprocess|stream.EventDisableTiming); err == nil {
					_, _ = ev.IPCHandle()
					_ = ev.Destroy()
				}
			}
		}()
	}
	require.NoError(t, gpu.Shutdown())
	wg.Wait()
}

// Records of one interprocess event in flight at once all count: the
// event completes when the last of them has, whichever finishes first.
func TestIPCEventRecordsCount(t *testing.T) {
	e := setup(t)
	ev, err := stream.NewEvent(e.dev, stream.EventInterprocess|stream.EventDisableTiming)
	require.NoError(t, err)
	defer func() { assert.NoError(t, ev.Destroy()) }()
	require.NoError(t, ev.Query(), "never recorded: complete")
	open := closeGate(t)
	s1, s2 := e.stream(), e.stream()
	x := newBuf(t, e.dev, 4)
	e.launch(s1, "stream_test_gated_write", x, int32(1), int32(4))
	require.NoError(t, s1.Record(ev))
	require.NoError(t, s2.Record(ev))
	sync(t, s2)
	assert.ErrorIs(t, ev.Query(), gpu.ErrNotReady, "the gated record is still pending")
	open()
	require.NoError(t, ev.Synchronize())
	require.NoError(t, ev.Query())
	sync(t, s1)
	assert.NoError(t, x.Free())
}

// An interprocess event whose exporter is killed before the work it
// recorded completes fails its waiters with an error that says so,
// instead of leaving them pending for ever: the stream that waits for
// it, the event's own Synchronize, and Destroy all return.
func TestIPCEventExporterDied(t *testing.T) {
	e := setup(t)
	p := startPeer(t, "exportdie")
	var eh gpu.IPCHandle
	for p.out.Scan() {
		l := p.out.Text()
		p.lines = append(p.lines, l)
		if x, ok := strings.CutPrefix(l, "ipc: event "); ok {
			b, err := hex.DecodeString(x)
			require.NoError(t, err)
			eh, err = gpu.ParseIPCHandle(b)
			require.NoError(t, err)
			break
		}
	}
	require.NotZero(t, eh, "the peer printed no handle:\n%s", strings.Join(p.lines, "\n"))
	ev, err := stream.OpenIPCEvent(e.dev, eh)
	require.NoError(t, err)
	s := e.stream()
	require.NoError(t, s.WaitEvent(ev))
	e.launch(s, "test_empty")
	require.ErrorIs(t, ev.Query(), gpu.ErrNotReady, "the peer's work never ends")

	require.NoError(t, p.cmd.Process.Kill())
	_ = p.cmd.Wait()
	err = returnsWithin(t, 10*time.Second, s.Synchronize)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited")
	err = returnsWithin(t, 10*time.Second, ev.Synchronize)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited")
	_ = returnsWithin(t, 10*time.Second, s.Destroy)
	assert.NoError(t, ev.Destroy())
}
