/*
 * html_style: the HTML page's one style sheet, inline in its <style>. The
 * colours c0 to c15 are the curves' (c0 the successes', c3 the failures',
 * html_internal.h); the print rules keep each chart and table on one page.
 */
#include "report/html_internal.h"

const char html__css[] =
    "body{font:14px/1.4 system-ui,sans-serif;color:#222;margin:1.5em auto;max-width:1000px;"
    "padding:0 1em}\n"
    "h1{font-size:1.5em;margin:0}h2{font-size:1.15em;margin:1.6em 0 .4em;border-bottom:1px solid #ccc}\n"
    ".meta{color:#555;margin:.2em 0}.pass{color:#1a7f37;font-weight:bold}"
    ".fail{color:#c0392b;font-weight:bold}\n"
    ".better{color:#1a7f37}.worse{color:#c0392b}\n"
    "table{border-collapse:collapse;margin:.4em 0;font-variant-numeric:tabular-nums}\n"
    "th,td{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:right;vertical-align:top}\n"
    "th{background:#f4f4f4}td.l,th.l{text-align:left}\n"
    "pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:12px}\n"
    "figure.chart{margin:1em 0}figcaption{font-weight:bold}.unit{font-weight:normal;color:#666}\n"
    "svg{width:100%;height:auto;display:block}\n"
    /* monospace: html_chart.c estimates each label's width from its length */
    "svg text{font:11px monospace;fill:#444}\n"
    ".grid{stroke:#e6e6e6}.axis,.tick{stroke:#888}\n"
    "path.s{fill:none;stroke-width:1.6}\n" /* round joins and caps cost 4x the paint */
    ".dash{stroke-dasharray:5 3}circle.p{stroke:#fff;stroke-width:1}\n"
    ".ev line{stroke-width:1;stroke-dasharray:2 2}.ev text{font-size:10px}\n"
    ".ev-level line{stroke:#666}.ev-mark line{stroke:#8e44ad}.ev-mark text{fill:#8e44ad}\n"
    ".ev-detection line{stroke:#c0392b}.ev-detection text{fill:#c0392b}\n"
    ".ev-alert line{stroke:#d35400}.ev-first_error line{stroke:#e67e22}\n"
    ".threshold line{stroke:#c0392b;stroke-dasharray:6 3}.threshold text{fill:#c0392b}\n"
    ".knee line{stroke:#2471a3;stroke-dasharray:4 3}.knee text{fill:#2471a3}\n"
    ".usl-peak line{stroke:#7d3c98;stroke-dasharray:2 3}.usl-peak text{fill:#7d3c98}\n"
    ".breaking circle{fill:none;stroke:#c0392b;stroke-width:2}.breaking text{fill:#c0392b}\n"
    ".legend{margin:.2em 0 0 74px;color:#444}.key{display:inline-block;width:18px;height:0;"
    "border-top:3px solid;vertical-align:middle;margin:0 4px 0 10px}.key.dash{border-top-style:dashed}\n"
    ".c0{stroke:#1f77b4;fill:#1f77b4;color:#1f77b4}.c1{stroke:#ff7f0e;fill:#ff7f0e;color:#ff7f0e}\n"
    ".c2{stroke:#2ca02c;fill:#2ca02c;color:#2ca02c}.c3{stroke:#d62728;fill:#d62728;color:#d62728}\n"
    ".c4{stroke:#9467bd;fill:#9467bd;color:#9467bd}.c5{stroke:#8c564b;fill:#8c564b;color:#8c564b}\n"
    ".c6{stroke:#e377c2;fill:#e377c2;color:#e377c2}.c7{stroke:#7f7f7f;fill:#7f7f7f;color:#7f7f7f}\n"
    ".c8{stroke:#bcbd22;fill:#bcbd22;color:#bcbd22}.c9{stroke:#17becf;fill:#17becf;color:#17becf}\n"
    ".c10{stroke:#393b79;fill:#393b79;color:#393b79}.c11{stroke:#637939;fill:#637939;color:#637939}\n"
    ".c12{stroke:#8c6d31;fill:#8c6d31;color:#8c6d31}.c13{stroke:#843c39;fill:#843c39;color:#843c39}\n"
    ".c14{stroke:#7b4173;fill:#7b4173;color:#7b4173}.c15{stroke:#3182bd;fill:#3182bd;color:#3182bd}\n"
    "path.s.c0,path.s.c1,path.s.c2,path.s.c3,path.s.c4,path.s.c5,path.s.c6,path.s.c7,path.s.c8,"
    "path.s.c9,path.s.c10,path.s.c11,path.s.c12,path.s.c13,path.s.c14,path.s.c15{fill:none}\n"
    "@media print{body{max-width:none;margin:0}figure.chart,table{break-inside:avoid}"
    "pre{white-space:pre-wrap}}\n";
