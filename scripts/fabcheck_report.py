"""The HTML report of one or more fabcheck runs: one self-contained page (CSS inline, every plot an
inline base64 PNG, no network), verdict and findings first, then the plots.

Used by scripts/fabcheck-report; build_report(runs) returns the page as text. Every plot is a
<figure class="plot" id="fig-..."> holding one <img>; the page's inline script marks each figure
data-loaded="1" once its image has decoded, and the body data-plots="N" with the count.
"""
import base64
import html
import io
import math
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch, Rectangle  # noqa: E402

import fabcheck_plot_check  # noqa: E402

SEVERITY_ORDER = ("fail", "error", "warn", "waived", "pass")
VERDICT_ORDER = ("fail", "incomplete", "warn", "pass")  # worst first
COLORS = {"fail": "#c62828", "error": "#6a1b9a", "incomplete": "#6a1b9a", "warn": "#f9a825",
          "waived": "#757575", "pass": "#2e7d32"}
P2P_METRICS = ("ce_bw", "sm_write_bw", "sm_read_bw", "ce_bidir_bw", "sm_bidir_bw")
LATENCY_METRIC = re.compile(r"^(?P<pre>.*?)_?p(?P<pct>50|90|99|999|9999)_us(?P<post>.*)$")
MAX_DISTRIBUTIONS = 12
SHADED_LINES = 4  # a curve's spread is shaded up to this many lines, its far edge dotted beyond
PLACEMENTS = {"in": "in-place", "out": "out-of-place"}  # the records' params["placement"]
MAX_P2P_HOSTS = 4  # beyond it, heat maps of the hosts the findings name (and one for reference)

plt.rcParams.update({"font.size": 8, "axes.titlesize": 9, "axes.labelsize": 8,
                     "legend.fontsize": 7, "figure.dpi": 90, "axes.grid": True,
                     "grid.alpha": 0.3})


# ---------------------------------------------------------------------------------------- helpers

def esc(text):
    return html.escape(str(text), quote=True)


def format_size(size):
    if size is None:
        return ""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            value = size / (1 << shift)
            return f"{value:g}{unit}" if value == int(value) else f"{value:.1f}{unit}"
    return f"{size}B"


def parse_size(text):
    match = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*", str(text), re.IGNORECASE)
    if not match:
        return None
    return int(match.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[match.group(2).upper()]


def slug(*parts):
    text = "-".join(str(p) for p in parts if p not in (None, ""))
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def ok(measurements):
    return [m for m in measurements if m["status"] == "ok" and m["value"] is not None]


def figure_html(fig, fig_id, caption, kind):
    """The figure as an inline PNG, with what fabcheck_plot_check measured on it as data-* (points
    cut off, points under the legend, the legend's labels, the smallest text in the plots)."""
    checked = fabcheck_plot_check.check_figure(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    smallest = "" if checked["min_text_pt"] is None else f"{checked['min_text_pt']:g}"
    return (f'<figure class="plot" id="{esc(fig_id)}" data-kind="{esc(kind)}" data-cut="{checked["cut"]}" '
            f'data-covered="{checked["covered"]}" data-legend="{esc(" | ".join(checked["legend"]))}" '
            f'data-min-text-pt="{smallest}">'
            f'<img alt="{esc(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>\n")


def gpu_index(name):
    match = re.search(r"(\d+)$", name)
    return (int(match.group(1)) if match else 1 << 30, name)


def worst_verdict(verdicts):
    for verdict in VERDICT_ORDER:
        if verdict in verdicts:
            return verdict
    return "incomplete"


def matches_finding(finding, m):
    """A finding judges this measurement: same probe, metric, host, subject and size, and (a
    finding copies the value it judged) the same value where it has one."""
    if (finding["probe"], finding["metric"]) != (m["probe"], m["metric"]):
        return False
    if finding["host"] not in ("", m["host"]) or finding["subject"] not in ("", m["subject"]):
        return False
    if finding["size_bytes"] is not None and finding["size_bytes"] != m["size_bytes"]:
        return False
    observed = finding["observed"]
    return observed is None or math.isclose(observed, m["value"], rel_tol=1e-9, abs_tol=1e-12)


class Missing:
    """A section with nothing to show: what it would have shown and why not (the page lists these
    on one line instead of printing each section empty)."""

    def __init__(self, what, why):
        self.what, self.why = what, why


def why_not_measured(runs, probes):
    """Why `probes` left nothing to draw, as the records say it: the reasons they were waived
    (summary.json's probes.waived, the waived findings), their errors, the messages of their
    records that are not ok; else whether they ran at all."""
    reasons = []

    def add(text, core=None):  # once: a message already inside a reason (a waived record's) is not repeated
        if text and not any((core or text) in reason for reason in reasons):
            reasons.append(text)

    ran = set()
    for run in runs:
        listed = (run.summary or {}).get("probes") or {}
        ran |= set(listed.get("run", [])) & set(probes)
        for waived in listed.get("waived", []):
            if waived.get("id") in probes:
                add(f"{waived['id']} waived: {waived.get('reason', '')}")
        for errored in listed.get("errored", []):
            if errored.get("id") in probes:
                add(f"{errored['id']} errored: {errored.get('message', '')}")
        for f in run.findings:
            if f["probe"] in probes and f["severity"] == "waived" and not any(r.startswith(f["probe"] + " waived") for r in reasons):
                add(f["message"])
        for m in run.measurements:
            if m["probe"] in probes and m["status"] != "ok" and m["message"]:
                add(f"{m['probe']}: {m['message']}", m["message"])
    if not reasons:
        missing = [p for p in probes if p not in ran]
        add(f"{' and '.join(missing)} did not run" if missing else "it ran and recorded nothing to draw")
    return "; ".join(reasons)


class Source:
    """A measurement or finding with the run it came from."""

    def __init__(self, run, record):
        self.run, self.record = run, record


def tagged(runs, attribute):
    out = []
    for run in runs:
        for record in getattr(run, attribute):
            record = dict(record)
            record["_run"] = run.name
            out.append(record)
    return out


def node_of(m):
    """The node a figure belongs to: its host (a combined figure of a one-host run names it)."""
    return m["host"]


# ------------------------------------------------------------------------------------------ tiers

def load_tiers(runs):
    """[[path]] tiers of the profiles the runs were judged with, when their files are readable
    here: [{probe, metric, min_size, max_size, expect, tiers: [{name, min, max}]}], and notes on
    any profile that could not be read."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return [], ["tiers not drawn: this Python has no tomllib"]
    paths, notes, seen = [], [], set()
    for run in runs:
        profile = (run.summary or {}).get("profile") or {}
        file = profile.get("path") or ""
        if not file or file in seen:
            continue
        seen.add(file)
        try:
            with open(file, "rb") as stream:
                document = tomllib.load(stream)
        except (OSError, ValueError) as error:
            notes.append(f"tiers not drawn for profile {profile.get('name', '')}: {file}: {error}")
            continue
        for path in document.get("path", []) or []:
            if not isinstance(path, dict):
                continue
            tiers = [t for t in path.get("tier", []) or [] if isinstance(t, dict)
                     and isinstance(t.get("min"), (int, float)) and isinstance(t.get("max"), (int, float))]
            if not tiers:
                continue
            low, high = None, None
            if isinstance(path.get("sizes"), str) and ":" in path["sizes"]:
                low, high = (parse_size(part) for part in path["sizes"].split(":")[:2])
            divide = path.get("divide_by", 1) if isinstance(path.get("divide_by"), (int, float)) else 1
            for figure in path.get("figures", []) or []:
                if not isinstance(figure, str) or "/" not in figure:
                    continue
                probe, metric = figure.split("/", 1)
                paths.append({"name": path.get("name", ""), "probe": probe, "metric": metric,
                              "min_size": low, "max_size": high, "expect": path.get("expect", ""),
                              "divide_by": divide, "tiers": tiers})
    return paths, notes


def draw_tiers(ax, tiers, probe, metric, x_low, x_high):
    drawn = []
    palette = ["#1565c0", "#00838f", "#6d4c41", "#5e35b1", "#ad1457"]
    for path in tiers:
        if path["probe"] != probe or path["metric"] != metric:
            continue
        left = max(x_low, path["min_size"] or x_low)
        right = min(x_high, path["max_size"] or x_high)
        if right < left:
            continue
        for index, tier in enumerate(path["tiers"]):
            low, high = tier["min"] * path["divide_by"], tier["max"] * path["divide_by"]
            expected = tier.get("name") == path["expect"]
            ax.add_patch(Rectangle((left, low), right - left, high - low,
                                   facecolor=palette[index % len(palette)],
                                   alpha=0.16 if expected else 0.07, edgecolor="none", zorder=0))
            ax.text(right, (low + high) / 2, f" {tier.get('name', '')}" + (" (expected)" if expected else ""),
                    fontsize=8, va="center", ha="left", color=palette[index % len(palette)],
                    clip_on=False)
            drawn.append(tier.get("name", ""))
    return drawn


# --------------------------------------------------------------------------------------- sections

def header_section(runs):
    verdicts = [run.verdict for run in runs]
    verdict = worst_verdict(verdicts)
    counts = {severity: 0 for severity in SEVERITY_ORDER}
    for run in runs:
        for severity in SEVERITY_ORDER:
            counts[severity] += int(((run.summary or {}).get("counts") or {}).get(severity, 0))
    hosts = sorted({h for run in runs for h in (run.summary or {}).get("hosts", [])})
    first = runs[0].summary or {}
    scope = (f"run {esc(runs[0].name)} · {esc(first.get('plan') or 'probes')} · started {esc(first.get('started_utc', '?'))}"
             if len(runs) == 1
             else f"{len(runs)} runs ({', '.join(f'{v}: {verdicts.count(v)}' for v in VERDICT_ORDER if v in verdicts)})")
    count_text = " · ".join(f'<span class="sev-{s}">{counts[s]} {s}</span>' for s in SEVERITY_ORDER)
    reason = ""
    if len(runs) == 1 and runs[0].summary and runs[0].summary.get("incomplete_reason"):
        reason = f'<p class="reason">incomplete: {esc(runs[0].summary["incomplete_reason"])}</p>'
    out = [f'<header id="verdict" class="verdict verdict-{verdict}" data-verdict="{verdict}">'
           f'<div class="verdict-word">{verdict.upper()}</div>'
           f'<div class="verdict-detail"><div>{scope} · {len(hosts)} host(s): {esc(", ".join(hosts[:12]))}'
           f'{" …" if len(hosts) > 12 else ""}</div><div>{count_text}</div>{reason}</div></header>']
    if len(runs) > 1:
        rows = []
        for run in runs:
            summary = run.summary or {}
            counts = summary.get("counts") or {}
            rows.append(f'<tr><td><a href="#run-{esc(slug(run.name))}">{esc(run.name)}</a></td>'
                        f'<td class="sev-{run.verdict}"><b>{run.verdict.upper()}</b></td>'
                        f'<td>{esc(", ".join(summary.get("hosts", [])))}</td>'
                        f'<td>{counts.get("fail", 0)}</td><td>{counts.get("warn", 0)}</td>'
                        f'<td>{counts.get("error", 0)}</td><td>{esc(summary.get("started_utc", ""))}</td></tr>')
        out.append('<table class="runs"><tr><th>run</th><th>verdict</th><th>hosts</th><th>fail</th>'
                   '<th>warn</th><th>error</th><th>started</th></tr>' + "".join(rows) + "</table>")
    return "\n".join(out)


def finding_detail(f):
    return "".join(f"<div><i>{label}:</i> {esc(f[key])}</div>"
                   for key, label in (("evidence", "evidence"), ("remedy", "remedy"),
                                      ("source", "expected from")) if f.get(key))


def finding_rows(group, severity, many, collapse_from=4):
    """Rows subject first; a probe's metric judged the same way on `collapse_from` subjects or more
    of one host (14 GPU pairs of one node) is one row listing the subjects, every message inside."""
    buckets = {}
    for f in group:
        buckets.setdefault((f["_run"], f["host"], f["probe"], f["metric"]), []).append(f)
    rows = []
    for key, members in buckets.items():
        members.sort(key=lambda f: (gpu_index(f["subject"]), f["size_bytes"] or 0))
        if len(members) < collapse_from:
            rows += [(f["subject"], [f]) for f in members]
        else:
            rows.append((members[0]["subject"], members))
    rows.sort(key=lambda row: (row[0], row[1][0]["host"], row[1][0]["probe"], row[1][0]["metric"]))
    out = []
    for _, members in rows:
        f = members[0]
        sizes = sorted({m["size_bytes"] for m in members if m["size_bytes"] is not None})
        where = " · ".join(x for x in (f["probe"], f["metric"], ", ".join(format_size(z) for z in sizes)) if x)
        if len(members) == 1:
            subject = esc(f["subject"] or "—")
            message = esc(f["message"])
            detail = finding_detail(f)
            summary = "evidence, remedy"
        else:
            subjects = []
            for m in members:
                if m["subject"] not in subjects:
                    subjects.append(m["subject"])
            subject = esc(", ".join(subjects)) + f' <span class="count">({len(members)} findings)</span>'
            message = esc(f["message"]) + f" <i>and {len(members) - 1} more like it</i>"
            detail = "".join(f"<div>{esc(m['message'])}</div>" for m in members) + finding_detail(f)
            summary = f"all {len(members)} messages, evidence, remedy"
        out.append(f'<tr class="finding sev-row-{severity}"><td class="subject">{subject}</td>'
                   f'<td>{esc(f["host"])}</td>' + (f'<td class="run">{esc(f["_run"])}</td>' if many else "")
                   + f'<td class="where">{esc(where)}</td><td>{message}'
                   + (f"<details><summary>{summary}</summary>{detail}</details>" if detail else "")
                   + "</td></tr>")
    return out


def findings_section(runs):
    findings = tagged(runs, "findings")
    many = len(runs) > 1
    out = ['<section id="findings"><h2>Findings</h2>']
    if not findings:
        out.append("<p>No findings: nothing was judged.</p>")
    elif not any(f["severity"] in ("fail", "error", "warn") for f in findings):
        out.append('<p class="clean">Nothing needs attention: no FAIL, ERROR or WARN finding.</p>')
    for severity in SEVERITY_ORDER:
        group = [f for f in findings if f["severity"] == severity]
        if not group:
            continue
        rows = finding_rows(group, severity, many)
        table = ('<table class="findings"><tr><th>subject</th><th>host</th>' + ("<th>run</th>" if many else "")
                 + "<th>probe · metric · size</th><th>message</th></tr>" + "".join(rows) + "</table>")
        title = f'<span class="sev-{severity}">{severity.upper()}</span> ({len(group)})'
        if severity in ("pass", "waived"):
            out.append(f'<details class="group" id="findings-{severity}"><summary><h3>{title}</h3></summary>{table}</details>')
        else:
            out.append(f'<div class="group" id="findings-{severity}"><h3>{title}</h3>{table}</div>')
    out.append("</section>")
    return "\n".join(out)


def line_label(key, varying):
    run, host, subject, metric, placement = key
    pair = "--" in subject  # a node pair names its hosts
    parts = [host if varying[1] and not pair else "", subject if varying[2] and subject != "world" else "",
             metric if varying[3] else "", PLACEMENTS.get(placement, placement) if varying[4] else ""]
    if varying[0] and not any(parts):
        parts.insert(0, run)
    return " ".join(p for p in parts if p) or metric


def draw_lines(ax, lines, flagged, most=10, bands=None, band_label=""):
    """One line per key; beyond `most` lines, grey ones and only those with a WARN/FAIL finding
    coloured and named. bands: key -> {x: (low, high)}, shaded in the line's colour around the
    coloured lines (up to SHADED_LINES lines; beyond, the band's far edge dotted); returns whether
    any band was drawn."""
    keys = sorted(lines)
    varying = [len({k[i] for k in keys}) > 1 for i in range(5)]
    crowded = len(keys) > most
    grey = 0
    banded = False
    for key in keys:
        points = sorted(lines[key])
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        is_flagged = (key[0], key[1], key[2], key[3]) in flagged
        if crowded and not is_flagged:
            ax.plot(xs, ys, color="#9e9e9e", linewidth=0.7, alpha=0.6, zorder=1)
            grey += 1
            continue
        (line,) = ax.plot(xs, ys, marker=".", linewidth=1.6 if is_flagged else 1.2, label=line_label(key, varying), zorder=3)
        spread = [(x, *(bands or {}).get(key, {})[x]) for x in xs if x in (bands or {}).get(key, {})]
        if len(spread) >= 2 and len(keys) > SHADED_LINES:  # many shades stack to grey: the far edge dotted
            far = [p[1] if p[2] == dict(points)[p[0]] else p[2] for p in spread]
            ax.plot([p[0] for p in spread], far, color=line.get_color(), linestyle=":", linewidth=0.9, zorder=2)
            banded = True
        elif len(spread) >= 2:
            ax.fill_between([p[0] for p in spread], [p[1] for p in spread], [p[2] for p in spread],
                            color=line.get_color(), alpha=0.18, linewidth=0, zorder=2)
            banded = True
        elif spread:
            x, low, high = spread[0]
            ax.errorbar([x], [(low + high) / 2], yerr=[[(high - low) / 2], [(high - low) / 2]],
                        color=line.get_color(), linewidth=0.9, capsize=2, zorder=2)
            banded = True
    if grey:
        ax.plot([], [], color="#9e9e9e", linewidth=0.7, label=f"{grey} more without findings")
    if banded and band_label:
        if len(keys) > SHADED_LINES:
            ax.plot([], [], color="#616161", linestyle=":", linewidth=0.9, label=band_label)
        else:
            ax.fill_between([], [], [], color="#616161", alpha=0.25, linewidth=0, label=band_label)
    return banded


def spread_of(m, time_stats):
    """(low, high) of a measurement's samples as a band around its line, or None: for time, median
    to p99; for a bandwidth from timed operations, the bandwidth at the p99 time up to the median
    (time_stats: the stats of the time_us record of the same operation); for a bandwidth with
    its own samples' stats (copies), the slowest sample up to the median."""
    value = m["value"]
    stats = m.get("stats") or {}
    if m["unit"] == "us":
        return (value, stats["p99"]) if stats.get("p99") is not None else None
    if time_stats and time_stats.get("p99") and time_stats.get("median"):
        return value * time_stats["median"] / time_stats["p99"], value
    if stats.get("min") is not None:
        return stats["min"], value
    return None


def limit_marks(ax, findings, probe, metric):
    """The limits the findings judged `metric` of `probe` against (expected: pass at or below,
    warn_at: WARN up to it), a short bar at each judged size; the limits drawn, as text."""
    judged = {}
    for f in findings:
        if f["probe"] == probe and f["metric"] == metric and f["size_bytes"] and f["expected"] is not None:
            judged.setdefault(f["size_bytes"], (f["expected"], f["warn_at"]))
    if not judged:
        return ""
    xs = sorted(judged)
    ax.hlines([judged[x][0] for x in xs], [x / 1.5 for x in xs], [x * 1.5 for x in xs], colors="black",
              linestyles="--", linewidth=1.2, label="limit (pass at or below)", zorder=4)
    warned = [x for x in xs if judged[x][1] is not None]
    if warned:
        ax.hlines([judged[x][1] for x in warned], [x / 1.5 for x in warned], [x * 1.5 for x in warned],
                  colors=COLORS["fail"], linestyles=":", linewidth=1.2, label="WARN up to", zorder=4)
    values = sorted({judged[x][0] for x in xs})
    return (f"limit from the findings: {metric} pass at or below {', '.join(f'{v:g}' for v in values)} "
            f"{'µs' if metric.endswith('_us') else ''} at {', '.join(format_size(x) for x in xs)}").replace("  ", " ")


def curves_section(runs, tiers):
    """Bandwidth against size for every probe measured at two sizes or more (node pairs too: one
    line per pair), each line with the spread of its samples, expected values and the warn band
    from the findings, tier bands from the profile; time per operation with its p99 and the
    limits the findings judged it against."""
    measurements = [m for m in ok(tagged(runs, "measurements"))  # a pair's second pass is in its matrix
                    if not (is_host_pair(m) and m["params"].get("pass", "first") == "confirm")]
    findings = tagged(runs, "findings")
    probes = []
    for m in measurements:
        if m["unit"] == "GB/s" and m["size_bytes"] and m["probe"] not in probes:
            probes.append(m["probe"])
    out = ['<section id="curves"><h2>Bandwidth against size</h2>']
    drawn_any = False
    for probe in sorted(probes, key=lambda p: (not p.startswith("coll."), p)):
        mine = [m for m in measurements if m["probe"] == probe and m["size_bytes"]]
        bandwidth = [m for m in mine if m["unit"] == "GB/s"]
        if len({m["size_bytes"] for m in bandwidth}) < 2:
            continue
        metrics = sorted({m["metric"] for m in bandwidth})
        for preferred in ("busbw", "exchange_busbw"):  # a collective's (a node pair's) bus bandwidth alone
            metrics = [preferred] if preferred in metrics else metrics
        times = [m for m in mine if m["metric"] == "time_us"]

        def key_of(m):
            return (m["_run"], node_of(m), m["subject"], m["metric"], m["params"].get("placement", ""))

        time_stats = {key_of(m)[:3] + key_of(m)[4:] + (m["size_bytes"],): m.get("stats") for m in times}
        fig, axes = plt.subplots(1, 2 if times else 1, figsize=(12 if times else 7.5, 3.6), squeeze=False)
        ax = axes[0][0]
        lines, bands = {}, {}  # (run, host, subject, metric, placement) -> points, {size: (low, high)}
        for m in bandwidth:
            if m["metric"] in metrics:
                key = key_of(m)
                lines.setdefault(key, []).append((m["size_bytes"], m["value"]))
                spread = spread_of(m, time_stats.get(key[:3] + key[4:] + (m["size_bytes"],)))
                if spread:
                    bands.setdefault(key, {})[m["size_bytes"]] = spread
        bad_findings = [f for f in findings if f["probe"] == probe and f["severity"] in ("warn", "fail")]
        flagged = {(f["_run"], f["host"], f["subject"], f["metric"]) for f in bad_findings}
        named = {f["subject"] for f in bad_findings}  # a node the findings name flags its pairs
        flagged |= {k[:4] for k in lines if "--" in k[2] and set(k[2].split("--")) & named}
        banded = draw_lines(ax, lines, flagged, bands=bands, band_label=f"{metrics[0]} at the p99 time"
                            if any(time_stats.values()) else f"{metrics[0]}, slowest sample")
        sizes = sorted({m["size_bytes"] for m in bandwidth})
        judged = {}
        for f in findings:
            if f["probe"] == probe and f["metric"] in metrics and f["size_bytes"] and f["expected"] is not None:
                judged.setdefault(f["size_bytes"], (f["expected"], f["warn_at"]))
        for k, x in enumerate(sorted(judged)):  # at each judged size, seen at one size too
            expected, warn = judged[x][0], judged[x][1] if judged[x][1] is not None else judged[x][0]
            span = [x / 1.5, x * 1.5]
            ax.hlines(expected, *span, colors="black", linestyles="--", linewidth=1.2, zorder=4,
                      label=None if k else "expected (pass at or above)")
            ax.fill_between(span, warn, expected, color=COLORS["warn"], alpha=0.3, linewidth=0, label=None if k else "WARN band")
            ax.fill_between(span, 0, warn, color=COLORS["fail"], alpha=0.08, linewidth=0, label=None if k else "FAIL below")
        bad = [f for f in bad_findings if f["metric"] in metrics and f["size_bytes"] and f["observed"] is not None]
        for f in bad:
            ax.plot([f["size_bytes"]], [f["observed"]], marker="o", markersize=7, markerfacecolor="none",
                    markeredgecolor=COLORS[f["severity"]], markeredgewidth=1.5)
        tier_names = draw_tiers(ax, tiers, probe, metrics[0], sizes[0], sizes[-1])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size (bytes)")
        ax.set_ylabel(f"{' / '.join(metrics)} (GB/s)")
        ax.set_title(f"{probe}: {', '.join(metrics)}" + (f" · tiers: {', '.join(tier_names)}" if tier_names else ""))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: format_size(int(v)) if v >= 1 else ""))
        ax.set_ylim(*padded_range(min(min(p[1] for p in points) for points in lines.values()),
                                  max([max(p[1] for p in points) for points in lines.values()]
                                      + [v[0] for v in judged.values()])))
        # Outside the plot: it covers no point, however the lines run (under it where the tiers'
        # names stand beside it).
        if tier_names:
            ax.legend(loc="upper left", bbox_to_anchor=(0, -0.16), borderaxespad=0, framealpha=0.85, ncol=3)
        else:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, framealpha=0.85,
                      ncol=1 if len(lines) <= 12 else 2)
        limits = ""
        if times:
            tx = axes[0][1]
            tlines, tbands = {}, {}
            for m in times:
                key = key_of(m)
                tlines.setdefault(key, []).append((m["size_bytes"], m["value"]))
                spread = spread_of(m, None)
                if spread:
                    tbands.setdefault(key, {})[m["size_bytes"]] = spread
            draw_lines(tx, tlines, {(k[0], k[1], k[2], "time_us") for k in tlines
                                    if any(f[:3] == k[:3] for f in flagged)}, bands=tbands, band_label="p99")
            limits = limit_marks(tx, findings, probe, "time_us")
            tx.set_xscale("log", base=2)
            tx.set_yscale("log")
            tx.set_xlabel("size (bytes)")
            tx.set_ylabel("time (µs)")
            tx.set_title(f"{probe}: time per operation" + (", median and p99" if tbands else ""))
            tx.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: format_size(int(v)) if v >= 1 else ""))
            tx.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, framealpha=0.85)
        fig.tight_layout()
        spread_text = ""
        if banded:
            spread_text = (f"; under each line, shaded (dotted beyond {SHADED_LINES} lines): "
                           + ("the bandwidth at the p99 time" if any(time_stats.values()) else "the slowest sample"))
        caption = (f"{probe}: {', '.join(metrics)} against size"
                   + (" (one line per node pair)" if any("--" in k[2] for k in lines) else "")
                   + spread_text
                   + ("; dashed: expected, shaded: WARN band, circles: judged WARN/FAIL" if judged else "; no expected value in the findings")
                   + (f"; tier bands from the profile: {', '.join(tier_names)}" if tier_names else "")
                   + (f"; time: median, p99 above it (shaded, dotted beyond {SHADED_LINES} lines)"
                      if times and any(s for s in time_stats.values()) else "")
                   + (f"; {limits}" if limits else ""))
        out.append(figure_html(fig, f"fig-curve-{slug(probe)}", caption, "curve"))
        drawn_any = True
    if not drawn_any:
        return Missing("bandwidth against size", "no bandwidth measured at two sizes or more")
    out.append("</section>")
    return "\n".join(out)


MIN_CELL_PT = 8  # smaller cell values are left out of a heat map (they are in its table)


def padded_range(low, high):
    """Axis limits round values from `low` to `high` with a margin, so no point sits on an edge:
    from 0 for figures that cannot be negative (a spread of 2 % looks like 2 %), a little below 0
    when some are at or near it."""
    bottom = 0.0 if low >= 0 else low
    span = (high - bottom) or abs(high) or 1.0
    if low < bottom + 0.04 * span:
        bottom -= 0.05 * span
    return bottom, high + 0.08 * span


def cell_values(fig, ax, grid, text_of, colour_of):
    """Writes each cell's value into a heat map drawn on `ax`, in a size that fits the cell as
    drawn (up to 10 pt); when that would be under MIN_CELL_PT, writes none and returns None (the
    caller gives the values as a table), else (the size, the cell's height), in points."""
    fig.tight_layout()
    fig.canvas.draw()
    box = ax.get_window_extent(fig.canvas.get_renderer())
    rows, columns = len(grid), len(grid[0]) if grid else 0
    if not rows or not columns:
        return None
    cell_w, cell_h = box.width / fig.dpi * 72 / columns, box.height / fig.dpi * 72 / rows
    widest = max((len(text_of(v)) for row in grid for v in row if not math.isnan(v)), default=1)
    size = min(10.0, cell_w * 0.85 / (0.62 * widest), cell_h * 0.5)
    if size < MIN_CELL_PT:
        return None
    size = math.floor(size * 2) / 2
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if not math.isnan(value):
                ax.text(j, i, text_of(value), ha="center", va="center", fontsize=size, color=colour_of(value))
    return size, cell_h


def matrix_table(title, labels, grid, text_of):
    """A heat map's values as a folded table (rows and columns as in the drawing)."""
    head = "".join(f"<th>{esc(label)}</th>" for label in labels)
    rows = "".join(f"<tr><th>{esc(labels[i])}</th>" + "".join(
        f"<td>{'' if math.isnan(v) else esc(text_of(v))}</td>" for v in row) + "</tr>" for i, row in enumerate(grid))
    return (f'<details class="matrix"><summary>{esc(title)}: the values</summary>'
            f'<table class="matrix"><tr><th></th>{head}</tr>{rows}</table></details>')


def p2p_section(runs):
    measurements = [m for m in ok(tagged(runs, "measurements")) if m["probe"] == "gpu.p2p" and m["peer"]]
    findings = [f for f in tagged(runs, "findings") if f["probe"] == "gpu.p2p" and f["severity"] in ("warn", "fail")]
    out = ['<section id="p2p"><h2>GPU ↔ GPU bandwidth</h2>']
    if not measurements:
        return Missing("GPU ↔ GPU bandwidth", why_not_measured(runs, ["gpu.p2p"]))
    by_host = {}
    for m in measurements:
        by_host.setdefault((m["_run"], m["host"]), []).append(m)
    shown = sorted(by_host)
    if len(by_host) > MAX_P2P_HOSTS:
        # A fleet: the hosts the findings name, and one without findings for reference.
        named = [key for key in shown if any(f["host"] == key[1] and f["_run"] == key[0] for f in findings)]
        clean = [key for key in shown if key not in named]
        shown = named + clean[:1]
        left = [host for _, host in clean[1:]]
        out.append(f"<p>{len(by_host)} hosts measured: shown are those named in WARN/FAIL findings"
                   + (f" and {esc(clean[0][1])} for reference" if clean else "")
                   + (f"; {len(left)} more without findings left out ({esc(', '.join(left[:20]))}"
                      f"{' …' if len(left) > 20 else ''})" if left else "") + ".</p>")
    for run, host in shown:
        mine = by_host[(run, host)]
        metrics = [x for x in P2P_METRICS if any(m["metric"] == x for m in mine)]
        metrics += sorted({m["metric"] for m in mine if m["unit"] == "GB/s"} - set(metrics))
        gpus = sorted({m["subject"] for m in mine} | {m["peer"] for m in mine}, key=gpu_index)
        index = {g: i for i, g in enumerate(gpus)}
        suspects = {f["subject"] for f in findings if f["host"] in ("", host) and f["_run"] == run}
        columns = min(len(metrics), 3)
        rows = math.ceil(len(metrics) / columns)
        size = min(max(3.2, 0.5 * len(gpus) + 1.4), 12.5 / columns)  # the page's width, unscaled
        fig, axes = plt.subplots(rows, columns, figsize=(size * columns, size * rows * 0.95), squeeze=False)
        grids = []
        for k, metric in enumerate(metrics):
            ax = axes[k // columns][k % columns]
            largest = max((m["size_bytes"] or 0) for m in mine if m["metric"] == metric)
            grid = [[math.nan] * len(gpus) for _ in gpus]
            for m in mine:
                if m["metric"] == metric and (m["size_bytes"] or 0) == largest:
                    grid[index[m["subject"]]][index[m["peer"]]] = m["value"]
            image = ax.imshow(grid, cmap="viridis", vmin=0)
            grids.append((ax, metric, largest, grid))
            ax.set_xticks(range(len(gpus)), gpus, rotation=90, fontsize=8)
            ax.set_yticks(range(len(gpus)), gpus, fontsize=8)
            for label in ax.get_yticklabels():
                if label.get_text() in suspects:
                    label.set_color(COLORS["fail"])
                    label.set_fontweight("bold")
            ax.set_xlabel("to (peer)")
            ax.set_ylabel("from")
            ax.set_title(f"{metric} at {format_size(largest)} (GB/s)")
            ax.grid(False)
            fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        for k in range(len(metrics), rows * columns):
            axes[k // columns][k % columns].axis("off")
        fig.suptitle(f"{host}" + (f" ({run})" if len(runs) > 1 else ""), fontsize=9)
        tables = []
        for ax, metric, largest, grid in grids:
            values = [v for r in grid for v in r if not math.isnan(v)]
            top = max(values, default=0)
            written = cell_values(fig, ax, grid, lambda v: f"{v:.0f}", lambda v, top=top: "white" if v < 0.6 * top else "black")
            if written is None:
                tables.append(matrix_table(f"{host} {metric} at {format_size(largest)} (GB/s)", gpus, grid, lambda v: f"{v:.0f}"))
        fig.tight_layout()
        caption = (f"{host}: GPU-to-GPU bandwidth, row = source GPU, column = peer"
                   + (f"; GPUs named in WARN/FAIL findings in red: {', '.join(sorted(suspects))}" if suspects else "")
                   + ("; cells too small for their values: they are in the table below" if tables else ""))
        out.append(figure_html(fig, f"fig-p2p-{slug(run, host)}", caption, "p2p") + "".join(tables))
    out.append("</section>")
    return "\n".join(out)


def is_host_pair(m):
    return (m["rank"] == -1 and m["host"] and m["peer"] and m["host"] != m["peer"]
            and "--" in m["subject"])


def node_pairs_section(runs):
    out = ['<section id="node-pairs"><h2>Node-pair bandwidth</h2>']
    drawn = False
    for run in runs:
        pairs = [m for m in ok(run.measurements) if is_host_pair(m)]
        if not pairs:
            continue
        metrics = sorted({m["metric"] for m in pairs if m["unit"] == "GB/s"})
        metric = "exchange_busbw" if "exchange_busbw" in metrics else (metrics[0] if metrics else None)
        if metric is None:
            continue
        chosen = [m for m in pairs if m["metric"] == metric]
        largest = max(m["size_bytes"] or 0 for m in chosen)
        chosen = [m for m in chosen if (m["size_bytes"] or 0) == largest]
        hosts = sorted({m["host"] for m in chosen} | {m["peer"] for m in chosen})
        index = {h: i for i, h in enumerate(hosts)}
        grid = [[math.nan] * len(hosts) for _ in hosts]
        confirm = []
        for m in chosen:
            i, j = index[m["host"]], index[m["peer"]]
            if m["params"].get("pass", "first") == "confirm":
                confirm.append((i, j, m["value"]))
                continue
            grid[i][j] = grid[j][i] = m["value"]
        bad = [f for f in run.findings if f["probe"] == chosen[0]["probe"] and f["severity"] in ("warn", "fail")]
        bad_nodes = {f["subject"]: f["severity"] for f in bad if f["subject"] in index}
        bad_links = [(f["subject"].split("--", 1), f["severity"]) for f in bad if "--" in f["subject"]]
        n = len(hosts)
        size = max(3.2, 0.5 * n + 1.6)
        fig, ax = plt.subplots(figsize=(size + 1, size))
        image = ax.imshow(grid, cmap="viridis", vmin=0)
        values = [v for r in grid for v in r if not math.isnan(v)]
        for node, severity in bad_nodes.items():
            k = index[node]
            ax.add_patch(Rectangle((-0.5, k - 0.5), n, 1, fill=False, edgecolor=COLORS[severity], linewidth=2))
            ax.add_patch(Rectangle((k - 0.5, -0.5), 1, n, fill=False, edgecolor=COLORS[severity], linewidth=2))
        for (a, b), severity in bad_links:
            if a in index and b in index:
                for i, j in ((index[a], index[b]), (index[b], index[a])):
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=COLORS[severity], linewidth=2.5))
        ax.set_xticks(range(n), hosts, rotation=90)
        ax.set_yticks(range(n), hosts)
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            for label in labels:
                if label.get_text() in bad_nodes:
                    label.set_color(COLORS[bad_nodes[label.get_text()]])
                    label.set_fontweight("bold")
        ax.grid(False)
        title = f"{chosen[0]['probe']} {metric} at {format_size(largest)} (GB/s)"
        ax.set_title(title)
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        top = max(values, default=0)
        written = cell_values(fig, ax, grid, lambda v: f"{v:.3g}", lambda v: "white" if v < 0.6 * top else "black")
        if written is not None:
            second = max(MIN_CELL_PT, written[0] - 1.5)
            below = (written[0] + second) / 2 / written[1]  # in cells: under the first pass's figure
            for i, j, value in confirm if below <= 0.45 else []:
                ax.text(j, i + below, f"2nd {value:.3g}", ha="center", va="center", fontsize=second, style="italic",
                        color="white" if math.isnan(grid[i][j]) or grid[i][j] < 0.6 * top else "black")
        table = "" if written is not None else matrix_table(title, hosts, grid, lambda v: f"{v:.3g}")
        fig.tight_layout()
        named = sorted(bad_nodes) + [f"{a}--{b}" for (a, b), _ in bad_links]
        caption = (f"{run.name}: node x node bandwidth"
                   + (f"; suspects boxed (from the findings): {', '.join(named)}" if named else "; no suspects in the findings")
                   + ("; second passes (confirm) under the first" if confirm and written is not None and below <= 0.45 else "")
                   + ("; cells too small for their values: they are in the table below" if table else ""))
        out.append(figure_html(fig, f"fig-pairs-{slug(run.name)}", caption, "pairs") + table)
        drawn = True
    if not drawn:
        return Missing("node-pair bandwidth", why_not_measured(runs, ["coll.node_pairs"]))
    out.append("</section>")
    return "\n".join(out)


def distributions_section(runs):
    """Per-node distributions: for each figure measured on two nodes or more, its value on each
    node (one point per subject), the median across nodes, and the nodes the findings name."""
    measurements = [m for m in ok(tagged(runs, "measurements"))
                    if m["host"] and "," not in m["host"] and not is_host_pair(m)]
    findings = [f for f in tagged(runs, "findings") if f["severity"] in ("warn", "fail")]
    groups = {}
    for m in measurements:
        groups.setdefault((m["probe"], m["metric"], m["unit"]), []).append(m)
    candidates = []
    for key, mine in groups.items():
        largest = max((m["size_bytes"] or 0) for m in mine)
        mine = [m for m in mine if (m["size_bytes"] or 0) == largest]
        placements = sorted({m["params"].get("placement", "") for m in mine})
        mine = [m for m in mine if m["params"].get("placement", "") == placements[0]]
        if len({m["host"] for m in mine}) < 2:
            continue
        marked = [m for m in mine if any(matches_finding(f, m) and f["_run"] == m["_run"] for f in findings)]
        if not marked and len({m["value"] for m in mine}) == 1:
            continue  # the same figure everywhere (no wrong elements on any node): nothing to see
        candidates.append((not marked, key[2] != "GB/s", key, mine, marked, largest))
    candidates.sort(key=lambda c: c[:3])
    out = ['<section id="distributions"><h2>Per-node distributions</h2>']
    if not candidates:
        hosts = {m["host"] for m in measurements}
        return Missing("per-node distributions", f"no figure was measured on two nodes or more; {len(hosts)} node(s) measured on their own")
    if len(candidates) > MAX_DISTRIBUTIONS:
        out.append(f"<p>{len(candidates)} figures vary across nodes; the {MAX_DISTRIBUTIONS} shown are first "
                   "those with outliers named by the findings, then bandwidths.</p>")
    for _, _, (probe, metric, unit), mine, marked, largest in candidates[:MAX_DISTRIBUTIONS]:
        hosts = sorted({m["host"] for m in mine})
        x = {h: i for i, h in enumerate(hosts)}
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(hosts) + 3.5), 2.8))
        subjects = sorted({m["subject"] for m in mine}, key=gpu_index)
        jitter = {s: (k - (len(subjects) - 1) / 2) * min(0.5 / max(len(subjects), 1), 0.08) for k, s in enumerate(subjects)}
        marked_ids = {id(m) for m in marked}
        normal = [m for m in mine if id(m) not in marked_ids]
        ax.scatter([x[m["host"]] + jitter[m["subject"]] for m in normal], [m["value"] for m in normal],
                   s=14, color="#1565c0", alpha=0.8, label="figure (one per subject)")
        if marked:
            ax.scatter([x[m["host"]] + jitter[m["subject"]] for m in marked], [m["value"] for m in marked],
                       s=60, facecolors="none", edgecolors=COLORS["fail"], linewidths=1.8, label="named in a WARN/FAIL finding")
            for m in marked:
                ax.annotate(m["subject"], (x[m["host"]] + jitter[m["subject"]], m["value"]), fontsize=8,
                            xytext=(4, 4), textcoords="offset points", color=COLORS["fail"])
        median = statistics.median(m["value"] for m in mine)
        ax.axhline(median, color="black", linewidth=0.8, linestyle=":", label=f"median {median:.3g}")
        ax.set_xticks(range(len(hosts)), hosts, rotation=45 if len(hosts) > 6 else 0, ha="right" if len(hosts) > 6 else "center")
        ax.set_ylabel(unit)
        # Limits with a margin round every point (and its circle), so none is drawn on the edge.
        ax.set_ylim(*padded_range(min(m["value"] for m in mine), max(m["value"] for m in mine)))
        ax.set_xlim(-0.6, len(hosts) - 0.4)
        ax.set_title(f"{probe} {metric}" + (f" at {format_size(largest)}" if largest else ""))
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)  # beside the plot: over no point
        fig.tight_layout()
        caption = (f"{probe} {metric} per node" + (f" at {format_size(largest)}" if largest else "")
                   + (f"; outliers named by the findings: {', '.join(sorted({m['host'] + ' ' + m['subject'] for m in marked}))}" if marked else ""))
        out.append(figure_html(fig, f"fig-dist-{slug(probe, metric)}", caption, "distribution"))
    out.append("</section>")
    return "\n".join(out)


def storage_section(runs):
    measurements = [m for m in ok(tagged(runs, "measurements"))
                    if m["probe"].startswith("storage.") and m["unit"] == "us" and LATENCY_METRIC.match(m["metric"])]
    out = ['<section id="storage"><h2>Storage latency percentiles</h2>']
    if not measurements:
        return Missing("storage latency", why_not_measured(runs, ["storage.fsync_lat", "storage.rand_read"]))
    findings = [f for f in tagged(runs, "findings") if f["probe"].startswith("storage.") and f["expected"] is not None]
    groups, limits = {}, {}
    for m in measurements:
        match = LATENCY_METRIC.match(m["metric"])
        base = (match.group("pre") + match.group("post")).strip("_") or "latency"
        pct = {"999": "p99.9", "9999": "p99.99"}.get(match.group("pct"), "p" + match.group("pct"))
        target = (m["host"], m["subject"], m["_run"])
        groups.setdefault((m["probe"], base), {}).setdefault(target, {})[pct] = m["value"]
        judged = [f for f in findings if f["_run"] == m["_run"] and matches_finding(f, m)]
        if judged:
            limits.setdefault((m["probe"], base), {})[(target, pct)] = (judged[0]["expected"], judged[0]["warn_at"])
    for (probe, base), by_target in sorted(groups.items()):
        targets = sorted(by_target)
        percentiles = sorted({p for values in by_target.values() for p in values}, key=lambda p: float(p[1:]))
        fig, ax = plt.subplots(figsize=(max(4.5, 0.6 * len(targets) * len(percentiles) / 2 + 2), 2.9))
        width = 0.8 / max(len(percentiles), 1)
        limit_drawn = {}
        for k, pct in enumerate(percentiles):
            xs = [i + (k - (len(percentiles) - 1) / 2) * width for i in range(len(targets))]
            ax.bar(xs, [by_target[t].get(pct, math.nan) for t in targets], width, label=pct)
            for x, target in zip(xs, targets):
                limit = limits.get((probe, base), {}).get((target, pct))
                if limit is None:
                    continue
                # The limit the findings judged this bar against: a bar across it, pass at or below.
                ax.hlines(limit[0], x - width * 0.7, x + width * 0.7, colors="black", linewidth=1.6, zorder=4,
                          label=None if limit_drawn else "limit (pass at or below)")
                limit_drawn.setdefault(pct, set()).add(limit[0])
        ambiguous = len({(host, subject) for host, subject, _ in targets}) < len(targets)
        labels = [f"{host}\n{subject}" + (f"\n{run}" if ambiguous else "") for host, subject, run in targets]
        ax.set_xticks(range(len(targets)), labels, fontsize=6)
        ax.set_yscale("log")
        positive = [v for t in targets for v in by_target[t].values() if v and v > 0]
        positive += [v for values in limit_drawn.values() for v in values if v > 0]
        if positive:
            ax.set_ylim(min(positive) / 2, max(positive) * 2)  # bars from below the smallest
        ax.set_ylabel("latency (µs)")
        ax.set_title(f"{probe} {base}")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
        fig.tight_layout()
        said = "; ".join(f"{pct} pass at or below {', '.join(f'{v:g}' for v in sorted(values))} µs"
                         for pct, values in sorted(limit_drawn.items()))
        out.append(figure_html(fig, f"fig-storage-{slug(probe, base)}",
                               f"{probe} {base}: latency percentiles per node and path (log scale)"
                               + (f"; limit from the findings: {said}" if said else ""), "storage"))
    out.append("</section>")
    return "\n".join(out)


def topology_figure(run, host, mine, mismatch, named):
    numa = sorted({m["params"].get("gpu_numa_node", "?") for m in mine} | {m["params"].get("hca_numa_node", "?") for m in mine})
    hcas = sorted({m["params"].get("nearest_hca") or m["peer"] for m in mine})
    per_column = []
    for n in numa:
        gpus = [m for m in mine if m["params"].get("gpu_numa_node", "?") == n]
        nics = [h for h in hcas if any((m["params"].get("nearest_hca") or m["peer"]) == h
                                      and m["params"].get("hca_numa_node", "?") == n for m in mine)]
        per_column.append((n, gpus, nics))
    tallest = max(max(len(g), len(h), 1) for _, g, h in per_column)
    fig, ax = plt.subplots(figsize=(min(3.4 * len(numa), 11), 0.36 * tallest + 1.1))
    # NUMA nodes side by side; in each, its GPUs on the left and its HCAs on the right.
    gpu_pos, hca_pos = {}, {}
    for k, (n, gpus, nics) in enumerate(per_column):
        left = k * 3.2
        ax.add_patch(FancyBboxPatch((left, -0.6), 2.8, tallest + 0.4, boxstyle="round,pad=0.05",
                                    facecolor="#eceff1", edgecolor="#90a4ae"))
        ax.text(left + 1.4, tallest - 0.1, f"NUMA {n}", ha="center", fontsize=7, color="#455a64")
        for row, m in enumerate(gpus):
            gpu_pos[m["subject"]] = (left + 0.5, row)
            ax.text(left + 0.5, row, m["subject"], ha="center", va="center", fontsize=6,
                    bbox={"facecolor": "#c8e6c9", "edgecolor": "#2e7d32", "boxstyle": "round"})
        for row, h in enumerate(nics):
            hca_pos.setdefault(h, (left + 2.3, row))
            ax.text(left + 2.3, row, h, ha="center", va="center", fontsize=6,
                    bbox={"facecolor": "#bbdefb", "edgecolor": "#1565c0", "boxstyle": "round"})
    for m in mine:
        h = m["params"].get("nearest_hca") or m["peer"]
        if m["subject"] not in gpu_pos or h not in hca_pos:
            continue
        (x0, y0), (x1, y1) = gpu_pos[m["subject"]], hca_pos[h]
        crossing = mismatch.get((m["_run"], m["host"], m["subject"]), 0) > 0 or m["value"] >= 99
        ax.plot([x0 + 0.55, x1 - 0.45], [y0, y1], color=COLORS["fail"] if crossing else "#607d8b",
                linewidth=1.6 if crossing else 0.9, linestyle="--" if crossing else "-")
        ax.text((x0 + x1) / 2, (y0 + y1) / 2 - 0.18, "no common root" if m["value"] >= 99 else f"{m['value']:.0f} hops",
                fontsize=5, ha="center", color=COLORS["fail"] if crossing else "#455a64")
    ax.set_xlim(-0.3, len(numa) * 3.2)
    ax.set_ylim(tallest + 0.3, -0.9)
    ax.axis("off")
    ax.set_title(f"{named}: each GPU and its nearest HCA (red dashed: other NUMA node or no common PCIe root)", fontsize=8)
    fig.tight_layout()
    crossing = sorted(m["subject"] for m in mine if mismatch.get((m["_run"], m["host"], m["subject"]), 0) > 0 or m["value"] >= 99)
    caption = (f"{named}: GPU, HCA and NUMA placement"
               + (f"; crossing NUMA nodes or root complexes: {', '.join(crossing)}" if crossing else ""))
    return figure_html(fig, f"fig-topology-{slug(run, host)}", caption, "topology")


def topology_section(runs):
    records = [m for m in tagged(runs, "measurements") if m["probe"] == "fabric.topology"]
    placed = [m for m in ok(records) if m["metric"] == "nearest_hca_hops"]
    mismatch = {(m["_run"], m["host"], m["subject"]): m["value"] for m in ok(records) if m["metric"] == "numa_mismatch"}
    out = ['<section id="topology"><h2>Topology: GPU – NIC – NUMA</h2>']
    if not placed:
        return Missing("GPU – NIC – NUMA placement", why_not_measured(runs, ["fabric.topology"]))
    by_host = {}
    for m in placed:
        by_host.setdefault((m["_run"], m["host"]), []).append(m)
    # Hosts with the same placement (the usual case in a fleet) share one drawing.
    layouts = {}
    for (run, host), mine in sorted(by_host.items()):
        mine.sort(key=lambda m: m["subject"])
        signature = tuple((m["subject"], m["params"].get("nearest_hca") or m["peer"], m["peer"],
                           m["params"].get("gpu_numa_node", "?"), m["params"].get("hca_numa_node", "?"),
                           m["value"], mismatch.get((m["_run"], m["host"], m["subject"]), 0)) for m in mine)
        layouts.setdefault(signature, []).append((run, host, mine))
    for members in sorted(layouts.values(), key=lambda group: len(group)):
        run, host, mine = members[0]
        hosts = [h for _, h, _ in members]
        named = hosts[0] if len(hosts) == 1 else f"{len(hosts)} hosts with the same placement ({', '.join(hosts[:8])}{' …' if len(hosts) > 8 else ''})"
        out.append(topology_figure(run, host, mine, mismatch, named))
        rows = ""
        for m in mine:
            crossing = mismatch.get((m["_run"], m["host"], m["subject"]), 0) > 0 or m["value"] >= 99
            hops = "none in common" if m["value"] >= 99 else f"{m['value']:.0f}"
            rows += (f'<tr class="{"sev-row-warn" if crossing else ""}"><td>{esc(m["subject"])}</td>'
                     f'<td>{esc(m["params"].get("nearest_hca") or m["peer"])}</td><td>{esc(m["peer"])}</td>'
                     f'<td>{hops}</td><td>{esc(m["params"].get("gpu_numa_node", ""))}</td>'
                     f'<td>{esc(m["params"].get("hca_numa_node", ""))}</td>'
                     f'<td class="mono">{esc(m["params"].get("pcie_path", ""))}</td></tr>')
        out.append(f'<details class="topology"><summary>{esc(named)}: placement table</summary>'
                   '<table class="topology"><tr><th>GPU</th><th>nearest HCA</th><th>HCA (BDF)</th><th>PCIe hops</th>'
                   f'<th>GPU NUMA</th><th>HCA NUMA</th><th>PCIe path</th></tr>{rows}</table></details>')
    out.append("</section>")
    return "\n".join(out)


def runs_section(runs, notes):
    out = ['<section id="runs"><h2>Runs</h2>']
    for note in notes:
        out.append(f'<p class="note">{esc(note)}</p>')
    for run in runs:
        s = run.summary or {}
        probes = s.get("probes") or {}
        waived = "".join(f"<li>{esc(w.get('id', ''))}: {esc(w.get('reason', ''))}</li>" for w in probes.get("waived", []))
        errored = "".join(f"<li>{esc(e.get('id', ''))}: {esc(e.get('message', ''))}</li>" for e in probes.get("errored", []))
        versions = ", ".join(f"{k} {v}" for k, v in (s.get("versions") or {}).items() if v)
        env = "".join(f"<div class=mono>{esc(k)}={esc(v)}</div>" for k, v in sorted((s.get("environment") or {}).items()))
        profile = s.get("profile") or {}
        out.append(f'<div class="run" id="run-{esc(slug(run.name))}"><h3>{esc(run.name)} '
                   f'<span class="sev-{run.verdict}">{run.verdict.upper()}</span></h3><table class="kv">'
                   f'<tr><th>directory</th><td class=mono>{esc(run.dir)}</td></tr>'
                   f'<tr><th>command</th><td class=mono>{esc(s.get("command_line", ""))}</td></tr>'
                   f'<tr><th>started / finished</th><td>{esc(s.get("started_utc", ""))} / {esc(s.get("finished_utc") or "not finished")}</td></tr>'
                   f'<tr><th>hosts, ranks</th><td>{esc(", ".join(s.get("hosts", [])))}; {esc(s.get("ranks", ""))} rank(s)</td></tr>'
                   f'<tr><th>profile</th><td>{esc(profile.get("name", ""))} <span class=mono>{esc(profile.get("path", ""))}</span></td></tr>'
                   f'<tr><th>probes run</th><td>{esc(", ".join(probes.get("run", [])))}</td></tr>'
                   + (f"<tr><th>waived</th><td><ul>{waived}</ul></td></tr>" if waived else "")
                   + (f"<tr><th>errored</th><td><ul>{errored}</ul></td></tr>" if errored else "")
                   + f"<tr><th>versions</th><td>{esc(versions)}</td></tr>"
                   + (f"<tr><th>environment</th><td>{env}</td></tr>" if env else "")
                   + f"<tr><th>records</th><td>{len(run.measurements)} measurements, {len(run.findings)} findings</td></tr>"
                   + "</table></div>")
    out.append("</section>")
    return "\n".join(out)


CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:0 auto;max-width:1180px;padding:12px 20px;color:#212121;background:#fff}
h2{border-bottom:2px solid #e0e0e0;padding-bottom:3px;margin-top:28px}
h3{margin:14px 0 6px}
.verdict{display:flex;align-items:center;gap:22px;padding:14px 20px;border-radius:8px;color:#fff}
.verdict-word{font-size:44px;font-weight:800;letter-spacing:2px}
.verdict-detail{font-size:15px;line-height:1.6}
.verdict-detail span{background:rgba(255,255,255,.92);border-radius:4px;padding:1px 6px}
.verdict-pass{background:#2e7d32}.verdict-warn{background:#f9a825}.verdict-fail{background:#c62828}.verdict-incomplete{background:#6a1b9a}
.sev-fail{color:#c62828;font-weight:700}.sev-error,.sev-incomplete{color:#6a1b9a;font-weight:700}.sev-warn{color:#b26a00;font-weight:700}.sev-waived{color:#616161}.sev-pass{color:#2e7d32;font-weight:700}
table{border-collapse:collapse;margin:6px 0;font-size:13px;width:100%}
th,td{border-bottom:1px solid #eee;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#fafafa}
td.subject{font-weight:700;max-width:260px}
td.where{white-space:nowrap;color:#455a64}
td.run{font-size:11px;color:#616161}
span.count{font-weight:400;color:#616161}
tr.sev-row-fail td:first-child{border-left:4px solid #c62828}tr.sev-row-error td:first-child{border-left:4px solid #6a1b9a}
tr.sev-row-warn td:first-child{border-left:4px solid #f9a825}tr.sev-row-waived td:first-child{border-left:4px solid #9e9e9e}
tr.sev-row-pass td:first-child{border-left:4px solid #2e7d32}
details summary{cursor:pointer}details summary h3{display:inline}
figure.plot{margin:10px 0 18px;border:1px solid #eee;border-radius:6px;padding:6px;display:inline-block;max-width:100%}
figure.plot img{max-width:100%;height:auto;display:block}
figcaption{font-size:12px;color:#555;margin-top:4px;max-width:900px}
.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px}
.note{color:#795548}
nav{font-size:13px;margin:10px 0}nav a{margin-right:12px}
table.kv th{width:150px}
table.matrix{width:auto;font-size:12px}table.matrix td{text-align:right}
"""

SCRIPT = """
window.addEventListener('load', function () {
  var figures = document.querySelectorAll('figure.plot');
  var loaded = 0;
  figures.forEach(function (figure) {
    var image = figure.querySelector('img');
    if (image && image.complete && image.naturalWidth > 0) { figure.dataset.loaded = '1'; loaded++; }
  });
  document.body.dataset.plots = String(figures.length);
  document.body.dataset.plotsLoaded = String(loaded);
});
"""


NAV = (("curves", "bandwidth curves"), ("p2p", "GPU↔GPU"), ("node-pairs", "node pairs"),
       ("distributions", "per-node distributions"), ("storage", "storage latency"), ("topology", "topology"))


def not_measured_section(missing):
    """One line naming every section with nothing to show, and why (what the records say)."""
    if not missing:
        return ""
    items = "; ".join(f"<b>{esc(m.what)}</b> ({esc(m.why)})" for m in missing)
    return f'<section id="not-measured"><p class="note">Not measured: {items}.</p></section>'


def build_report(runs, title=None):
    tiers, notes = load_tiers(runs)
    title = title or ("fabcheck report: " + (runs[0].name if len(runs) == 1 else f"{len(runs)} runs"))
    drawn = dict(zip((anchor for anchor, _ in NAV), (
        curves_section(runs, tiers), p2p_section(runs), node_pairs_section(runs),
        distributions_section(runs), storage_section(runs), topology_section(runs))))
    missing = [section for section in drawn.values() if isinstance(section, Missing)]
    shown = [anchor for anchor, section in drawn.items() if not isinstance(section, Missing)]
    sections = [
        header_section(runs),
        '<nav><a href="#findings">findings</a>' + "".join(f'<a href="#{anchor}">{label}</a>' for anchor, label in NAV
                                                           if anchor in shown) + '<a href="#runs">runs</a></nav>',
        findings_section(runs),
        not_measured_section(missing),
        *[drawn[anchor] for anchor in shown],
        runs_section(runs, notes),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n"
            + "\n".join(section for section in sections if section)
            + f"\n<footer class=note>generated by scripts/fabcheck-report from {len(runs)} run director"
              f"{'y' if len(runs) == 1 else 'ies'}</footer>\n<script>{SCRIPT}</script>\n</body></html>\n")
