#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <re.h>
#include <stdlib.h>
#include <string.h>

#include "parsers.h"

/* libre: sip_msg_decode over an mbuf; values are pointer-length views. */
size_t re_access(const struct file *f) {
    size_t sum = 0;
    struct mbuf *mb = mbuf_alloc(f->size);
    struct sip_msg *msg = NULL;
    if (!mb) return 1;
    mbuf_write_mem(mb, (const uint8_t *)f->bytes, f->size);
    mb->pos = 0;
    if (sip_msg_decode(&msg, mb)) {
        mem_deref(mb);
        return 1;
    }
    sum += msg->via.sentby.l + sa_port(&msg->via.addr) + msg->via.branch.l;
    sum += msg->from.uri.user.l + msg->from.uri.host.l + msg->from.tag.l;
    sum += msg->to.uri.user.l + msg->to.uri.host.l + msg->to.tag.l;
    sum += msg->cseq.num + msg->cseq.met.l;
    sum += msg->callid.l;
    const struct sip_hdr *contact = sip_msg_hdr(msg, SIP_HDR_CONTACT);
    if (contact) {
        struct sip_addr addr;
        if (!sip_addr_decode(&addr, &contact->val)) sum += addr.uri.host.l + addr.uri.port;
    }
    mem_deref(msg);
    mem_deref(mb);
    return sum;
}

void re_setup(void) {
    if (libre_init()) abort();
}

void re_teardown(void) { libre_close(); }
