// A fake libcuda for hipgo's tests: it exports the driver API entry points
// that rocr/drivers/cuda binds and simulates one device. It computes no
// real kernels: device memory is host memory (malloc), so copies and fills
// really copy and fill; each stream is a FIFO run by a thread of its own;
// events, stream memory operations (write and wait on a 64-bit word) and
// stream waits on events behave as CUDA documents them; a few kernel names
// mean something to the fake (see run_kernel), the rest do nothing. Calls
// are counted and kernels logged as they run, and the fakecuda_* control
// functions inject failures: the Nth call of an entry point returns a
// given CUresult, or the Nth kernel run faults, which makes the context's
// error sticky as a real fault does. Built at test time by
// internal/fakecuda; never part of the library.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;

enum {
	OK = 0,
	INVALID_VALUE = 1,
	OUT_OF_MEMORY = 2,
	NOT_INITIALIZED = 3,
	NO_DEVICE = 100,
	INVALID_DEVICE = 101,
	INVALID_CONTEXT = 201,
	INVALID_PTX = 218,
	INVALID_HANDLE = 400,
	NOT_FOUND = 500,
	NOT_READY = 600,
	ILLEGAL_ADDRESS = 700,
	NOT_SUPPORTED = 801,
};

static const struct {
	int code;
	const char *name, *text;
} errors_[] = {
	{0, "CUDA_SUCCESS", "no error"},
	{1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	{2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	{3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	{100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	{101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	{201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	{209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
	{218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
	{400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	{500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	{600, "CUDA_ERROR_NOT_READY", "device not ready"},
	{700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
	{702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
	{715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
	{719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	{801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	{999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

// One lock guards the fake's state; "changed" is broadcast whenever a
// stream makes progress or a control changes something.
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

// ---- calls and injected failures ----

#define MAX_NAMES 128
static struct {
	const char *name;
	int64_t n;
} counts[MAX_NAMES];

#define MAX_FAILS 16
static struct {
	char name[64];
	int64_t at; // the call count of name at which to fail
	int result;
} fails[MAX_FAILS];

static int64_t kernels_run, fault_at;
static int fault_result;
static int keep_faults; // a reset leaves a fault, as driver 580 does

// enter counts a call of name and returns the failure injected for it, or 0.
static CUresult enter(const char *name) {
	CUresult r = OK;
	pthread_mutex_lock(&mu);
	int i;
	for (i = 0; i < MAX_NAMES && counts[i].name; i++)
		if (counts[i].name == name || strcmp(counts[i].name, name) == 0)
			break;
	if (i < MAX_NAMES) {
		counts[i].name = name;
		int64_t n = ++counts[i].n;
		for (int j = 0; j < MAX_FAILS; j++)
			if (fails[j].at == n && strcmp(fails[j].name, name) == 0) {
				r = fails[j].result;
				fails[j].at = 0;
			}
	}
	pthread_mutex_unlock(&mu);
	return r;
}

static int64_t count_of(const char *name) {
	int64_t n = 0;
	for (int i = 0; i < MAX_NAMES && counts[i].name; i++)
		if (!*name || strcmp(counts[i].name, name) == 0)
			n += counts[i].n;
	return n;
}

// The log of kernels as they ran, newest last, one name a line.
static char runlog[1 << 16];
static size_t runlog_len;

static void log_kernel(const char *name) {
	size_t n = strlen(name);
	if (runlog_len + n + 1 >= sizeof runlog)
		runlog_len = 0; // wraps: tests read it long before
	memcpy(runlog + runlog_len, name, n);
	runlog[runlog_len + n] = '\n';
	runlog_len += n + 1;
}

// ---- contexts ----

typedef struct ctx {
	int sticky;   // a fault's error, returned by every later call
	int retained; // primary context retains
	struct stream *streams;
	struct stream *null_stream;
} ctx;

static ctx primary;
static int initialized;
static __thread ctx *stack[16];
static __thread int depth; // stack[depth-1] is current; depth 0: none

static ctx *current(void) { return depth > 0 ? stack[depth - 1] : NULL; }

// need checks a call that needs a current context (with mu held).
static CUresult need(void) {
	ctx *c = current();
	if (!initialized)
		return NOT_INITIALIZED;
	if (!c || !c->retained)
		return INVALID_CONTEXT;
	return c->sticky;
}

// ---- memory ----

enum { MEM_DEVICE = 1, MEM_HOST, MEM_REGISTERED };

typedef struct alloc {
	uintptr_t base;
	size_t size;
	int kind;
	struct alloc *next;
} alloc;

static alloc *allocs;

static alloc *find(uintptr_t p) {
	for (alloc *a = allocs; a; a = a->next)
		if (p >= a->base && p < a->base + a->size)
			return a;
	return NULL;
}

// range_ok: [p, p+n) lies in one allocation (known), or in none (pageable
// host memory, which only copies accept).
static int range_ok(uintptr_t p, size_t n, int *known) {
	alloc *a = find(p);
	*known = a != NULL;
	return !a || (n <= a->size && p - a->base <= a->size - n);
}

static CUresult add_alloc(uintptr_t base, size_t size, int kind) {
	alloc *a = calloc(1, sizeof *a);
	if (!a)
		return OUT_OF_MEMORY;
	a->base = base, a->size = size, a->kind = kind, a->next = allocs;
	allocs = a;
	return OK;
}

static int drop_alloc(uintptr_t base, int kind) {
	for (alloc **p = &allocs; *p; p = &(*p)->next)
		if ((*p)->base == base && (*p)->kind == kind) {
			alloc *a = *p;
			*p = a->next;
			free(a);
			return 1;
		}
	return 0;
}

// ---- modules and functions ----

typedef struct func {
	char name[128];
	int max_dyn;
} func;

typedef struct module {
	int elf;
	char *ptx;
	func *funcs[64];
	int nfuncs;
} module;

// ---- events and streams ----

typedef struct event {
	uint64_t recorded, passed; // record generations
} event;

enum { OP_KERNEL = 1, OP_COPY, OP_SET, OP_WRITE, OP_WAIT, OP_RECORD, OP_WAIT_EVENT };

typedef struct op {
	int kind;
	struct op *next;
	uint64_t seq;
	// OP_KERNEL
	func *f;
	unsigned grid[3], block[3];
	unsigned char *args;
	size_t nargs;
	// OP_COPY: dst, src, n (src_owned: a staged pageable source)
	uintptr_t dst, src;
	size_t n;
	int src_owned;
	// OP_SET: dst, elem size, value, pitch, width, height
	int es;
	uint32_t value;
	size_t pitch, width, height;
	// OP_WRITE / OP_WAIT: dst is the word, v the value, flags
	uint64_t v;
	unsigned flags;
	// OP_RECORD / OP_WAIT_EVENT
	event *ev;
	uint64_t gen;
} op;

typedef struct stream {
	ctx *c;
	op *head, *tail;
	uint64_t queued, done; // ops
	int stop, running;
	pthread_t thread;
	struct stream *next;
} stream;

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// fault makes the context's error sticky and drops every stream's work.
static void fault(ctx *c, int result) {
	if (!c->sticky)
		c->sticky = result;
	for (stream *s = c->streams; s; s = s->next) {
		while (s->head) {
			op *o = s->head;
			s->head = o->next;
			if (o->src_owned)
				free((void *)o->src);
			free(o->args);
			free(o);
		}
		s->tail = NULL;
		s->done = s->queued;
	}
	pthread_cond_broadcast(&changed);
}

// mem_ok: a kernel may touch [p, p+n) only inside an allocation.
static int mem_ok(uintptr_t p, size_t n) {
	int known;
	return range_ok(p, n, &known) && known;
}

// run_kernel carries out the kernels the fake knows, by name, with mu
// held; it returns a fault's CUresult or 0.
//   hipgo_stamp(u64 start, u64 end, u64 offset): the timestamp kernel.
//   vector_add(f32 *a, f32 *b, f32 *c, i32 n): c[i] = a[i] + b[i].
//   fakecuda_fill(u32 *dst, u32 value, u32 n): dst[i] = value.
//   fakecuda_fault(): an illegal address.
// Any other kernel does nothing.
static CUresult run_kernel(op *o) {
	const char *name = o->f->name;
	uint64_t a[4] = {0};
	memcpy(a, o->args, o->nargs < sizeof a ? o->nargs : sizeof a);
	size_t items = (size_t)o->grid[0] * o->block[0];
	log_kernel(name);
	kernels_run++;
	if (fault_at && kernels_run == fault_at) {
		fault_at = 0;
		return fault_result;
	}
	if (strcmp(name, "hipgo_stamp") == 0) {
		uint64_t t = now_ns() - a[2];
		for (int i = 0; i < 2; i++)
			if (a[i]) {
				if (!mem_ok(a[i], 8))
					return ILLEGAL_ADDRESS;
				__atomic_store_n((uint64_t *)a[i], t, __ATOMIC_RELEASE);
			}
	} else if (strcmp(name, "vector_add") == 0) {
		int32_t n = (int32_t)a[3];
		size_t m = n < 0 ? 0 : (size_t)n < items ? (size_t)n : items;
		for (int i = 0; i < 3; i++)
			if (m && !mem_ok(a[i], 4 * m))
				return ILLEGAL_ADDRESS;
		float *x = (float *)a[0], *y = (float *)a[1], *z = (float *)a[2];
		for (size_t i = 0; i < m; i++)
			z[i] = x[i] + y[i];
	} else if (strcmp(name, "fakecuda_fill") == 0) {
		uint32_t v = (uint32_t)a[1], n = (uint32_t)(a[1] >> 32);
		size_t m = n < items ? n : items;
		if (m && !mem_ok(a[0], 4 * m))
			return ILLEGAL_ADDRESS;
		for (size_t i = 0; i < m; i++)
			__atomic_store_n((uint32_t *)a[0] + i, v, __ATOMIC_RELAXED);
	} else if (strcmp(name, "fakecuda_fault") == 0) {
		return ILLEGAL_ADDRESS;
	}
	return OK;
}

// ready reports whether a waiting op may run (mu held).
static int ready(op *o) {
	if (o->kind == OP_WAIT_EVENT)
		return o->ev->passed >= o->gen;
	if (o->kind != OP_WAIT)
		return 1;
	uint64_t v = __atomic_load_n((uint64_t *)o->dst, __ATOMIC_ACQUIRE);
	switch (o->flags & 3) {
	case 0: // GEQ, cyclic as CUDA compares
		return (int64_t)(v - o->v) >= 0;
	case 1: // EQ
		return v == o->v;
	case 2: // AND
		return (v & o->v) != 0;
	default: // NOR
		return ~(v | o->v) != 0;
	}
}

// pop ends s's oldest op.
static void pop(stream *s) {
	op *o = s->head;
	s->head = o->next;
	if (!s->head)
		s->tail = NULL;
	if (o->src_owned)
		free((void *)o->src);
	free(o->args);
	free(o);
	s->done++;
	pthread_cond_broadcast(&changed);
}

// wait_for sleeps on changed (mu held) for a while that grows with polls,
// the number of times the op at the head was found not ready: memory the
// host writes changes without telling the fake.
static void wait_for(int polls) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += polls < 1000 ? 20000 : 200000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&changed, &mu, &ts);
}

// worker runs a stream's ops in order, each under the lock.
static void *worker(void *arg) {
	stream *s = arg;
	int polls = 0;
	pthread_mutex_lock(&mu);
	for (;;) {
		op *o = s->head;
		if (!o) {
			if (s->stop)
				break;
			pthread_cond_wait(&changed, &mu);
			continue;
		}
		if (s->c->sticky) { // a faulted context runs nothing more
			pop(s);
			continue;
		}
		if (!ready(o)) {
			if (s->stop) { // destroyed while waiting: its work is dropped
				pop(s);
				continue;
			}
			wait_for(polls++);
			continue;
		}
		polls = 0;
		CUresult r = OK;
		switch (o->kind) {
		case OP_KERNEL:
			r = run_kernel(o);
			break;
		case OP_COPY:
			memmove((void *)o->dst, (void *)o->src, o->n);
			break;
		case OP_SET:
			for (size_t h = 0; h < o->height; h++) {
				unsigned char *row = (unsigned char *)o->dst + h * o->pitch;
				for (size_t w = 0; w < o->width; w++)
					switch (o->es) {
					case 1: row[w] = (unsigned char)o->value; break;
					case 2: ((uint16_t *)row)[w] = (uint16_t)o->value; break;
					default: ((uint32_t *)row)[w] = o->value; break;
					}
			}
			break;
		case OP_WRITE:
			__atomic_store_n((uint64_t *)o->dst, o->v, __ATOMIC_RELEASE);
			break;
		case OP_RECORD:
			if (o->ev->passed < o->gen)
				o->ev->passed = o->gen;
			break;
		}
		if (r != OK)
			fault(s->c, r); // drops this op with the rest of the context's
		if (s->head == o)
			pop(s); // a destroyed stream's, which fault does not see
	}
	s->running = 0;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static stream *new_stream(ctx *c) {
	stream *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->c = c;
	s->running = 1;
	if (pthread_create(&s->thread, NULL, worker, s) != 0) {
		free(s);
		return NULL;
	}
	pthread_detach(s->thread);
	s->next = c->streams;
	c->streams = s;
	return s;
}

// stream_of resolves a stream handle, 0 being the context's null stream.
static stream *stream_of(ctx *c, stream *s) {
	if (s)
		return s;
	if (!c->null_stream)
		c->null_stream = new_stream(c);
	return c->null_stream;
}

static op *push(stream *s, op *o) {
	o->seq = ++s->queued;
	if (s->tail)
		s->tail->next = o;
	else
		s->head = o;
	s->tail = o;
	pthread_cond_broadcast(&changed);
	return o;
}

// drained waits until s has done everything up to seq (mu held).
static CUresult drained(stream *s, uint64_t seq) {
	while (s->done < seq && !s->c->sticky)
		pthread_cond_wait(&changed, &mu);
	return s->c->sticky;
}

static int ctx_idle(ctx *c) {
	for (stream *s = c->streams; s; s = s->next)
		if (s->done < s->queued)
			return 0;
	return 1;
}

// ---- the entry points ----

#define API(name, ...) CUresult name(__VA_ARGS__)
#define ENTER(name)                                                                                \
	do {                                                                                       \
		CUresult r_ = enter(name);                                                         \
		if (r_)                                                                            \
			return r_;                                                                 \
	} while (0)
// LOCKED enters, takes the lock and checks the current context.
#define LOCKED(name)                                                                               \
	ENTER(name);                                                                               \
	pthread_mutex_lock(&mu);                                                                   \
	do {                                                                                       \
		CUresult r_ = need();                                                              \
		if (r_) {                                                                          \
			pthread_mutex_unlock(&mu);                                                 \
			return r_;                                                                 \
		}                                                                                  \
	} while (0)
#define RETURN(r)                                                                                  \
	do {                                                                                       \
		CUresult r__ = (r);                                                                \
		pthread_mutex_unlock(&mu);                                                         \
		return r__;                                                                        \
	} while (0)

API(cuInit, unsigned flags) {
	ENTER("cuInit");
	if (flags)
		return INVALID_VALUE;
	pthread_mutex_lock(&mu);
	initialized = 1;
	RETURN(OK);
}

API(cuDriverGetVersion, int *v) {
	ENTER("cuDriverGetVersion");
	if (!v)
		return INVALID_VALUE;
	*v = 12080;
	return OK;
}

API(cuDeviceGetCount, int *n) {
	ENTER("cuDeviceGetCount");
	if (!initialized)
		return NOT_INITIALIZED;
	*n = 1;
	return OK;
}

API(cuDeviceGet, CUdevice *d, int ordinal) {
	ENTER("cuDeviceGet");
	if (ordinal != 0)
		return INVALID_DEVICE;
	*d = 0;
	return OK;
}

static int attribute(int a) {
	switch (a) {
	case 1: return 1024;         // max threads per block
	case 2: case 3: return 1024; // max block x, y
	case 4: return 64;           // max block z
	case 5: return 2147483647;   // max grid x
	case 6: case 7: return 65535;
	case 8: return 48 << 10;     // shared per block
	case 10: return 32;          // warp
	case 13: return 1980000;     // clock, kHz
	case 16: return 132;         // SMs
	case 19: return 1;           // can map host memory
	case 33: return 0x1b;        // PCI bus
	case 34: return 0;
	case 36: return 2619000;
	case 37: return 5120;
	case 38: return 50 << 20; // L2
	case 41: return 1;        // unified addressing
	case 50: return 0;
	case 75: return 9; // compute capability
	case 76: return 0;
	case 97: return 227 << 10; // shared per block, opt-in
	}
	return 0;
}

API(cuDeviceGetAttribute, int *v, int attr, CUdevice d) {
	ENTER("cuDeviceGetAttribute");
	if (d != 0)
		return INVALID_DEVICE;
	*v = attribute(attr);
	return OK;
}

API(cuDeviceGetName, char *name, int len, CUdevice d) {
	ENTER("cuDeviceGetName");
	if (d != 0 || len <= 0)
		return INVALID_VALUE;
	snprintf(name, (size_t)len, "hipgo fake CUDA device");
	return OK;
}

API(cuDeviceTotalMem_v2, size_t *n, CUdevice d) {
	ENTER("cuDeviceTotalMem_v2");
	if (d != 0)
		return INVALID_DEVICE;
	*n = (size_t)80 << 30;
	return OK;
}

API(cuDeviceGetUuid_v2, unsigned char *u, CUdevice d) {
	ENTER("cuDeviceGetUuid_v2");
	if (d != 0)
		return INVALID_DEVICE;
	for (int i = 0; i < 16; i++)
		u[i] = (unsigned char)(0xf0 + i);
	return OK;
}

API(cuGetErrorName, CUresult e, const char **s) {
	for (size_t i = 0; i < sizeof errors_ / sizeof errors_[0]; i++)
		if (errors_[i].code == e) {
			*s = errors_[i].name;
			return OK;
		}
	*s = NULL;
	return INVALID_VALUE;
}

API(cuGetErrorString, CUresult e, const char **s) {
	for (size_t i = 0; i < sizeof errors_ / sizeof errors_[0]; i++)
		if (errors_[i].code == e) {
			*s = errors_[i].text;
			return OK;
		}
	*s = NULL;
	return INVALID_VALUE;
}

API(cuDevicePrimaryCtxRetain, ctx **c, CUdevice d) {
	ENTER("cuDevicePrimaryCtxRetain");
	if (d != 0)
		return INVALID_DEVICE;
	pthread_mutex_lock(&mu);
	if (!initialized)
		RETURN(NOT_INITIALIZED);
	if (keep_faults && primary.sticky)
		RETURN(primary.sticky);
	primary.retained++;
	*c = &primary;
	RETURN(OK);
}

API(cuDevicePrimaryCtxRelease_v2, CUdevice d) {
	ENTER("cuDevicePrimaryCtxRelease_v2");
	if (d != 0)
		return INVALID_DEVICE;
	pthread_mutex_lock(&mu);
	if (primary.retained <= 0)
		RETURN(INVALID_CONTEXT);
	primary.retained--;
	RETURN(OK);
}

// A reset clears a fault, as CUDA documents, unless fakecuda_keep_faults
// asked for what driver 580 on an H200 did: keep it for the process.
API(cuDevicePrimaryCtxReset_v2, CUdevice d) {
	ENTER("cuDevicePrimaryCtxReset_v2");
	if (d != 0)
		return INVALID_DEVICE;
	pthread_mutex_lock(&mu);
	if (keep_faults && primary.sticky)
		RETURN(OK);
	// The context's streams and memory go: drop their work and records.
	fault(&primary, OK);
	for (stream *s = primary.streams; s; s = s->next)
		s->stop = 1;
	primary.streams = primary.null_stream = NULL;
	while (allocs) {
		alloc *a = allocs;
		allocs = a->next;
		if (a->kind != MEM_REGISTERED)
			free((void *)a->base);
		free(a);
	}
	primary.sticky = 0;
	pthread_cond_broadcast(&changed);
	RETURN(OK);
}

API(cuCtxPushCurrent_v2, ctx *c) {
	ENTER("cuCtxPushCurrent_v2");
	if (!c || depth == (int)(sizeof stack / sizeof stack[0]))
		return INVALID_VALUE;
	stack[depth++] = c;
	return OK;
}

API(cuCtxPopCurrent_v2, ctx **c) {
	ENTER("cuCtxPopCurrent_v2");
	if (depth == 0)
		return INVALID_CONTEXT;
	ctx *old = stack[--depth];
	if (c)
		*c = old;
	return OK;
}

API(cuCtxSetCurrent, ctx *c) {
	ENTER("cuCtxSetCurrent");
	if (!c) {
		if (depth > 0)
			depth--;
		return OK;
	}
	if (depth == 0)
		depth = 1;
	stack[depth - 1] = c;
	return OK;
}

API(cuStreamCreate, stream **out, unsigned flags) {
	LOCKED("cuStreamCreate");
	(void)flags;
	stream *s = new_stream(current());
	if (!s)
		RETURN(OUT_OF_MEMORY);
	*out = s;
	RETURN(OK);
}

API(cuStreamDestroy_v2, stream *s) {
	LOCKED("cuStreamDestroy_v2");
	ctx *c = current();
	stream **p;
	for (p = &c->streams; *p && *p != s; p = &(*p)->next)
		;
	if (!s || !*p)
		RETURN(INVALID_HANDLE);
	*p = s->next;
	s->stop = 1;
	pthread_cond_broadcast(&changed);
	// The worker ends once its work is done (a wait nobody will satisfy
	// is dropped); it frees nothing of the stream, which is leaked.
	RETURN(OK);
}

API(cuStreamSynchronize, stream *s) {
	LOCKED("cuStreamSynchronize");
	s = stream_of(current(), s);
	RETURN(drained(s, s->queued));
}

API(cuStreamQuery, stream *s) {
	LOCKED("cuStreamQuery");
	s = stream_of(current(), s);
	RETURN(s->done < s->queued ? NOT_READY : OK);
}

// ---- memory entry points ----

API(cuMemAlloc_v2, uintptr_t *p, size_t n) {
	LOCKED("cuMemAlloc_v2");
	if (!n)
		RETURN(INVALID_VALUE);
	void *m = NULL;
	if (posix_memalign(&m, 256, n) != 0)
		RETURN(OUT_OF_MEMORY);
	if (add_alloc((uintptr_t)m, n, MEM_DEVICE)) {
		free(m);
		RETURN(OUT_OF_MEMORY);
	}
	*p = (uintptr_t)m;
	RETURN(OK);
}

// release frees m, or leaks it when a stream may still touch it: CUDA's
// frees wait for the device, which a stream stuck on a wait never lets go.
static void release(void *m) {
	if (ctx_idle(&primary))
		free(m);
}

API(cuMemFree_v2, uintptr_t p) {
	LOCKED("cuMemFree_v2");
	if (!drop_alloc(p, MEM_DEVICE))
		RETURN(INVALID_VALUE);
	release((void *)p);
	RETURN(OK);
}

API(cuMemHostAlloc, void **p, size_t n, unsigned flags) {
	LOCKED("cuMemHostAlloc");
	(void)flags;
	if (!n)
		RETURN(INVALID_VALUE);
	void *m = NULL;
	if (posix_memalign(&m, 4096, n) != 0)
		RETURN(OUT_OF_MEMORY);
	if (add_alloc((uintptr_t)m, n, MEM_HOST)) {
		free(m);
		RETURN(OUT_OF_MEMORY);
	}
	*p = m;
	RETURN(OK);
}

API(cuMemFreeHost, void *p) {
	LOCKED("cuMemFreeHost");
	if (!drop_alloc((uintptr_t)p, MEM_HOST))
		RETURN(INVALID_VALUE);
	release(p);
	RETURN(OK);
}

API(cuMemHostRegister_v2, void *p, size_t n, unsigned flags) {
	LOCKED("cuMemHostRegister_v2");
	(void)flags;
	if (!p || !n || find((uintptr_t)p) || find((uintptr_t)p + n - 1))
		RETURN(INVALID_VALUE);
	RETURN(add_alloc((uintptr_t)p, n, MEM_REGISTERED));
}

API(cuMemHostUnregister, void *p) {
	LOCKED("cuMemHostUnregister");
	RETURN(drop_alloc((uintptr_t)p, MEM_REGISTERED) ? OK : INVALID_VALUE);
}

// Unified addressing: a mapped host address is its own device address.
API(cuMemHostGetDevicePointer_v2, uintptr_t *d, void *p, unsigned flags) {
	LOCKED("cuMemHostGetDevicePointer_v2");
	alloc *a = find((uintptr_t)p);
	if (flags || !a || a->kind == MEM_DEVICE)
		RETURN(INVALID_VALUE);
	*d = (uintptr_t)p;
	RETURN(OK);
}

API(cuMemcpyAsync, uintptr_t dst, uintptr_t src, size_t n, stream *s) {
	LOCKED("cuMemcpyAsync");
	int dk, sk;
	if (!range_ok(dst, n, &dk) || !range_ok(src, n, &sk))
		RETURN(INVALID_VALUE);
	s = stream_of(current(), s);
	op *o = calloc(1, sizeof *o);
	if (!o)
		RETURN(OUT_OF_MEMORY);
	o->kind = OP_COPY, o->dst = dst, o->src = src, o->n = n;
	if (!sk && n) {
		// A pageable source is staged at the call, as CUDA does.
		void *m = malloc(n);
		if (!m) {
			free(o);
			RETURN(OUT_OF_MEMORY);
		}
		memcpy(m, (void *)src, n);
		o->src = (uintptr_t)m, o->src_owned = 1;
	}
	push(s, o);
	if (!dk) // a pageable destination is written before the call returns
		RETURN(drained(s, o->seq));
	RETURN(OK);
}

static CUresult memset_(const char *name, uintptr_t dst, size_t pitch, uint32_t v, size_t w, size_t h, int es, stream *s) {
	LOCKED(name);
	int known;
	if (!w || !h || dst % (unsigned)es || !range_ok(dst, (h - 1) * pitch + w * (size_t)es, &known) || !known)
		RETURN(w && h ? INVALID_VALUE : OK);
	s = stream_of(current(), s);
	op *o = calloc(1, sizeof *o);
	if (!o)
		RETURN(OUT_OF_MEMORY);
	o->kind = OP_SET, o->dst = dst, o->es = es, o->value = v, o->pitch = pitch, o->width = w, o->height = h;
	push(s, o);
	RETURN(OK);
}

API(cuMemsetD8Async, uintptr_t d, unsigned char v, size_t n, stream *s) { return memset_("cuMemsetD8Async", d, n, v, n, 1, 1, s); }
API(cuMemsetD16Async, uintptr_t d, unsigned short v, size_t n, stream *s) { return memset_("cuMemsetD16Async", d, 2 * n, v, n, 1, 2, s); }
API(cuMemsetD32Async, uintptr_t d, unsigned v, size_t n, stream *s) { return memset_("cuMemsetD32Async", d, 4 * n, v, n, 1, 4, s); }
API(cuMemsetD2D32Async, uintptr_t d, size_t pitch, unsigned v, size_t w, size_t h, stream *s) {
	return memset_("cuMemsetD2D32Async", d, pitch, v, w, h, 4, s);
}

// ---- modules ----

// ptx_error checks what the fake can of a PTX image: its header, and that
// a body using registers declares some (ptxas's "Unknown symbol").
static int ptx_error(const char *ptx, char *log, size_t size) {
	if (!strstr(ptx, ".version") || !strstr(ptx, ".target")) {
		snprintf(log, size, "ptxas fatal   : Missing .version or .target directive");
		return 1;
	}
	for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 1, ".entry")) {
		const char *body = strchr(p, '{'), *end = body ? strchr(body, '}') : NULL;
		if (!body || !end) {
			snprintf(log, size, "ptxas fatal   : Unexpected end of file");
			return 1;
		}
		const char *reg = strstr(body, ".reg");
		for (const char *q = body; q < end; q++)
			if (q[0] == '%' && q[1] == 'r' && (!reg || reg > end)) {
				int n = 0;
				while (q[1 + n] && (q[1 + n] == 'r' || q[1 + n] == 'd' || (q[1 + n] >= '0' && q[1 + n] <= '9')))
					n++;
				snprintf(log, size, "ptxas application ptx input, line 1; error   : Unknown symbol '%%%.*s'\nptxas fatal   : Ptx assembly aborted due to errors", n, q + 1);
				return 1;
			}
	}
	return 0;
}

API(cuModuleLoadDataEx, module **out, const void *image, unsigned n, int *opts, void **vals) {
	LOCKED("cuModuleLoadDataEx");
	char *errlog = NULL;
	size_t errsize = 0;
	for (unsigned i = 0; i < n; i++) {
		if (opts[i] == 5)
			errlog = vals[i];
		else if (opts[i] == 6)
			errsize = (size_t)(uintptr_t)vals[i];
	}
	if (!image)
		RETURN(INVALID_VALUE);
	module *m = calloc(1, sizeof *m);
	if (!m)
		RETURN(OUT_OF_MEMORY);
	if (memcmp(image, "\177ELF", 4) == 0) {
		m->elf = 1;
	} else {
		char scratch[512];
		if (ptx_error(image, errlog && errsize ? errlog : scratch, errlog && errsize ? errsize : sizeof scratch)) {
			free(m);
			RETURN(INVALID_PTX);
		}
		m->ptx = strdup(image);
	}
	*out = m;
	RETURN(OK);
}

API(cuModuleUnload, module *m) {
	LOCKED("cuModuleUnload");
	if (!m)
		RETURN(INVALID_HANDLE);
	// Functions stay allocated: a launch queued before the unload may
	// still name one.
	free(m->ptx);
	m->ptx = NULL;
	RETURN(OK);
}

// has_entry reports whether the PTX declares an entry point name.
static int has_entry(const char *ptx, const char *name) {
	size_t n = strlen(name);
	for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 1, ".entry")) {
		const char *q = p + 6;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, name, n) == 0 && (q[n] == '(' || q[n] == ' ' || q[n] == '\n' || q[n] == '\t'))
			return 1;
	}
	return 0;
}

API(cuModuleGetFunction, func **out, module *m, const char *name) {
	LOCKED("cuModuleGetFunction");
	if (!m || !name || strlen(name) >= sizeof m->funcs[0]->name)
		RETURN(INVALID_VALUE);
	if ((!m->elf && (!m->ptx || !has_entry(m->ptx, name))) || m->nfuncs == 64)
		RETURN(NOT_FOUND);
	func *f = calloc(1, sizeof *f);
	if (!f)
		RETURN(OUT_OF_MEMORY);
	snprintf(f->name, sizeof f->name, "%s", name);
	f->max_dyn = 48 << 10;
	m->funcs[m->nfuncs++] = f;
	*out = f;
	RETURN(OK);
}

API(cuFuncGetAttribute, int *v, int attr, func *f) {
	LOCKED("cuFuncGetAttribute");
	if (!f)
		RETURN(INVALID_HANDLE);
	switch (attr) {
	case 0: *v = 1024; break;
	case 4: *v = 16; break;
	case 8: *v = f->max_dyn; break;
	default: *v = 0;
	}
	RETURN(OK);
}

API(cuFuncSetAttribute, func *f, int attr, int v) {
	LOCKED("cuFuncSetAttribute");
	if (!f)
		RETURN(INVALID_HANDLE);
	if (attr == 8) {
		if (v < 0 || v > attribute(97))
			RETURN(INVALID_VALUE);
		f->max_dyn = v;
	}
	RETURN(OK);
}

API(cuLaunchKernel, func *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
    unsigned shared, stream *s, void **params, void **extra) {
	LOCKED("cuLaunchKernel");
	if (!f)
		RETURN(INVALID_HANDLE);
	if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024 || (int)shared > f->max_dyn)
		RETURN(INVALID_VALUE);
	const void *buf = NULL;
	size_t nbuf = 0;
	if (params)
		RETURN(NOT_SUPPORTED); // the cuda driver passes its kernarg image through extra
	for (int i = 0; extra && extra[i]; i += 2) {
		if (extra[i] == (void *)1)
			buf = extra[i + 1];
		else if (extra[i] == (void *)2)
			nbuf = *(size_t *)extra[i + 1];
		else
			RETURN(INVALID_VALUE);
	}
	s = stream_of(current(), s);
	op *o = calloc(1, sizeof *o);
	if (!o || (nbuf && !(o->args = malloc(nbuf)))) {
		free(o);
		RETURN(OUT_OF_MEMORY);
	}
	if (nbuf)
		memcpy(o->args, buf, nbuf); // the image is copied at the launch, as CUDA does
	o->kind = OP_KERNEL, o->f = f, o->nargs = nbuf;
	o->grid[0] = gx, o->grid[1] = gy, o->grid[2] = gz;
	o->block[0] = bx, o->block[1] = by, o->block[2] = bz;
	push(s, o);
	RETURN(OK);
}

// ---- stream memory operations and events ----

static CUresult memop(const char *name, int kind, stream *s, uintptr_t addr, uint64_t v, unsigned flags) {
	LOCKED(name);
	alloc *a = find(addr);
	if (!a || addr % 8 || addr + 8 > a->base + a->size)
		RETURN(INVALID_VALUE);
	s = stream_of(current(), s);
	op *o = calloc(1, sizeof *o);
	if (!o)
		RETURN(OUT_OF_MEMORY);
	o->kind = kind, o->dst = addr, o->v = v, o->flags = flags;
	push(s, o);
	RETURN(OK);
}

API(cuStreamWriteValue64_v2, stream *s, uintptr_t addr, uint64_t v, unsigned flags) {
	return memop("cuStreamWriteValue64_v2", OP_WRITE, s, addr, v, flags);
}

API(cuStreamWaitValue64_v2, stream *s, uintptr_t addr, uint64_t v, unsigned flags) {
	return memop("cuStreamWaitValue64_v2", OP_WAIT, s, addr, v, flags);
}

API(cuEventCreate, event **out, unsigned flags) {
	LOCKED("cuEventCreate");
	(void)flags;
	event *e = calloc(1, sizeof *e);
	if (!e)
		RETURN(OUT_OF_MEMORY);
	*out = e;
	RETURN(OK);
}

API(cuEventDestroy_v2, event *e) {
	LOCKED("cuEventDestroy_v2");
	if (!e)
		RETURN(INVALID_HANDLE);
	// Leaked: a stream may still hold a record or a wait of it.
	RETURN(OK);
}

API(cuEventRecord, event *e, stream *s) {
	LOCKED("cuEventRecord");
	if (!e)
		RETURN(INVALID_HANDLE);
	s = stream_of(current(), s);
	op *o = calloc(1, sizeof *o);
	if (!o)
		RETURN(OUT_OF_MEMORY);
	o->kind = OP_RECORD, o->ev = e, o->gen = ++e->recorded;
	push(s, o);
	RETURN(OK);
}

API(cuEventQuery, event *e) {
	LOCKED("cuEventQuery");
	if (!e)
		RETURN(INVALID_HANDLE);
	RETURN(e->passed >= e->recorded ? OK : NOT_READY);
}

// A wait binds to the event's latest record at the call; an event never
// recorded is passed.
API(cuStreamWaitEvent, stream *s, event *e, unsigned flags) {
	LOCKED("cuStreamWaitEvent");
	if (!e || flags)
		RETURN(INVALID_VALUE);
	s = stream_of(current(), s);
	op *o = calloc(1, sizeof *o);
	if (!o)
		RETURN(OUT_OF_MEMORY);
	o->kind = OP_WAIT_EVENT, o->ev = e, o->gen = e->recorded;
	push(s, o);
	RETURN(OK);
}

// ---- controls, for tests ----

// fakecuda_calls returns how many times entry point name was called
// ("" for every entry point).
int64_t fakecuda_calls(const char *name) {
	pthread_mutex_lock(&mu);
	int64_t n = count_of(name);
	pthread_mutex_unlock(&mu);
	return n;
}

// fakecuda_fail makes the nth call of name from now (1: the next) return
// result without doing anything.
int fakecuda_fail(const char *name, int64_t nth, int result) {
	pthread_mutex_lock(&mu);
	int ok = -1;
	for (int j = 0; j < MAX_FAILS; j++)
		if (!fails[j].at && strlen(name) < sizeof fails[j].name) {
			snprintf(fails[j].name, sizeof fails[j].name, "%s", name);
			fails[j].at = count_of(name) + nth;
			fails[j].result = result;
			ok = 0;
			break;
		}
	pthread_mutex_unlock(&mu);
	return ok;
}

// fakecuda_fault makes the nth kernel to run from now (1: the next) fail
// with result as it runs, which makes the context's error sticky.
void fakecuda_fault(int64_t nth, int result) {
	pthread_mutex_lock(&mu);
	fault_at = kernels_run + nth;
	fault_result = result;
	pthread_mutex_unlock(&mu);
}

// fakecuda_ran copies the names of the kernels run so far, oldest first,
// one a line, into buf and returns the length of the whole log.
size_t fakecuda_ran(char *buf, size_t size) {
	pthread_mutex_lock(&mu);
	size_t n = runlog_len;
	memcpy(buf, runlog, n < size ? n : size);
	pthread_mutex_unlock(&mu);
	return n;
}

// fakecuda_pending returns the operations queued and not yet done on
// every stream of the context.
int64_t fakecuda_pending(void) {
	pthread_mutex_lock(&mu);
	int64_t n = 0;
	for (stream *s = primary.streams; s; s = s->next)
		n += (int64_t)(s->queued - s->done);
	pthread_mutex_unlock(&mu);
	return n;
}

// fakecuda_keep_faults makes a fault outlive a reset of the primary
// context (on), or a reset clear it (off, the default).
void fakecuda_keep_faults(int on) {
	pthread_mutex_lock(&mu);
	keep_faults = on;
	pthread_mutex_unlock(&mu);
}
