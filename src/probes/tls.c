/*
 * The TLS settings of HTTP probes, decided in one place: the [target]
 * keys, so a probe of the target's /stats over HTTPS trusts what its
 * requests trust. Pure; any thread.
 */
#include "probes/sampler.h"

void probes__tls_of(const struct config_target *t, const char *ssl_cert_file, struct probe_tls *out)
{
    out->is_insecure = t->insecure;
    out->ca_file = NULL;
    /* As the transports do: ca_file, else SSL_CERT_FILE (libcurl reads no
     * environment variable for its store), else libcurl's own. Nothing is
     * checked with insecure, so no store is named. */
    if (!t->insecure && t->ca_file.value)
        out->ca_file = t->ca_file.value;
    else if (!t->insecure && ssl_cert_file && ssl_cert_file[0])
        out->ca_file = ssl_cert_file;
    out->client_cert = t->client_cert.value;
    out->client_key = t->client_key.value;
    out->tls_min = t->tls_min;
}
