"""Cross-value relations on real Neuron summaries, computed without neuroncmp.

Reads every real summary we hold: the view JSONs here (summary[0], nc_mem_usage, metadata), the
summary-text excerpt here, the UI markdown export here, and, when present beside the repository,
the public samples in ../shared/samples and the user's export in ../shared/seeds (display values,
converted here), and the derived summary-json files in derived/summary-json/ (summaries of real view
JSONs, SOURCES.md). Writes RELATIONS.md next to this file: per rule, per profile, the two sides, their
relative difference and whether the relation holds.

    python tests/data/third_party/check_relations.py [--shared PATH/TO/shared]

Relative difference = |a - b| / max(|a|, |b|). A relation "holds" when that is within 1e-3, plus,
for UI exports (display values such as '0.73 **%**'), the relative half-step of the last printed
digit of every value the rule uses.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
GIB, MIB, KIB = 2**30, 2**20, 2**10
# Clock per family: AWS architecture pages (trn1/inf2 NeuronCore-v2 1.4 GHz, trn2 NeuronCore-v3 1.2 GHz)
CLOCK = {"trn1": 1.4e9, "trn1n": 1.4e9, "inf2": 1.4e9, "trn2": 1.2e9}
EXACT = 1e-3
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "B": 1, "KiB": KIB, "MiB": MIB, "GiB": GIB,
         "TiB": 2**40, "GFLOPS": 1e9, "TFLOPS": 1e12, "MFLOPS": 1e6, "%": 0.01, "flops/byte": 1}


class Summary:
    def __init__(self, label, source, version, values, memory=None, metadata=None, tol=EXACT, prec=None):
        self.label, self.source, self.version = label, source, version
        self.v, self.memory, self.metadata, self.tol = values, memory or [], metadata or {}, tol
        self.prec = prec or {}  # key -> relative half-step of the printed value (UI exports)

    def tolerance(self, keys):
        """The rule's tolerance plus the printed precision of every value it uses."""
        return self.tol + sum(self.prec.get(k, 0.0) for k in keys)

    def num(self, key):
        value = self.v.get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def family(self):
        instance = str(self.v.get("instance_type") or self.metadata.get("instance_type") or "")
        return instance.split(".")[0] or None


# ---- readers -------------------------------------------------------------------------------

def view_json(path, label):
    data = json.loads(Path(path).read_text())
    summary = data["summary"][0]
    rows = [(r["nc"], r["usage_type"], r["amount_bytes"]) for r in data.get("nc_mem_usage", [])]
    return Summary(label, "view JSON", summary.get("profiler_version"), summary, rows,
                   (data.get("metadata") or [{}])[0])


def summary_json(path, label):
    data = json.loads(Path(path).read_text())
    block = data if "total_time" in data else next(iter(data.values()))
    return Summary(label, "summary-json", block.get("profiler_version"), block)


def summary_text(path, label):
    values = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                values[parts[0]] = float(parts[1])
            except ValueError:
                values[parts[0]] = parts[1]
    return Summary(label, "summary-text", values.get("profiler_version"), values)


def _display(text):
    """'54.82 **ms**' -> (0.05482, 0.005 / 54.82): the value in base units and the relative
    half-step of its last printed digit; '2.28.27 ()' -> (the string, 0)."""
    match = re.fullmatch(r"\s*([-\d.eE+]+)\s*(?:\*\*(.+?)\*\*)?\s*", text)
    if not match:
        return text.strip(), 0.0
    digits, unit = match.group(1), (match.group(2) or "").strip()
    if unit and unit not in UNITS:
        return text.strip(), 0.0
    number = float(digits)
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    half = 0.5 * 10 ** -decimals / abs(number) if number else 0.0
    return number * UNITS.get(unit, 1), half


def ui_markdown(path, prefix):
    """Every '# Title' section's summary and memory tables (the seed's malformed 3-column layout)."""
    out, title, values, memory, prec = [], None, {}, [], {}

    def flush():
        if title and values:
            out.append(Summary(f"{prefix} / {title}", "UI markdown", values.get("profiler_version"),
                               values, memory, tol=EXACT, prec=prec))

    for line in Path(path).read_text().splitlines():
        if line.startswith("# "):
            flush()
            title, values, memory, prec = line[2:].strip(), {}, [], {}
            continue
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = [c for c in cells if c.startswith("**") and c.endswith("**") and c.count("**") == 2]
        if len(cells) == 4 and cells[0].isdigit() and cells[1].isdigit():
            amount, half = _display(cells[3])
            memory.append((int(cells[1]), cells[2], amount))
            prec["memory"] = max(prec.get("memory", 0.0), half)
        elif names:
            name = names[0].strip("*")
            rest = [c for c in cells[cells.index(names[0]) + 1:] if c]
            if rest:
                values[name], prec[name] = _display(rest[0])
    flush()
    return out


def gather(shared):
    found = [view_json(p, Path(p).name) for p in sorted(glob.glob(str(HERE / "view-json/*.json")))]
    found += [summary_text(p, Path(p).name) for p in sorted(glob.glob(str(HERE / "summary-text/*.txt")))]
    found += [summary_json(p, "derived:" + Path(p).name.replace(".summary-json.json", ""))
              for p in sorted(glob.glob(str(HERE / "derived/summary-json/*.json")))]
    for path in sorted(glob.glob(str(HERE / "ui-markdown/*.md"))):
        found += ui_markdown(path, Path(path).name)
    if shared:
        base = Path(shared)
        found += [view_json(p, "shared:" + Path(p).name)
                  for p in sorted(glob.glob(str(base / "samples/neuron-profile/view-json/*.json")))]
        found += [summary_json(p, "shared:" + Path(p).name)
                  for p in sorted(glob.glob(str(base / "samples/neuron-profile/*.json")))]
        seed = base / "seeds/003_a8d02f199ef107f4.txt"
        if seed.is_file():
            found += ui_markdown(seed, "seed 003")
    return found


# ---- relations -----------------------------------------------------------------------------

def rel(a, b):
    if a is None or b is None:
        return None
    top = max(abs(a), abs(b))
    return 0.0 if top == 0 else abs(a - b) / top


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def rows_for(s):
    """(rule, quantity, a, b, compared?, keys used) for one summary."""
    out = []
    total, dma = s.num("total_time"), s.num("dma_active_time")
    clock = CLOCK.get(s.family)
    cycles = s.num("neuroncore_cycle_count")
    if cycles is not None and total:
        out.append(("cycles-mismatch: neuroncore_cycle_count / family clock vs total_time",
                    f"{s.family} {clock / 1e9 if clock else '?'} GHz",
                    ratio(cycles, clock) if clock else None, total, True, ["total_time"]))
        out.append(("clock: neuroncore_cycle_count / total_time (GHz)", "implied clock",
                    cycles / total / 1e9, clock / 1e9 if clock else None, True, ["total_time"]))
    for key in sorted(s.v):
        if not key.endswith("_active_time_percent") or s.num(key) is None:
            continue
        tkey = key[: -len("_percent")]
        time = s.num(tkey)
        if time is None or not total:
            continue
        kind = "DMA sub-share" if key != "dma_active_time_percent" and "dma" in key else "engine/other share"
        out.append((f"share-mismatch (as neuroncmp checks it): X_active_time_percent vs "
                    f"X_active_time / total_time [{kind}]", key, s.num(key), time / total, True,
                    [key, tkey, "total_time"]))
        if kind == "DMA sub-share" and dma:
            out.append(("DMA sub-share vs X_dma_active_time / dma_active_time", key, s.num(key),
                        time / dma, True, [key, tkey, "dma_active_time"]))
    sw, hw = s.num("software_dynamic_dma_active_time"), s.num("hardware_dynamic_dma_active_time")
    dyn = s.num("dynamic_dma_active_time_percent")
    if dyn is not None and dma and total and sw is not None and hw is not None:
        what = "dynamic_dma_active_time_percent (X = software + hardware dynamic)"
        out.append(("DMA sub-share vs X_dma_active_time / dma_active_time", what, dyn, (sw + hw) / dma,
                    True, []))
        out.append(("share-mismatch (as neuroncmp checks it): X_active_time_percent vs "
                    "X_active_time / total_time [DMA sub-share]", what, dyn, (sw + hw) / total, True, []))
    model, hardware = s.num("model_flops"), s.num("hardware_flops")
    mfu, hfu = s.num("mfu_estimated_percent"), s.num("hfu_estimated_percent")
    mbu = s.num("mbu_estimated_percent")
    peak_mfu = model / (mfu * total) if model and mfu and total else None
    peak_hfu = hardware / (hfu * total) if hardware and hfu and total else None
    if peak_mfu is not None or peak_hfu is not None:
        out.append(("MFU and HFU imply the same peak FLOP/s: model_flops/(mfu x t) vs "
                    "hardware_flops/(hfu x t), TFLOP/s", "implied peak",
                    peak_mfu / 1e12 if peak_mfu else None, peak_hfu / 1e12 if peak_hfu else None, True,
                    ["model_flops", "mfu_estimated_percent", "hardware_flops", "hfu_estimated_percent"]))
    read, write = s.num("hbm_read_bytes"), s.num("hbm_write_bytes")
    if mbu and total and read is not None and write is not None:
        implied = (read + write) / (mbu * total)
        stated = s.metadata.get("hbm_ddr_bandwidth")
        keys = ["hbm_read_bytes", "hbm_write_bytes", "mbu_estimated_percent", "total_time"]
        out.append(("MBU implied bandwidth (hbm_read+hbm_write)/(mbu x t) vs metadata "
                    "hbm_ddr_bandwidth, GB/s", "implied bandwidth", implied / 1e9,
                    stated / 1e9 if stated else None, True, keys))
        ridge = s.num("peak_flops_bandwidth_ratio")
        peak = peak_mfu or peak_hfu
        if ridge and peak:
            out.append(("peak_flops_bandwidth_ratio vs implied peak / MBU-implied bandwidth", "ridge",
                        ridge, peak / implied, True,
                        keys + ["peak_flops_bandwidth_ratio", "model_flops", "mfu_estimated_percent"]))
    for core in sorted({r[0] for r in s.memory}):
        rows = [r for r in s.memory if r[0] == core]
        totals = [r[2] for r in rows if r[1].lower() == "total"]
        parts = [r[2] for r in rows if r[1].lower() != "total" and isinstance(r[2], (int, float))]
        if totals:
            out.append(("memory-total-mismatch: Total row vs sum of rows (bytes)", f"nc {core}",
                        float(totals[0]), float(sum(parts)), True, ["memory"]))
    active, active_pct = s.num("total_active_time"), s.num("total_active_time_percent")
    if active is not None and active_pct is not None and total:
        out.append(("total_active_time_percent vs total_active_time / total_time",
                    "total_active_time_percent", active_pct, active / total, True,
                    ["total_active_time", "total_active_time_percent", "total_time"]))
    for key in sorted(k for k in s.v if k.endswith("_instruction_time") and s.num(k) is not None):
        if total:
            out.append(("instruction-time bound: X_instruction_time <= total_time (an upper bound a "
                        "rule might assume)", key, s.num(key), total, "le", [key, "total_time"]))
    for key in [k for k in s.v if k.endswith("_percent") and (s.num(k) or 0) > 1]:
        out.append(("percent-over-100: a *_percent value above 1 (kept, flagged)", key, s.num(key),
                    1.0, False, []))
    return out


READING = """## Reading (written by hand from this table; rerun the script to check it still says so)

- **cycles-mismatch** (neuroncmp `anomalies._cycles`, 0.5 %): holds on every profile, at 1.4 GHz on trn1
  and inf2 and 1.2 GHz on trn2.3xlarge (the implied clock is 1.2000 GHz there). Keep.
- **share-mismatch** (neuroncmp `anomalies._active_shares`: every `X_active_time_percent` against
  `X_active_time / total_time`, 1 % + 5e-5): holds for every engine, `cc_op`, `cc_cores_instruction`,
  `total_active_time` and `dma_active_time_percent` itself, on every profile (UI exports within their
  printed precision). It **never holds** for the DMA sub-shares (`static_`, `software_dynamic_`,
  `hardware_dynamic_`, `dynamic_dma_active_time_percent`): on every view JSON they equal
  `X_dma_active_time / dma_active_time` (40 of 40 within 1e-3; `dynamic_` = software + hardware
  dynamic). The rule must divide those by `dma_active_time`, or they are false flags (issue 20 class 3).
- **memory-total-mismatch** (0.1 %): holds on every memory table (view JSON `nc_mem_usage` per core,
  and UI export tables within their printed precision). Keep.
- **MFU/HFU implied peak**: where both are stated they imply the same peak (91.75 TFLOP/s on trn1 and
  inf2). On trn2.3xlarge `model_flops` is absent (the tool warns the NEFF lacks HLO stats) and HFU
  implies 157.3 TFLOP/s, i.e. two physical cores (LNC=2) of about 78.6.
- **MBU implied bandwidth** equals the view JSON's own `metadata.hbm_ddr_bandwidth` exactly: 410 GB/s
  on inf2, 716 GB/s on trn2.3xlarge.
- **peak_flops_bandwidth_ratio = implied peak / implied bandwidth** holds on trn1 and inf2 (223.78)
  but **not on trn2.3xlarge**: the profile states 109.84, exactly half of 157.3 TFLOP/s / 716 GB/s (one
  physical core's peak over the logical core's bandwidth). Deriving HBM bandwidth as implied peak /
  ratio would give 1432 GB/s there, twice what the profile states.
- **derived trn2 summaries** (`derived/summary-json/`, six more attention kernels at s512 and s1024 from
  the same trn2.3xlarge profiler 2.28 run set): the same pattern as the four view JSONs: cycles at
  1.2 GHz hold, DMA sub-shares are shares of `dma_active_time` (24 of 24), and the stated ridge (109.84) is
  again half of implied peak / implied bandwidth where both can be computed. They carry no `metadata`,
  so the MBU bandwidth rule has no stated side there ("no verdict").
- **instruction-time bound** (not a neuroncmp rule today; tested because it is tempting):
  `X_instruction_time <= total_time` **does not hold** on 9 of 218: `tensor_engine_instruction_time`
  exceeds `total_time` by 6-44 % on seven trn2.3xlarge attention profiles (profiler 2.28) and on the
  seed's trn1 "Batch 64 (swap)" (2.26), `vector_engine_instruction_time` by 4.6 % on the trnblas trn1
  summary (2.29). Instruction times are sums of instruction durations that overlap, not wall time: no
  rule may bound them by `total_time` or flag them as shares (`*_instruction_time` has no `_percent`).
- **value ranges** (neuroncmp `validate`): no NaN, infinity or negative value in any real summary; no
  `*_percent` above 1 except the throttle values the seed export states (109.67 %, 25300 %), which
  stay flagged as `percent-over-100`.
"""


def render(summaries):
    rules: dict[str, list] = {}
    for s in summaries:
        for rule, what, lhs, rhs, compare, keys in rows_for(s):
            rules.setdefault(rule, []).append((s, what, lhs, rhs, compare, s.tolerance(keys)))
    lines = ["# Cross-value relations on real Neuron summaries", "",
             "Generated by `check_relations.py` (standalone: it does not import neuroncmp). Sources: "
             "this folder (SOURCES.md) and the public samples and seed export in `shared/`. "
             "`rel diff` = |a - b| / max(|a|, |b|); tolerance 1e-3, plus, for UI exports, the "
             "relative half-step of each printed value the rule uses. `-` = a side the profile does not state.", "",
             "## Verdicts", "", "| rule | profiles | holds | does not hold | no verdict |",
             "|---|---|---|---|---|"]
    detail = []
    for rule, items in rules.items():
        held = failed = none = 0
        detail += ["", f"## {rule}", "", "| profile | profiler | quantity | a | b | rel diff | verdict |",
                   "|---|---|---|---|---|---|---|"]
        for s, what, lhs, rhs, compare, tol in items:
            if compare == "le":  # an upper bound: only the excess of a over b counts
                diff = None if lhs is None or rhs is None else max(0.0, rel(lhs, rhs) if lhs > rhs else 0.0)
            else:
                diff = rel(lhs, rhs) if compare else None
            if not compare:
                verdict = "flagged (value > 1)"
                none += 1
            elif diff is None:
                verdict = "no verdict"
                none += 1
            elif diff <= tol:
                verdict, held = "holds", held + 1
            else:
                verdict, failed = "does not hold", failed + 1
            detail.append(f"| {s.label} | {short(s.version)} | {what} | {fmt(lhs)} | {fmt(rhs)} | "
                          f"{fmt(diff)} | {verdict} |")
        lines.append(f"| {rule} | {len(items)} | {held} | {failed} | {none} |")
    versions = sorted({short(s.version) for s in summaries})
    lines += ["", f"{len(summaries)} summaries; profiler versions: {', '.join(versions)} "
              "(`-` = the profile does not state it).", "", READING]
    return "\n".join(lines + detail) + "\n"


def short(version):
    return str(version).split("%")[0] if version else "-"


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.6g}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=None,
                        help="the shared folder with samples/ and seeds/ (default: shared/ beside the "
                             "repository, else /work/shared; skipped when absent)")
    args = parser.parse_args()
    candidates = [args.shared] if args.shared else [HERE.parents[3] / "shared", "/work/shared"]
    shared = next((str(c) for c in candidates if Path(c).is_dir()), None)
    summaries = gather(shared)
    (HERE / "RELATIONS.md").write_text(render(summaries))
    print(f"{len(summaries)} summaries -> RELATIONS.md")


if __name__ == "__main__":
    main()
