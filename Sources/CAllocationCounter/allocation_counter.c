// Counts heap allocations for the benchmark's "allocations per parse" figure. The executable's own
// malloc family is found before glibc's; each forwards to glibc's __libc_* entry points.
#include "allocation_counter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <stddef.h>
#include <errno.h>
#include <malloc.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

// Per thread and not atomic: every benchmark counts the allocations of the loop it runs on its own thread,
// and a locked add on every malloc would cost the timed loops what the C parsers they are compared with
// (Benchmarks/reference) do not pay. The executable's static TLS exists before any thread can allocate.
static __thread uint64_t allocations;

static inline void count(void) { allocations += 1; }

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

uint64_t switchboard_allocation_count(void) { return allocations; }

uint64_t switchboard_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
}
#else
uint64_t switchboard_allocation_count(void) { return 0; }
uint64_t switchboard_heap_in_use(void) { return 0; }
#endif
