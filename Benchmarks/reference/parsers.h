/* The parsers the reference harness measures, each in its own file: sofia-sip and libre define clashing
 * names (sip_request, SP), so no file includes both. Each parses one message and returns a checksum of
 * the values `switchboard-bench --only access` reads; 1 or less means it refused the message. */
#ifndef SWITCHBOARD_BENCH_PARSERS_H
#define SWITCHBOARD_BENCH_PARSERS_H
#include <stddef.h>

struct file {
    char name[256];
    char *bytes;
    size_t size;
};

size_t sofia_access(const struct file *f);
size_t re_access(const struct file *f);
size_t osip_access(const struct file *f);
void re_setup(void);
void re_teardown(void);
void osip_setup(void);
#endif
