#!/usr/bin/env python3
"""Draw TFLOP/s against problem size from a `tilegemm bench` CSV.

Usage: python3 bench/plot_gflops.py BENCH.csv OUT.png|OUT.svg

`tilegemm bench --plot OUT` runs this after its sweep; it can also be run by hand on any bench CSV.
One line per kernel, cuBLAS included (black), from the rows whose status is "ok" (failed and skipped
kernels have no time). The x axis (log2) is M when every shape is a cube (M = N = K), otherwise the
cube root of M*N*K, and its label says which. Columns that differ between rows (device, layout, trans,
dtype: concatenated CSVs) go into the line labels, the others into the title.

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
    if len(argv) != 3:
        fail("usage: plot_gflops.py BENCH.csv OUT.png|OUT.svg")
    csv_path, out_path = argv[1], argv[2]
    if os.path.splitext(out_path)[1].lower() not in (".png", ".svg"):
        fail(f"{out_path}: expected a .png or .svg file name")
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    except ImportError:
        print("matplotlib is missing: pip install matplotlib (or apt-get install python3-matplotlib)", file=sys.stderr)
        sys.exit(EXIT_NO_MATPLOTLIB)

    rows = read_ok_rows(csv_path)
    if not rows:
        fail(f"{csv_path}: no rows with status ok to plot")

    cubes = all(r["m"] == r["n"] == r["k"] for r in rows)
    for r in rows:
        r["x"] = float(r["m"]) if cubes else (r["m"] * r["n"] * r["k"]) ** (1.0 / 3.0)
    varying = [f for f in SERIES_FIELDS if len({r.get(f, "") for r in rows}) > 1]
    fixed = [f for f in SERIES_FIELDS if f not in varying]

    # Series in first-appearance order (the bench writes cuBLAS first).
    series = {}
    for r in rows:
        extra = ", ".join(describe(f, r[f]) for f in varying)
        label = r["kernel"] + (f" ({extra})" if extra else "")
        series.setdefault(label, {"baseline": r["kernel"] == "cublas", "points": []})["points"].append(
            (r["x"], r["tflops"]))

    fig, ax = plt.subplots(figsize=(9, 5.5))
    colors = plt.get_cmap("tab10").colors
    markers = "os^Dv<>pPX*h"
    ci = 0
    for label, s in series.items():
        pts = sorted(s["points"])
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if s["baseline"]:
            ax.plot(xs, ys, color="black", linewidth=2.4, marker="o", label=label, zorder=3)
        else:
            ax.plot(xs, ys, color=colors[ci % len(colors)], linewidth=1.4, marker=markers[ci % len(markers)],
                    markersize=5, label=label, zorder=2)
            ci += 1

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
    print(f"wrote {out_path} ({len(series)} lines, {len(sizes)} sizes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
