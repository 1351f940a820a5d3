/*
 * sigv4_tool: signs one request with brink's sigv4_sign and prints the
 * lines it adds, one a line, for tests/e2e/sigv4_botocore.py to compare
 * with botocore's. Credentials come from the environment, as brink's.
 *   sigv4_tool UNIX_TIME REGION SERVICE METHOD URL PAYLOAD [HEADER...]
 * PAYLOAD: "unsigned", "@FILE" (the body is the file), or "=TEXT".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sigv4.h"

static int hash_file(const char *path, char hex[SIGV4_HASH_HEX])
{
    FILE *f = fopen(path, "rb");
    char *body = NULL;
    size_t len = 0, cap = 0, n;

    if (!f)
        return -errno;
    do {
        if (len + 65536 > cap) {
            cap = 2 * (len + 65536);
            body = realloc(body, cap);
            if (!body)
                return -ENOMEM;
        }
        n = fread(body + len, 1, 65536, f);
        len += n;
    } while (n > 0);
    fclose(f);
    sigv4_payload_hash(body, len, hex);
    free(body);
    return 0;
}

int main(int argc, char **argv)
{
    struct sigv4_creds c;
    struct sigv4_request rq = {0};
    struct sigv4_out out;
    char hash[SIGV4_HASH_HEX];
    int rc;

    if (argc < 7) {
        fprintf(stderr,
                "usage: sigv4_tool UNIX_TIME REGION SERVICE METHOD URL PAYLOAD [HEADER...]\n");
        return 2;
    }
    c.access_key_id = getenv("AWS_ACCESS_KEY_ID");
    c.secret_access_key = getenv("AWS_SECRET_ACCESS_KEY");
    c.session_token = getenv("AWS_SESSION_TOKEN");
    c.region = argv[2];
    c.service = argv[3];
    if (!c.access_key_id || !c.secret_access_key) {
        fprintf(stderr, "sigv4_tool: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set\n");
        return 2;
    }
    if (strcmp(argv[6], "unsigned") == 0) {
        rq.payload_hash = SIGV4_UNSIGNED_PAYLOAD;
    } else if (argv[6][0] == '@') {
        if (hash_file(argv[6] + 1, hash) != 0) {
            fprintf(stderr, "sigv4_tool: cannot read %s\n", argv[6] + 1);
            return 2;
        }
        rq.payload_hash = hash;
    } else {
        sigv4_payload_hash(argv[6] + 1, strlen(argv[6] + 1), hash);
        rq.payload_hash = hash;
    }
    rq.method = argv[4];
    rq.url = argv[5];
    rq.url_len = strlen(argv[5]);
    rq.headers = (const char *const *)argv + 7;
    rq.n_headers = (size_t)(argc - 7);
    rc = sigv4_sign(&c, NULL, &rq, strtoll(argv[1], NULL, 10), &out);
    if (rc != 0) {
        fprintf(stderr, "sigv4_tool: sigv4_sign failed: %s\n", strerror(-rc));
        return 1;
    }
    for (size_t i = 0; i < out.n_lines; i++)
        printf("%s\n", out.lines[i]);
    return 0;
}
