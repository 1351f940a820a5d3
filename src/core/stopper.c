#include "core/stopper.h"

#include <errno.h>

#include "core/chan.h"
#include "core/command.h"

void stopper_init(struct stopper *s, uint64_t grace_ms)
{
    s->sent = 0;
    s->first_ns = 0;
    s->grace_ns = grace_ms * 1000000ULL;
}

int stopper_update(struct stopper *s, struct chan *ch, unsigned requested, uint64_t now_ns)
{
    while (s->sent < requested && s->sent < 2) {
        struct command cmd = {.kind = CMD_STOP};

        if (chan_send(ch, &cmd) != 0)
            break;
        s->sent++;
        if (!s->first_ns)
            s->first_ns = now_ns ? now_ns : 1;
    }
    if (s->first_ns && now_ns - s->first_ns > s->grace_ns)
        return -ETIMEDOUT;
    return 0;
}
