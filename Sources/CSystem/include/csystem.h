#ifndef SWITCHBOARD_CSYSTEM_H
#define SWITCHBOARD_CSYSTEM_H


// Linux system interfaces that Glibc's Swift module does not export (epoll, eventfd, timerfd), plus
// small wrappers for macros.

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>
#include <time.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <resolv.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static inline int sb_errno(void) { return errno; }
/// Returns the heap's free memory to the system (glibc's malloc_trim(0)); 1 when some was released.
static inline int sb_trim_heap(void) { return malloc_trim(0); }
/// Bytes the heap hands out now (glibc's mallinfo2: in-use blocks plus mmapped ones), whatever glibc keeps
/// cached: the figure a soak compares, since RSS also counts freed memory glibc has not returned.
static inline size_t sb_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
/// accept(2), then non-blocking and close-on-exec (accept4 would need _GNU_SOURCE, which changes glibc's
/// fd_set and clashes with Swift's Glibc module).
static inline int sb_accept_nonblocking(int fd, struct sockaddr *address, socklen_t *length) {
    int client = accept(fd, address, length);
    if (client < 0) return client;
    int flags = fcntl(client, F_GETFL, 0);
    if (flags < 0 || fcntl(client, F_SETFL, flags | O_NONBLOCK) < 0 || fcntl(client, F_SETFD, FD_CLOEXEC) < 0) {
        close(client);
        return -1;
    }
    return client;
}
/// Names the calling thread (at most 15 bytes are kept), as `top -H`, `perf` and /proc show it.
static inline int sb_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
/// Turns on kernel receive timestamps (SO_TIMESTAMPNS) for `sb_recv_timestamped`.
static inline int sb_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}
/// recvmsg(2) of one datagram without blocking; `*received_ns` gets the kernel's receive time
/// (CLOCK_REALTIME nanoseconds) when the socket has SO_TIMESTAMPNS on, else 0.
static inline ssize_t sb_recv_timestamped(int fd, void *buffer, size_t length, struct sockaddr_storage *from,
                                          socklen_t *from_length, int64_t *received_ns) {
    struct iovec vector = { .iov_base = buffer, .iov_len = length };
    union { char bytes[CMSG_SPACE(sizeof(struct timespec))]; struct cmsghdr align; } control;
    struct msghdr message = {
        .msg_name = from, .msg_namelen = *from_length, .msg_iov = &vector, .msg_iovlen = 1,
        .msg_control = control.bytes, .msg_controllen = sizeof control.bytes,
    };
    ssize_t count = recvmsg(fd, &message, MSG_DONTWAIT);
    *received_ns = 0;
    if (count < 0) return count;
    *from_length = message.msg_namelen;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
            *received_ns = (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
        }
    }
    return count;
}
/// CLOCK_REALTIME in nanoseconds (the clock of SO_TIMESTAMPNS).
static inline int64_t sb_realtime_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}
static inline const struct in6_addr *sb_in6addr_loopback(void) { return &in6addr_loopback; }
static inline const struct in6_addr *sb_in6addr_any(void) { return &in6addr_any; }

static const uint32_t sb_EPOLLIN = EPOLLIN;
static const uint32_t sb_EPOLLOUT = EPOLLOUT;
static const uint32_t sb_EPOLLERR = EPOLLERR;
static const uint32_t sb_EPOLLHUP = EPOLLHUP;
static const uint32_t sb_EPOLLRDHUP = EPOLLRDHUP;
static const int sb_EFD_NONBLOCK = EFD_NONBLOCK;
static const int sb_EFD_CLOEXEC = EFD_CLOEXEC;
static const int sb_SOCK_NONBLOCK = SOCK_NONBLOCK;
static const int sb_SOCK_CLOEXEC = SOCK_CLOEXEC;
static const int sb_MSG_DONTWAIT = MSG_DONTWAIT;
static const int sb_MSG_NOSIGNAL = MSG_NOSIGNAL;

// glibc's stub resolver (libresolv): res_nquery and the ns_* parser, for NAPTR and SRV (RFC 3263).
// The ns_rr accessors are macros; they are wrapped here, as is pointing a res_state at one server.

/// A resolver state owned by the caller (heap allocated, freed with sb_res_free).
static inline res_state sb_res_new(void) {
    res_state state = (res_state)calloc(1, sizeof(struct __res_state));
    if (state && res_ninit(state) != 0) {
        free(state);
        return NULL;
    }
    return state;
}

static inline void sb_res_free(res_state state) {
    if (state) {
        res_nclose(state);
        free(state);
    }
}

/// Uses one IPv4 name server at `address:port` (network order), with a timeout in seconds and tries.
static inline void sb_res_set_server(res_state state, uint32_t address, uint16_t port, int timeout, int attempts) {
    state->nscount = 1;
    state->nsaddr_list[0].sin_family = AF_INET;
    state->nsaddr_list[0].sin_addr.s_addr = address;
    state->nsaddr_list[0].sin_port = port;
    state->retrans = timeout;
    state->retry = attempts;
}

static inline uint16_t sb_ns_rr_type(const ns_rr *rr) { return ns_rr_type(*rr); }
static inline uint16_t sb_ns_rr_class(const ns_rr *rr) { return ns_rr_class(*rr); }
static inline uint32_t sb_ns_rr_ttl(const ns_rr *rr) { return ns_rr_ttl(*rr); }
static inline uint16_t sb_ns_rr_rdlen(const ns_rr *rr) { return ns_rr_rdlen(*rr); }
static inline const unsigned char *sb_ns_rr_rdata(const ns_rr *rr) { return ns_rr_rdata(*rr); }
static inline const char *sb_ns_rr_name(const ns_rr *rr) { return ns_rr_name(*rr); }
static inline int sb_ns_msg_count(ns_msg handle, ns_sect section) { return ns_msg_count(handle, section); }
static inline const unsigned char *sb_ns_msg_base(ns_msg handle) { return ns_msg_base(handle); }
static inline const unsigned char *sb_ns_msg_end(ns_msg handle) { return ns_msg_end(handle); }

static const int sb_ns_t_a = ns_t_a;
static const int sb_ns_t_aaaa = ns_t_aaaa;
static const int sb_ns_t_srv = ns_t_srv;
static const int sb_ns_t_naptr = ns_t_naptr;
static const int sb_ns_c_in = ns_c_in;

#endif
