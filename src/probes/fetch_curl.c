/*
 * HTTP fetches for json, text and prometheus probes: one blocking libcurl
 * easy transfer in libuv's thread pool, so the probe loop never waits on a
 * slow endpoint. The answer is capped at PROBE_BODY_MAX; a stop aborts a
 * transfer in progress through the progress callback. The work function
 * touches only its struct fetch (the loop thread reads it after).
 */
#include "probes/sampler.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container.h"
#include "core/xalloc.h"

struct body {
    char *data;
    size_t len;
    size_t cap;
    int is_too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
    struct body *b = arg;
    size_t add = size * n;

    if (b->len + add > PROBE_BODY_MAX) {
        b->is_too_big = 1;
        return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
    }
    if (b->len + add + 1 > b->cap) {
        while (b->len + add + 1 > b->cap)
            b->cap = b->cap ? b->cap * 2 : 16384;
        b->data = xrealloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, p, add);
    b->len += add;
    b->data[b->len] = '\0';
    return add;
}

static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    const struct fetch *f = arg;

    (void)a, (void)b, (void)c, (void)d;
    return atomic_load(f->is_stopping); /* non-zero aborts */
}

static struct curl_slist *headers_of(const struct config_probe *cfg)
{
    struct curl_slist *list = NULL;

    for (uint32_t i = 0; i < cfg->n_headers; i++)
        list = curl_slist_append(list, cfg->headers[i].value);
    return list;
}

static const long tls_versions[] = {
    [CONFIG_TLS_1_0] = CURL_SSLVERSION_TLSv1_0,
    [CONFIG_TLS_1_1] = CURL_SSLVERSION_TLSv1_1,
    [CONFIG_TLS_1_2] = CURL_SSLVERSION_TLSv1_2,
    [CONFIG_TLS_1_3] = CURL_SSLVERSION_TLSv1_3,
};

/* What probes__tls_of decided, on h. */
static void set_tls(CURL *h, const struct probe_tls *tls)
{
    if (tls->is_insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (tls->ca_file) {
        curl_easy_setopt(h, CURLOPT_CAINFO, tls->ca_file);
        /* Debian's libcurl also names /etc/ssl/certs: the file alone is trusted. */
        curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
    }
    if (tls->client_cert)
        curl_easy_setopt(h, CURLOPT_SSLCERT, tls->client_cert);
    if (tls->client_key)
        curl_easy_setopt(h, CURLOPT_SSLKEY, tls->client_key);
    curl_easy_setopt(h, CURLOPT_SSLVERSION, tls_versions[tls->tls_min]);
}

static void set_options(CURL *h, struct fetch *f, struct body *b, char *errbuf,
                        struct curl_slist *headers)
{
    const struct config_probe *cfg = f->cfg;

    curl_easy_setopt(h, CURLOPT_URL, cfg->url.value);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROXY, ""); /* probes go where the config says */
    /* A lookup that outlives its timeout (a DNS server that never answers)
     * is left to end on libcurl's resolver thread: joining it would hold
     * this pool thread, and with it the probe loop's end and a stop, for
     * the lookup's full length. */
    curl_easy_setopt(h, CURLOPT_QUICK_EXIT, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(cfg->timeout_us / 1000));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->timeout_us / 1000));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, f);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "brink-probe");
    set_tls(h, f->tls);
}

/* Thread pool: the transfer, into f->res. */
static void work(uv_work_t *w)
{
    struct fetch *f = container_of(w, struct fetch, work);
    struct body b = {0};
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = headers_of(f->cfg);
    CURL *h = curl_easy_init();
    CURLcode rc;
    long status = 0;

    memset(&f->res, 0, sizeof(f->res));
    if (!h) {
        f->res.rc = -ENOMEM;
        snprintf(f->res.why, sizeof(f->res.why), "cannot make a libcurl handle");
        curl_slist_free_all(headers);
        return;
    }
    set_options(h, f, &b, errbuf, headers);
    rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    if (rc == CURLE_OK && status >= 400) {
        f->res.rc = -EPROTO;
        snprintf(f->res.why, sizeof(f->res.why), "HTTP %ld", status);
    } else if (rc != CURLE_OK) {
        f->res.rc = -EIO;
        if (b.is_too_big)
            snprintf(f->res.why, sizeof(f->res.why), "answer larger than %u MiB",
                     PROBE_BODY_MAX >> 20);
        else
            tick_copy_text(f->res.why, sizeof(f->res.why),
                           errbuf[0] ? errbuf : curl_easy_strerror(rc));
    } else {
        f->res.text = b.data ? b.data : xcalloc(1, 1);
        f->res.len = b.len;
        b.data = NULL;
    }
    free(b.data);
}

/* Loop thread: hand the result over. */
static void after_work(uv_work_t *w, int status)
{
    struct fetch *f = container_of(w, struct fetch, work);
    struct source *src = container_of(f, struct source, fetch);

    if (status == UV_ECANCELED) {
        memset(&f->res, 0, sizeof(f->res));
        f->res.rc = -ECANCELED;
        snprintf(f->res.why, sizeof(f->res.why), "cancelled");
    }
    probes__source_done(src, &f->res);
}

int probes__fetch_http_start(struct source *src)
{
    return uv_queue_work(&src->ps->loop, &src->fetch.work, work, after_work);
}
