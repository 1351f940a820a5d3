/*
 * tlscert: the certificate and key `brink target --tls` serves, as PEM text
 * for libmicrohttpd: a self-signed one made in memory at start, or the
 * files given with --cert and --key, checked here so a bad file is named
 * with what is wrong before the server starts. Internal to the target
 * module; uses OpenSSL's libcrypto only (libmicrohttpd itself does TLS
 * with GnuTLS). Any thread; no state between calls.
 */
#ifndef BRINK_TARGET_TLSCERT_H
#define BRINK_TARGET_TLSCERT_H

#include <stddef.h>
#include <stdint.h>

/* Certificate files and key files larger than this are refused. */
#define TLSCERT_MAX_BYTES (1024 * 1024)

/* Lifetime of a self-signed certificate: from an hour before it is made
 * (clocks differ a little), for 7 days. */
#define TLSCERT_SELF_BEFORE_S 3600
#define TLSCERT_SELF_VALID_S (7 * 24 * 3600)

/* A certificate (chain) and its private key, NUL-terminated PEM text. */
struct tlscert_pem {
    char *cert; /* owned; "-----BEGIN CERTIFICATE-----..." */
    char *key;  /* owned; an unencrypted private key */
};

/*
 * Makes a self-signed certificate with a new EC P-256 key: subject and
 * issuer CN "brink target", subject alternative names localhost,
 * 127.0.0.1 and ::1, valid from now_s - TLSCERT_SELF_BEFORE_S for
 * TLSCERT_SELF_VALID_S (now_s: seconds since the epoch). Returns 0 with *out
 * filled (free it with tlscert_pem_free), or -ENOMEM / -EIO with why in err
 * (OpenSSL's reason).
 */
int tlscert_self_signed(int64_t now_s, struct tlscert_pem *out, char *err, size_t err_len);

/*
 * Reads a PEM certificate (chain) from cert_path and a PEM private key
 * from key_path, both regular files of at most TLSCERT_MAX_BYTES, and
 * checks that the first certificate and the key belong together. Returns
 * 0 with *out filled (the files' text, free it with tlscert_pem_free), or a
 * negative errno with one line in err naming the option and the file:
 *   "--cert FILE: cannot open: No such file or directory"
 *   "--cert FILE: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)"
 *   "--key FILE: no PEM private key in it (expected -----BEGIN PRIVATE KEY-----)"
 *   "--key FILE: the key is encrypted: give it unencrypted (openssl pkey -in FILE)"
 *   "--key FILE: does not match the certificate of --cert FILE"
 * (file names escaped for display).
 */
int tlscert_load(const char *cert_path, const char *key_path, struct tlscert_pem *out, char *err,
                 size_t err_len);

/*
 * Writes pem to path (created with mode 0644, or truncated), for clients
 * that trust it (ca_file, curl --cacert). Returns 0, or a negative errno
 * with "--cert-out FILE: REASON" in err.
 */
int tlscert_write(const char *path, const char *pem, char *err, size_t err_len);

/* Frees both texts (the key is wiped first); NULL or an empty one is fine. */
void tlscert_pem_free(struct tlscert_pem *p);

#endif
