#include "core/command.h"

static const char *names[CMD__COUNT] = {
    [CMD_SET_CONCURRENCY] = "set_concurrency",
    [CMD_STEP] = "step",
    [CMD_DOUBLE] = "double",
    [CMD_HALVE] = "halve",
    [CMD_PAUSE] = "pause",
    [CMD_RESUME] = "resume",
    [CMD_DROP] = "drop",
    [CMD_MARK] = "mark",
    [CMD_STOP] = "stop",
};

const char *cmd_kind_name(enum cmd_kind k)
{
    return (unsigned)k < CMD__COUNT ? names[k] : "?";
}
