// A fake NVTX3 injection library for hipgo's tests: it attaches to the
// client through InitializeInjectionNvtx2 as a profiler does, checks the
// client's export tables, takes the core module's mark and range calls
// and appends one line per call to $HIPGO_FAKE_LOG (or only counts them
// when it is unset). Built at test time; see annotatetest.go.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef void (*fnptr)(void);
typedef const void *(*get_export_table_t)(uint32_t id);

struct callbacks {
	size_t size;
	int (*get_module_function_table)(int module, fnptr ***table, unsigned *size);
};

struct version_info {
	size_t size;
	uint32_t version;
	uint32_t reserved;
	void (*set_injection_version)(uint32_t);
};

static int log_fd = -1;
static volatile uint64_t calls, next_id;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#include <stdarg.h>
static void logf_(const char *fmt, ...) {
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (log_fd < 0)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n++] = '\n';
	ssize_t w = write(log_fd, buf, n); // O_APPEND: one line per write
	(void)w;
}

static long tid(void) { return syscall(SYS_gettid); }

static void mark_a(const char *m) { logf_("mark %ld %s", tid(), m); }
static uint64_t range_start_a(const char *m) {
	uint64_t id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	logf_("start %ld %llu %s", tid(), (unsigned long long)id, m);
	return id;
}
static void range_end(uint64_t id) { logf_("end %ld %llu", tid(), (unsigned long long)id); }
static int range_push_a(const char *m) { logf_("push %ld %s", tid(), m); return 0; }
static int range_pop(void) { logf_("pop %ld", tid()); return 0; }

uint64_t FakeCalls(void) { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }

// Module sizes (NVTX_CBID_<module>_SIZE) of NVTX 3, modules 1 to 6.
static const unsigned want_size[7] = {0, 16, 9, 15, 7, 16, 7};

static int fail(const char *what) {
	logf_("error %s", what);
	return 0;
}

int InitializeInjectionNvtx2(get_export_table_t get) {
	const char *path = getenv("HIPGO_FAKE_LOG");
	if (log_fd >= 0)
		close(log_fd); // attached again (a test's annotate.Reset)
	log_fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	if (get(0) != NULL || get(2) != NULL || get(4) != NULL)
		return fail("export table for an unknown id");
	const struct version_info *v = get(3);
	if (!v || v->size < sizeof *v || v->version != 3)
		return fail("version info table");
	v->set_injection_version(3);
	const struct callbacks *cb = get(1);
	if (!cb || cb->size < sizeof *cb)
		return fail("callbacks table");
	fnptr **table;
	unsigned size;
	if (cb->get_module_function_table(7, &table, &size) != 0 || cb->get_module_function_table(0, &table, &size) != 0)
		return fail("a table for an unknown module");
	fnptr **core = NULL;
	for (int m = 1; m <= 6; m++) {
		table = NULL;
		size = 0;
		if (!cb->get_module_function_table(m, &table, &size))
			return fail("module table refused");
		if (size != want_size[m] || !table || table[0] != NULL || table[size] != NULL)
			return fail("module table shape");
		for (unsigned i = 1; i < size; i++)
			if (!table[i])
				return fail("module table slot");
		if (m == 1)
			core = table;
	}
	*core[2] = (fnptr)mark_a;
	*core[5] = (fnptr)range_start_a;
	*core[7] = (fnptr)range_end;
	*core[9] = (fnptr)range_push_a;
	*core[11] = (fnptr)range_pop;
	logf_("init %ld", tid());
	return 1;
}
