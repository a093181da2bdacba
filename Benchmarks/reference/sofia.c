#include <sofia-sip/msg.h>
#include <sofia-sip/sip.h>
#include <sofia-sip/sip_header.h>
#include <sofia-sip/sip_parser.h>
#include <stdlib.h>
#include <string.h>

#include "parsers.h"

static size_t len(const char *s) { return s ? strlen(s) : 0; }

/* sofia-sip: msg_make parses the message; the headers are read through sip_t. */
size_t sofia_access(const struct file *f) {
    size_t sum = 0;
    msg_t *msg = msg_make(sip_default_mclass(), 0, f->bytes, (isize_t)f->size);
    sip_t *sip = msg ? sip_object(msg) : NULL;
    if (!sip) {
        if (msg) msg_destroy(msg);
        return 1;
    }
    if (sip->sip_via)
        sum += len(sip->sip_via->v_host) + (sip->sip_via->v_port ? (size_t)atoi(sip->sip_via->v_port) : 0) +
               len(sip->sip_via->v_branch);
    if (sip->sip_from) sum += len(sip->sip_from->a_url->url_user) + len(sip->sip_from->a_url->url_host) + len(sip->sip_from->a_tag);
    if (sip->sip_to) sum += len(sip->sip_to->a_url->url_user) + len(sip->sip_to->a_url->url_host) + len(sip->sip_to->a_tag);
    if (sip->sip_cseq) sum += sip->sip_cseq->cs_seq + len(sip->sip_cseq->cs_method_name);
    if (sip->sip_call_id) sum += len(sip->sip_call_id->i_id);
    if (sip->sip_contact)
        sum += len(sip->sip_contact->m_url->url_host) +
               (sip->sip_contact->m_url->url_port ? (size_t)atoi(sip->sip_contact->m_url->url_port) : 0);
    msg_destroy(msg);
    return sum;
}

