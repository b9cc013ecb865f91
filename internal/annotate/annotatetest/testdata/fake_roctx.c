// A fake libroctx64 for hipgo's tests: roctx's range and mark calls,
// each appending one line to $HIPGO_FAKE_LOG (or only counted when it is
// unset). Built at test time; see annotatetest.go.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int log_fd = -2;
static volatile uint64_t calls, next_id;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (log_fd == -2) {
		const char *path = getenv("HIPGO_FAKE_LOG");
		log_fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	}
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
	ssize_t w = write(log_fd, buf, n);
	(void)w;
}

static long tid(void) { return syscall(SYS_gettid); }

void roctxMarkA(const char *m) { logf_("mark %ld %s", tid(), m); }
int roctxRangePushA(const char *m) { logf_("push %ld %s", tid(), m); return 0; }
int roctxRangePop(void) { logf_("pop %ld", tid()); return 0; }
uint64_t roctxRangeStartA(const char *m) {
	uint64_t id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	logf_("start %ld %llu %s", tid(), (unsigned long long)id, m);
	return id;
}
void roctxRangeStop(uint64_t id) { logf_("end %ld %llu", tid(), (unsigned long long)id); }
