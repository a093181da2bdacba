#ifndef SWITCHBOARD_ALLOCATION_COUNTER_H
#define SWITCHBOARD_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Number of heap allocations (malloc, calloc, realloc, aligned forms) made by the calling thread so far.
/// Linked only into the benchmark executable, whose definitions of the allocation functions take
/// precedence over the C library's and forward to it.
uint64_t switchboard_allocation_count(void);

/// Bytes of heap in use now (glibc's mallinfo2: allocated bytes in every arena plus mmapped blocks); 0 where
/// there is no mallinfo2.
uint64_t switchboard_heap_in_use(void);

#endif
