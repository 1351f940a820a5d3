#include "cmd/version.h"

#include "engine/engine.h"
#include "script/script.h"
#include "ui/ui.h"

#include "brink_commit.h"

/* One row a library. */
struct library {
    const char *name;
    const char *version;
};

int version_print(FILE *out)
{
    struct engine_versions ev;
    struct library libs[5];
    size_t n = 0;

    engine_versions(&ev);
    libs[n++] = (struct library){"libcurl", ev.curl};
    libs[n++] = (struct library){"libuv", ev.uv};
    libs[n++] = (struct library){"ncurses", ui_curses_version()};
    libs[n++] = (struct library){"OpenSSL", ev.openssl};
    libs[n++] = (struct library){"Lua", script_lua_version()};
    fprintf(out, "brink %s (commit %s)\n", BRINK_VERSION, BRINK_COMMIT);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-8s %s\n", libs[i].name, libs[i].version);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
