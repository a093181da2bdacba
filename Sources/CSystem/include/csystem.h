#ifndef SWITCHBOARD_CSYSTEM_H
#define SWITCHBOARD_CSYSTEM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

// Linux system interfaces that Glibc's Swift module does not export (epoll, eventfd, timerfd), plus
// small wrappers for macros.

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

static inline int sb_errno(void) { return errno; }
static inline int sb_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
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

#endif
