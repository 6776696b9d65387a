#!/usr/bin/env python3
"""Draw TFLOP/s against problem size from one or more `tilegemm bench` CSVs, in one plot.

Usage: python3 bench/plot_gflops.py BENCH.csv [MORE.csv ...] OUT.png|OUT.svg

`tilegemm bench --plot OUT` runs this on its one CSV after its sweep; scripts/bench.sh gives it the FP32
and the BF16 sweep of the same preset. It can also be run by hand on any bench CSVs.
One line per kernel, cuBLAS included (black), from the rows whose status is "ok" (failed and skipped
kernels have no time). The x axis (log2) is M when every shape is a cube (M = N = K), otherwise the
cube root of M*N*K, and its label says which. Columns that differ between rows (device, dtype, layout,
trans: several CSVs, or concatenated ones) go into the line labels, the others into the title.

Runs: the rows that agree on those differing columns (e.g. the FP32 rows and the BF16 rows). Each run
has its own line style (solid, dashed, dotted, ...) and each kernel its own colour and marker, so Auto
in FP32 and Auto in BF16 share a colour. The y axis is linear from 0, unless the runs' best rates
differ by more than 8x (FP32 on CUDA cores ~50 TFLOP/s against BF16 on tensor cores ~700 on an H200):
then it is log10, so that the slower run's lines are not pressed flat at the bottom. The spread within
one run (the ladder's naive level against cuBLAS) keeps the linear axis: it is what the ladder shows.

A CSV with no "ok" rows is left out with a warning when the other CSVs have some.

Exit status: 0 drawn; 2 bad arguments or nothing to draw; 3 matplotlib is missing.
"""
import csv
import os
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3  # tools/gemm/plot.hpp: kPlotExitNoMatplotlib
REQUIRED = {"device", "m", "n", "k", "layout", "trans", "kernel", "status", "tflops"}
# Columns that name a series when they vary between rows, in label order.
SERIES_FIELDS = ("device", "dtype", "layout", "trans")
# Best-rate ratio between runs above which the y axis turns logarithmic (see the docstring).
LOG_Y_SPREAD = 8.0
RUN_STYLES = ("-", "--", ":", "-.")


def fail(message, status=EXIT_BAD_INPUT):
    print(f"plot_gflops.py: {message}", file=sys.stderr)
    sys.exit(status)


def read_ok_rows(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = REQUIRED - set(reader.fieldnames or [])
            if missing:
                fail(f"{path}: not a tilegemm bench CSV (missing columns: {', '.join(sorted(missing))})")
            rows = []
            for r in reader:
                if r["status"] != "ok":
                    continue
                try:
                    m, n, k, tflops = int(r["m"]), int(r["n"]), int(r["k"]), float(r["tflops"])
                except ValueError:
                    fail(f"{path}: malformed row {reader.line_num}")
                if m > 0 and n > 0 and k > 0 and tflops > 0:  # a log axis cannot show size 0
                    r.update(m=m, n=n, k=k, tflops=tflops)
                    r.setdefault("dtype", "fp32")
                    rows.append(r)
            return rows
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")


def describe(field, value):
    if field == "layout":
        return {"row": "row-major", "col": "column-major"}.get(value, value)
    if field == "dtype":
        return value.upper()
    return value


def main(argv):
    if len(argv) < 3:
        fail("usage: plot_gflops.py BENCH.csv [MORE.csv ...] OUT.png|OUT.svg")
    csv_paths, out_path = argv[1:-1], argv[-1]
    if os.path.splitext(out_path)[1].lower() not in (".png", ".svg"):
        fail(f"{out_path}: expected a .png or .svg file name")
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator
    except ImportError:
        print("matplotlib is missing: pip install matplotlib (or apt-get install python3-matplotlib)", file=sys.stderr)
        sys.exit(EXIT_NO_MATPLOTLIB)

    rows = []
    empty = []
    for path in csv_paths:
        got = read_ok_rows(path)
        rows += got
        if not got:
            empty.append(path)
    if not rows:
        fail(f"{', '.join(csv_paths)}: no rows with status ok to plot")
    for path in empty:  # e.g. a BF16 sweep that failed throughout: the other runs are still worth a plot
        print(f"plot_gflops.py: {path}: no rows with status ok (left out of the plot)", file=sys.stderr)

    cubes = all(r["m"] == r["n"] == r["k"] for r in rows)
    for r in rows:
        r["x"] = float(r["m"]) if cubes else (r["m"] * r["n"] * r["k"]) ** (1.0 / 3.0)
    varying = [f for f in SERIES_FIELDS if len({r.get(f, "") for r in rows}) > 1]
    fixed = [f for f in SERIES_FIELDS if f not in varying]

    # Series and runs in first-appearance order (the bench writes cuBLAS first).
    series = {}
    runs = {}  # run (the varying columns' values) -> its best rate
    for r in rows:
        run = tuple(r[f] for f in varying)
        runs[run] = max(runs.get(run, 0.0), r["tflops"])
        extra = ", ".join(describe(f, v) for f, v in zip(varying, run))
        label = r["kernel"] + (f" ({extra})" if extra else "")
        series.setdefault(label, {"kernel": r["kernel"], "run": run, "points": []})["points"].append(
            (r["x"], r["tflops"]))
    run_index = {run: i for i, run in enumerate(runs)}
    log_y = max(runs.values()) > LOG_Y_SPREAD * min(runs.values())

    fig, ax = plt.subplots(figsize=(9, 5.5))
    colors = plt.get_cmap("tab10").colors
    markers = "os^Dv<>pPX*h"
    kernel_index = {}  # colour and marker per kernel, shared by its lines in every run
    for label, s in series.items():
        pts = sorted(s["points"])
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        style = RUN_STYLES[run_index[s["run"]] % len(RUN_STYLES)]
        if s["kernel"] == "cublas":
            ax.plot(xs, ys, color="black", linestyle=style, linewidth=2.4, marker="o", label=label, zorder=3)
        else:
            ci = kernel_index.setdefault(s["kernel"], len(kernel_index))
            ax.plot(xs, ys, color=colors[ci % len(colors)], linestyle=style, linewidth=1.4,
                    marker=markers[ci % len(markers)], markersize=5, label=label, zorder=2)

    ax.set_xscale("log", base=2)
    sizes = sorted({r["x"] for r in rows})
    if len(sizes) <= 16:  # label the measured sizes themselves, minus near-duplicates (4095 next to 4096)
        ticks = [sizes[0]]
        for v in sizes[1:]:
            if v > ticks[-1] * 1.05:
                ticks.append(v)
        ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}"))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(sizes) > 8:
        plt.setp(ax.get_xticklabels(), rotation=45, ha="right")
    ax.set_xlabel("M = N = K (log2 scale)" if cubes
                  else "cube root of M·N·K (shapes are not all square; log2 scale)")
    if log_y:
        ax.set_yscale("log", base=10)
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))  # 1-2-5: rates readable mid-decade
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # 0.1, 1, 1000: not 10^k
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylabel("TFLOP/s (median, log10 scale)")
    else:
        ax.set_ylabel("TFLOP/s (median)")
        ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)

    title = "GEMM"
    if "dtype" in fixed:
        title = f"{describe('dtype', rows[0]['dtype'])} {title}"
    if "device" in fixed:
        title += f" on {rows[0]['device']}"
    shape_words = [describe(f, rows[0][f]) for f in ("layout", "trans") if f in fixed]
    if shape_words:
        title += " — " + ", ".join(shape_words)
    ax.set_title(title)

    if len(series) > 8:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(fontsize="small", loc="best")
    try:
        fig.savefig(out_path, dpi=150, bbox_inches="tight")
    except OSError as e:
        fail(f"cannot write {out_path}: {e.strerror}")
    print(f"wrote {out_path} ({len(series)} lines, {len(sizes)} sizes{', log y axis' if log_y else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
