/*
 * html_agents: a run with agents in the HTML page, as the text report's
 * agents lines and the JSON's agents object say it: how many, the ticks
 * that missed one, and what each lost agent may have done after its last
 * tick in the merge (docs/agents.md, "Faults").
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/units.h"
#include "report/html_internal.h"
#include "report/internal.h"
#include "report/summary.h"

/* A duration cell, its µs in data-us for scripts. */
static void td_us(FILE *out, uint64_t us)
{
    char b[UNITS_FMT_MAX];

    fprintf(out, "<td data-us=\"%" PRIu64 "\">%s</td>", us,
            units_format_duration(us, b, sizeof(b)));
}

static void lost_row(FILE *out, const struct summary_lost *l)
{
    char b[REPORT_NUM_MAX];

    fputs("<tr><td class=\"l\">", out);
    html__text(out, l->name, TICK_NAME_MAX, REPORT_NAME_MAX);
    fputs("</td>", out);
    td_us(out, l->lost_at_us);
    if (!l->has_tick) {
        fputs("<td class=\"l\" colspan=\"6\">lost before any tick of it was merged: what it "
              "sent is counted nowhere</td></tr>\n",
              out);
        return;
    }
    td_us(out, l->last_end_us);
    td_us(out, l->until_us);
    td_us(out, l->until_us - l->last_end_us);
    fprintf(out, "<td>%s</td><td>%" PRIu32 "</td>", report__fmt_rate(l->rate_per_s, b),
            l->in_flight);
    fprintf(out, "<td data-n=\"%" PRIu64 "\">%s</td></tr>\n", l->requests,
            report__fmt_grouped(l->requests, b));
}

void html__agents(FILE *out, const struct summary *sum)
{
    struct summary_lost l;
    char n[REPORT_NUM_MAX];

    if (summary_n_agents(sum) == 0)
        return;
    fprintf(out, "<h2>Agents</h2>\n<p id=\"agents\">%" PRIu32 " agents; ", summary_n_agents(sum));
    if (summary_partial_ticks(sum) == 0)
        fputs("every tick whole.</p>\n", out);
    else
        fprintf(out, "partial ticks (an agent's figures missing): %s.</p>\n",
                report__fmt_grouped(summary_partial_ticks(sum), n));
    if (summary_n_lost(sum) == 0)
        return;
    fputs("<table id=\"lost\"><tr><th class=\"l\">lost agent</th><th>lost at</th>"
          "<th>last tick end</th><th>until</th><th>interval</th><th>last req/s</th>"
          "<th>in flight</th><th>uncounted requests</th></tr>\n",
          out);
    for (uint32_t i = 0; summary_lost(sum, i, &l) == 0; i++)
        lost_row(out, &l);
    fputs("</table>\n<p class=\"meta\">A lost agent's requests after its last tick are in no "
          "figure of this page. Uncounted requests is an estimate that bounds them only if the "
          "agent kept its last tick's pace: its last rate (requests completed with any outcome) "
          "plus one a second per request in flight, over the interval, rounded up, plus twice "
          "the requests in flight.</p>\n",
          out);
}
