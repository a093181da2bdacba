#include <osipparser2/osip_parser.h>
#include <stdlib.h>
#include <string.h>

#include "parsers.h"

static size_t len(const char *s) { return s ? strlen(s) : 0; }

/* oSIP: osip_message_parse builds the whole structure. */
size_t osip_access(const struct file *f) {
    size_t sum = 0;
    osip_message_t *sip = NULL;
    if (osip_message_init(&sip) != 0) return 1;
    if (osip_message_parse(sip, f->bytes, f->size) != 0) {
        osip_message_free(sip);
        return 1;
    }
    osip_via_t *via = NULL;
    if (osip_message_get_via(sip, 0, &via) >= 0 && via) {
        osip_generic_param_t *branch = NULL;
        osip_via_param_get_byname(via, "branch", &branch);
        sum += len(via->host) + (via->port ? (size_t)atoi(via->port) : 0) + (branch ? len(branch->gvalue) : 0);
    }
    osip_from_t *ends[2] = {sip->from, sip->to};
    for (int i = 0; i < 2; i++) {
        if (!ends[i]) continue;
        osip_generic_param_t *tag = NULL;
        osip_from_param_get_byname(ends[i], "tag", &tag);
        if (ends[i]->url) sum += len(ends[i]->url->username) + len(ends[i]->url->host);
        sum += tag ? len(tag->gvalue) : 0;
    }
    if (sip->cseq) sum += (size_t)atoi(sip->cseq->number) + len(sip->cseq->method);
    if (sip->call_id) sum += len(sip->call_id->number) + len(sip->call_id->host);
    osip_contact_t *contact = NULL;
    if (osip_message_get_contact(sip, 0, &contact) >= 0 && contact && contact->url)
        sum += len(contact->url->host) + (contact->url->port ? (size_t)atoi(contact->url->port) : 0);
    osip_message_free(sip);
    return sum;
}

void osip_setup(void) { parser_init(); }
