#!/usr/bin/env python3
"""Condenses `tilegemm bench --sparse` CSVs: one line per problem with each contender's median
time (us) and our best kernel's speedup vs cuSPARSE and dense cuBLAS.
Usage: scripts/sparse-summary.py file.csv [...] [--kernel auto] [--markdown]"""
import csv, sys
from collections import OrderedDict

args = [a for a in sys.argv[1:] if not a.startswith("--")]
ours = "auto"
if "--kernel" in sys.argv:
    ours = sys.argv[sys.argv.index("--kernel") + 1]
    args.remove(ours)
for path in args:
    probs = OrderedDict()
    for r in csv.DictReader(open(path)):
        key = (r["op"], r["m"], r["k"], r["n"], r["block_rows"] + "x" + r["block_cols"], r["sparsity"], r["rows"])
        probs.setdefault(key, {})[r["kernel"]] = r
    kernels = []
    for rows in probs.values():
        for k in rows:
            if k not in kernels:
                kernels.append(k)
    if "--markdown" in sys.argv:
        print("| op | m | k | n | block | sparsity | rows | cuBLAS us | cuSPARSE us | %s us | vs cuSPARSE | vs cuBLAS |" % ours)
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for key, rows in probs.items():
            t = lambda k: float(rows[k]["median_ms"]) * 1000 if k in rows and rows[k]["status"] == "ok" else float("nan")
            o, sp, bl = t(ours), t("cusparse-bsr"), t("cublas-dense")
            print("| %s | %s | %s | %s | %s | %s | %s | " % key + "%.1f | %.1f | %.1f | %.2fx | %.2fx |" % (bl, sp, o, sp / o, bl / o))
        continue
    print(path)
    print("%-4s %5s %5s %5s %6s %5s %-7s " % ("op", "m", "k", "n", "block", "spars", "rows") +
          " ".join("%12s" % k[:12] for k in kernels) + "   %s/cuSP %s/cuBL" % (ours, ours))
    worst_sp, worst_bl = 1e9, 1e9
    for key, rows in probs.items():
        cells = []
        for k in kernels:
            r = rows.get(k)
            cells.append("%12.1f" % (1000 * float(r["median_ms"])) if r and r["status"] == "ok" else "%12s" % "-")
        o = rows.get(ours)
        sp = bl = float("nan")
        if o and o["status"] == "ok":
            t = float(o["median_ms"])
            if "cusparse-bsr" in rows and rows["cusparse-bsr"]["status"] == "ok":
                sp = float(rows["cusparse-bsr"]["median_ms"]) / t
                worst_sp = min(worst_sp, sp)
            if "cublas-dense" in rows and rows["cublas-dense"]["status"] == "ok":
                bl = float(rows["cublas-dense"]["median_ms"]) / t
                worst_bl = min(worst_bl, bl)
        print("%-4s %5s %5s %5s %6s %5s %-7s " % key + " ".join(cells) + "   %7.2fx %7.2fx" % (sp, bl))
    print("worst %s vs cuSPARSE %.2fx, vs cuBLAS %.2fx (times in us)" % (ours, worst_sp, worst_bl))
