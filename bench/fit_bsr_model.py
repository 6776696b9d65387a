#!/usr/bin/env python3
"""Fits the BSR families' time model (src/ops/families/bsr_common/bsr_model.hpp) to measurements.

Input: tests/cpu/data/bsr_measured_h100.txt (one line per product: the median time of each family's
default config). For every family, orientation and block-height class it fits non-negative
coefficients of the model's terms by least squares on the relative error, then prints them as the
C++ calibration rows and the picks' quality (Auto's pick / the fastest family, geomean and worst).

    python3 bench/fit_bsr_model.py [tests/cpu/data/bsr_measured_h100.txt]
"""
import math
import sys

import numpy as np

# Mirrors of src/sparse/config.cpp's default schedule per block shape: (tile i, tile j, K-chunk).
def default_tile(family, r, c, row_cols):
    k32 = c % 32 == 0
    if family == "tiled":
        if r >= 64:
            return (64, 128, 32) if k32 else (64, 128, 16)
        if r >= 32:
            return (32, 128, 16)
        return (16, 256, 16) if r >= 16 else (8, 256, 8)
    if r >= 64:
        return (64, 128, 32) if k32 else (64, 128, 16)
    if r >= 32:
        return (32, 128, 32) if k32 else (32, 128, 16)
    return (16, 256, 16)


def height_class(r):
    return 64 if r >= 64 else 32 if r >= 32 else 16 if r >= 16 else 8


def terms(cell, family):
    """The model's terms (bsr_model.hpp): the same units as the C++ code."""
    r, c, j, nnzb = cell["r"], cell["c"], cell["j"], cell["nnzb"]
    if family == "small_m":
        nz = nnzb * r * c
        passes = math.ceil(j / 16)
        columns = 1 if j == 1 else 8 if j <= 8 else 16  # the kernel's columns per pass
        return [1.0, passes, passes * columns / 16, nz * passes / 1e6, nz * j / 1e6,
                cell["longest"] * c * passes / 1e3]
    ti, tj, kc = default_tile(family, r, c, cell["row_cols"])
    jt, rt = math.ceil(j / tj), math.ceil(r / ti)
    tiles = jt * cell["block_rows"] * rt
    steps = jt * nnzb * rt * math.ceil(c / kc)
    macs = jt * tj * nnzb * rt * ti * c
    # Fewer tiles than two per SM (132 on the H100): the longest row's tile is the critical path.
    longest_steps = cell["longest"] * math.ceil(c / kc) if tiles < 2 * 132 else 0
    return [1.0, tiles / 1e3, steps / 1e4, macs / 1e9, longest_steps / 1e2]


def nnls(a, b, iters=20000):
    scale = np.sqrt((a * a).sum(0)) + 1e-30
    a_s = a / scale
    x = np.maximum(np.linalg.lstsq(a_s, b, rcond=None)[0], 0)
    lip = np.linalg.norm(a_s, 2) ** 2
    for _ in range(iters):
        x = np.maximum(x - (a_s.T @ (a_s @ x - b)) / lip, 0)
    return x / scale


def load(path):
    cells = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        op, m, n, k, r, c, nnzb, longest, *us = line.split()
        m, n, k, r, c, nnzb, longest = map(int, (m, n, k, r, c, nnzb, longest))
        xwt = op == "xwt"
        i, j = (n, m) if xwt else (m, n)
        block_rows = -(-i // r)
        cell = dict(op=op, m=m, n=n, k=k, r=r, c=c, nnzb=nnzb, longest=longest, i=i, j=j, block_rows=block_rows,
                    row_cols=nnzb * c / block_rows, t={})
        for fam, v in zip(("small_m", "tiled", "tf32x3"), us):
            if v != "-":
                cell["t"][fam] = float(v)
        cells.append(cell)
    return cells


def group(cell, family):
    return (cell["op"],) if family == "small_m" else (cell["op"], height_class(cell["r"]))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/cpu/data/bsr_measured_h100.txt"
    cells = load(path)
    coef = {}
    for fam in ("small_m", "tiled", "tf32x3"):
        groups = {}
        for cell in cells:
            if fam in cell["t"]:
                groups.setdefault(group(cell, fam), []).append(cell)
        for g, cs in sorted(groups.items()):
            a = np.array([terms(x, fam) for x in cs])
            t = np.array([x["t"][fam] for x in cs])
            w = 1 / t
            coef[(fam,) + g] = nnls(a * w[:, None], t * w)
    for key, v in sorted(coef.items()):
        print("  {%s, {%s}}," % (", ".join(str(x) for x in key), ", ".join("%.4g" % x for x in v)))
    logs = []
    for cell in cells:
        best = min(cell["t"].values())
        # bsr-small-m is a candidate up to J = 128 (bsr_small_m_family.cpp, kMaxBatch).
        fams = [f for f in cell["t"] if f != "small_m" or cell["j"] <= 128]
        pred = {f: float(np.dot(coef[(f,) + group(cell, f)], terms(cell, f))) for f in fams}
        pick = min(pred, key=pred.get)
        logs.append(math.log(cell["t"][pick] / best))
    print("picks / fastest: geomean %.4f, worst %.3f, over %d products" %
          (math.exp(sum(logs) / len(logs)), math.exp(max(logs)), len(logs)))


if __name__ == "__main__":
    main()
