/*
 * Replays fuzz inputs without libFuzzer: every file named on the command
 * line, or every regular file in a directory named there, goes through
 * LLVMFuzzerTestOneInput once. The sanitizer builds use it to keep the seeds
 * and every committed crash input passing.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long size;

    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: %s: cannot size\n", path);
        fclose(f);
        return -1;
    }
    /* A copy of exactly size bytes, so ASan sees any read past the input. */
    buf = malloc(size ? (size_t)size : 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    free(buf);
    return 0;
}

static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    struct stat st;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "replay: %s: cannot open directory\n", dir);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (replay_file(path) != 0)
            rc = -1;
        (*count)++;
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    struct stat st;

    for (int i = 1; i < argc; i++) {
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            rc |= replay_dir(argv[i], &count);
        } else {
            rc |= replay_file(argv[i]);
            count++;
        }
    }
    if (count == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return 1;
    }
    printf("replay: %d inputs passed through\n", count);
    return rc ? 1 : 0;
}
