/*
 * Fuzzes the config loader. Properties, beyond not crashing or leaking:
 *   - config_load_string is total: it returns 0 or -EINVAL;
 *   - on error it wrote at least one line, and every line starts "brink: "
 *     and holds nothing unprintable (no control byte, no DEL);
 *   - on success it wrote nothing, and the configuration config_write
 *     prints reads back to the very same output (unless redaction changed
 *     a value, which is not meant to read back).
 */
#include "config/config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fuzz_getenv(const char *name, void *arg)
{
    static char long_value[600];

    (void)arg;
    if (strcmp(name, "A") == 0)
        return "http://h:8080";
    if (strcmp(name, "N") == 0)
        return "5";
    if (strcmp(name, "NL") == 0)
        return "a\nb";
    if (strcmp(name, "L") == 0) {
        memset(long_value, 'x', sizeof(long_value) - 1);
        return long_value;
    }
    return NULL;
}

static const struct config_opts opts = {.getenv = fuzz_getenv};

static void check_error_lines(const char *err, size_t len)
{
    const char *line = err;

    if (len == 0 || err[len - 1] != '\n')
        abort();
    while (line < err + len) {
        const char *end = memchr(line, '\n', (size_t)(err + len - line));

        if (strncmp(line, "brink: ", 7) != 0)
            abort();
        for (const char *p = line; p < end; p++) {
            if ((unsigned char)*p < ' ' || *p == 0x7F)
                abort();
        }
        line = end + 1;
    }
}

/* Loads text; returns the status, with what was reported in *err. */
static int load(struct config *c, const char *text, char **err, size_t *err_len)
{
    FILE *f = open_memstream(err, err_len);
    int rc;

    if (!f)
        abort();
    config_init(c);
    rc = config_load_string(c, "fuzz.ini", text, &opts, f);
    fclose(f);
    return rc;
}

static char *write_config(const struct config *c)
{
    char *out;
    size_t len;
    FILE *f = open_memstream(&out, &len);

    if (!f || config_write(c, f) != 0)
        abort();
    fclose(f);
    return out;
}

static void check_round_trip(const struct config *c)
{
    struct config again;
    char *first = write_config(c), *second, *err;
    size_t err_len;

    if (!strstr(first, "<redacted")) {
        if (load(&again, first, &err, &err_len) != 0)
            abort();
        second = write_config(&again);
        if (strcmp(first, second) != 0)
            abort();
        free(second);
        free(err);
        config_free(&again);
    }
    free(first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *err;
    struct config c;
    size_t err_len;
    int rc;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    rc = load(&c, text, &err, &err_len);
    if (rc == 0) {
        if (err_len != 0)
            abort();
        check_round_trip(&c);
    } else if (rc == -EINVAL) {
        check_error_lines(err, err_len);
    } else {
        abort();
    }
    config_free(&c);
    free(err);
    free(text);
    return 0;
}
