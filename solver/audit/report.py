"""``bull audit --out DIR``: a Markdown report, per-group tables and plots.

``DIR/audit.md`` (the summary, every test, the settlement diagnosis, impossible deals),
``DIR/audit.json`` (the ``--json`` object), ``DIR/tests.parquet`` (one row per test and
group), ``DIR/categories.parquet`` (observed and expected counts per group, role and
category), ``DIR/net.parquet`` (per group, the first player's net per round: observed
and expected rounds per amount, when the exact distribution is known), and with
matplotlib installed ``DIR/categories.png`` (observed vs expected category frequencies,
overall) and ``DIR/pvalues.png`` (p-values by group and test).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from solver.audit.batch import Partial
from solver.audit.spec import AuditSpec

__all__ = ["plot_pvalues", "write_report"]


def _category_table(part: Partial, spec: AuditSpec) -> pa.Table:
    rows: dict[str, list[Any]] = {
        "group": [], "role": [], "category": [], "observed": [], "expected": [],
    }  # fmt: skip
    for key in sorted(part.groups):
        g = part.groups[key]
        for role, counts in ((spec.banker_word, g.banker), ("player", g.player)):
            total = int(counts.sum())
            for lb, c, p in zip(spec.labels, counts.tolist(), spec.expected, strict=True):
                rows["group"].append(key or "all")
                rows["role"].append(role)
                rows["category"].append(lb)
                rows["observed"].append(int(c))
                rows["expected"].append(total * float(p))
    return pa.table(rows)


def _net_table(part: Partial, spec: AuditSpec) -> pa.Table | None:
    if spec.net is None:
        return None
    from solver.audit.findings import amount_label

    rows: dict[str, list[Any]] = {"group": [], "amount": [], "observed": [], "expected": []}
    amounts = [float(a) for a, _ in spec.net]
    for key in sorted(part.groups):
        g = part.groups[key]
        total = sum(g.net.values())
        seen = dict.fromkeys(range(len(amounts)), 0)
        other = 0
        for v, c in g.net.items():
            j = min(range(len(amounts)), key=lambda i: abs(amounts[i] - v))
            if abs(amounts[j] - v) <= 1e-6 * max(1.0, abs(v)):
                seen[j] += c
            else:
                other += c
        for j, (a, p) in enumerate(spec.net):
            rows["group"].append(key or "all")
            rows["amount"].append(amount_label(a))
            rows["observed"].append(seen[j])
            rows["expected"].append(total * float(p))
        if other:
            rows["group"].append(key or "all")
            rows["amount"].append("other")
            rows["observed"].append(other)
            rows["expected"].append(0.0)
    return pa.table(rows)


def _plots(out: str, res: Mapping[str, Any], cats: pa.Table) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    d = cats.to_pydict()
    sel = [
        i
        for i, (g, r) in enumerate(zip(d["group"], d["role"], strict=True))
        if g == "all" and r == "player"
    ]
    if sel:
        fig, ax = plt.subplots(figsize=(9, 4))
        x = range(len(sel))
        ax.bar([i - 0.2 for i in x], [d["observed"][i] for i in sel], 0.4, label="observed")
        ax.bar([i + 0.2 for i in x], [d["expected"][i] for i in sel], 0.4, label="expected")
        ax.set_xticks(list(x), [d["category"][i] for i in sel], rotation=45, ha="right")
        ax.set_title(f"{res['game']}: players' dealt categories, observed vs exact")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "categories.png"), dpi=100)
        plt.close(fig)
        made.append("categories.png")
    tests = res["fairness"]
    if tests:
        plot_pvalues(os.path.join(out, "pvalues.png"), res, plt)
        made.append("pvalues.png")
    return made


P_FLOOR = 1e-300
"""p-values below this (and 0: an impossible amount) are drawn at its -log10, 300."""


def plot_pvalues(path: str, res: Mapping[str, Any], plt: Any) -> dict[str, Any]:
    """``pvalues.png``: -log10 p of every test (and hold check) by group, one colour and
    marker per test, side by side within a group (no overlap), the flag line marked;
    what was drawn (``ylim``, the legend's ``labels``, ``flag``: the line's height)."""
    import math

    tests = [(t["name"], t["group"], t["p_value"]) for t in res["fairness"]]
    tests += [("hold", h["group"], h["p_value"]) for h in res.get("hold") or []]
    names = list(dict.fromkeys(n for n, _, _ in tests))
    groups = list(dict.fromkeys(g for _, g, _ in tests))
    width = max(8.0, min(18.0, 2.5 + 0.45 * len(groups)))
    fig, ax = plt.subplots(figsize=(width, 4.5))
    colours = plt.get_cmap("tab10")
    markers = "osD^v<>ph*"
    step = 0.8 / max(1, len(names))
    top = 0.0
    for k, n in enumerate(names):
        xs, ys = [], []
        for name, g, p in tests:
            if name == n:
                xs.append(groups.index(g) - 0.4 + step * (k + 0.5))
                ys.append(-math.log10(max(p, P_FLOOR)))
        top = max(top, *ys)
        ax.scatter(xs, ys, s=22, color=colours(k % 10), marker=markers[k % len(markers)],
                   label=n, zorder=3)  # fmt: skip
    flag = -math.log10(res["alpha"])
    ax.axhline(flag, color="red", lw=1.2, ls="--", zorder=2)
    ax.text(len(groups) - 0.5, flag, f" flag: p < {res['alpha']:g}", color="red",
            va="bottom", ha="right", fontsize=8)  # fmt: skip
    method = res.get("hold_method") or {}
    if "hold" in names and method:
        hold_p = (1 - method["band_percent"] / 100) / method["checks"]
        hold_flag = -math.log10(hold_p)
        k = names.index("hold")
        ax.axhline(hold_flag, color=colours(k % 10), lw=1.0, ls=":", zorder=2)
        ax.text(-0.45, hold_flag, f"hold flag: p < {hold_p:.2g}",
                color=colours(k % 10), va="bottom", ha="left", fontsize=8)  # fmt: skip
    ax.set_ylim(0, max(flag * 1.25, top * 1.08, 1.0))
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_xticks(range(len(groups)), groups, rotation=45 if len(groups) > 4 else 0,
                  ha="right" if len(groups) > 4 else "center", fontsize=8)  # fmt: skip
    ax.set_xlabel("group")
    ax.set_ylabel("-log10 p  (higher: less likely under a fair deal)")
    ax.set_title(f"{res['game']} [{res['rules']}]: p-values of the audit's tests by group")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="test")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    drawn = {
        "ylim": list(ax.get_ylim()),
        "labels": [t.get_text() for t in ax.get_legend().get_texts()],
        "flag": flag,
    }
    plt.close(fig)
    return drawn


def _markdown(res: Mapping[str, Any], plots: list[str]) -> str:
    s = res["settlement_check"]
    lines = [
        f"# Audit of {res['game']} logs ({res['rules']})",
        "",
        f"{res['rows']:,} rows, {res['rounds']:,} complete rounds, {res['files']} file(s), "
        f"engine {res['engine']}.",
        "",
        "## Settlement",
        "",
        f"Checked {s['checked']:,} player rows: {s['agree']:,} agree, {s['disagree']:,} disagree.",
    ]
    if s["disagree"]:
        lines += ["", f"**Diagnosis:** {s['headline']}", ""]
        for ex in s["examples"][:10]:
            lines.append(
                f"* round {ex.get('round')}, seat {ex.get('seat')}: {ex.get('reason', '')}"
            )
    lines += ["", "## Impossible deals", "", f"{res['impossible']:,} rounds."]
    for r in res["impossible_rounds"][:20]:
        lines.append(f"* round {r['round']}: {r['reason']}")
    if res["malformed"]:
        lines += ["", f"Malformed rows or rounds: {res['malformed']:,}."]
        for r in res["malformed_rows"][:20]:
            lines.append(f"* round {r['round']}: {r['message']}")
    lines += [
        "",
        "## Deal fairness",
        "",
        "G-test against the exact probabilities (χ² for reference); power: the rounds the "
        "test needs to detect the stated bias at p < 1e-6 with probability 90 %.",
        "",
        "| test | group | n | G | df | p | χ² p | largest deviation | power (rounds) | bias |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |",
    ]
    for t in res["fairness"]:
        dev = t["deviations"][0] if t["deviations"] else None
        dv = f"{dev['label']}: {dev['observed']:,} vs {dev['expected']:,.1f}" if dev else ""
        pw = f"{t['power_rounds']:,}" if t["power_rounds"] else "-"
        if t.get("status") == "not enough rounds":
            pw = f"{pw} (**not enough rounds**: {t['rounds']:,})"
        flag = " **flag**" if t["p_value"] < res["alpha"] else ""
        lines.append(
            f"| {t['name']} | {t['group']} | {t['n']:,} | {t['statistic']:.2f} | {t['df']} | "
            f"{t['p_value']:.3g}{flag} | {t['chi2_p_value']:.3g} | {dv} | {pw} | {t['bias']} |"
        )
    holds, m = res.get("hold") or [], res.get("hold_method") or {}
    if holds:
        lines += [
            "",
            "## Hold",
            "",
            f"The players' total net ({m['observed']}) against its expected total, "
            f"{m['band_percent']:g} % band, {m['correction']}; sd from the exact variance "
            f"{m['variance_fraction']} of one player's net and the {m['covariance_note']}.",
            "",
            "| group | rounds | player rows | observed | expected | band | z | p | status |",
            "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |",
        ]
        for h in holds:
            lo, hi = h["band"]
            status = h["status"] + (f" (needs {h['power_rounds']:,})"
                                    if h["status"] == "not enough rounds" else "")  # fmt: skip
            lines.append(
                f"| {h['group']} | {h['rounds']:,} | {h['player_rows']:,} | {h['observed']:,.2f} | "
                f"{h['expected']:,.2f} | {lo:,.2f} .. {hi:,.2f} | {h['z']:+.2f} | "
                f"{h['p_value']:.3g} | {status} |"
            )
    if res.get("groups_not_listed"):
        g = res["groups_not_listed"]
        lines += ["", f"{g['not_listed']:,} more groups not listed ({g['note']}); "
                  f"{g['flagged_not_listed']:,} of them flagged."]  # fmt: skip
    if res.get("deck_hint"):
        lines += ["", f"**Hint:** {res['deck_hint']}"]
    for nr in res.get("not_run", []):
        lines += ["", f"Not run: **{nr['name']}**: {nr['reason']}."]
    for p in plots:
        lines += ["", f"![{p}]({p})"]
    return "\n".join(lines) + "\n"


def write_report(
    out: str, res: Mapping[str, Any], part: Partial, spec: AuditSpec
) -> dict[str, Any]:
    """Write the report files into ``out``; what was written."""
    os.makedirs(out, exist_ok=True)
    cats = _category_table(part, spec)
    pq.write_table(cats, os.path.join(out, "categories.parquet"))
    keys = (
        "name",
        "group",
        "n",
        "statistic",
        "df",
        "p_value",
        "chi2",
        "chi2_p_value",
        "power_rounds",
        "bias",
    )
    tests = pa.table({k: [t[k] for t in res["fairness"]] for k in keys})
    pq.write_table(tests, os.path.join(out, "tests.parquet"))
    net = _net_table(part, spec)
    extra = []
    if net is not None:
        pq.write_table(net, os.path.join(out, "net.parquet"))
        extra.append("net.parquet")
    plots = _plots(out, res, cats)
    with open(os.path.join(out, "audit.md"), "w", encoding="utf-8") as f:
        f.write(_markdown(res, plots))
    with open(os.path.join(out, "audit.json"), "w", encoding="utf-8") as f:
        json.dump(dict(res), f, indent=1)
    return {
        "dir": out,
        "files": [
            "audit.md",
            "audit.json",
            "tests.parquet",
            "categories.parquet",
            *extra,
            *plots,
        ],
    }
