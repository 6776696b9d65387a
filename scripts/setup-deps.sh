#!/usr/bin/env bash
# Installs what tilegemm needs to build on a fresh Debian machine (run as root, or with sudo present).
# The CUDA toolkit itself (nvcc, cuBLAS, NVRTC) must already be in /usr/local/cuda.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/include/CLI/CLI.hpp ] || need+=(libcli11-dev)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)  # the tuning database, linked statically
# The BLAS drop-in's tests: a Fortran caller, a C program linked to the system BLAS, Debian's NumPy.
command -v gfortran >/dev/null || need+=(gfortran)
[ -e /usr/lib/x86_64-linux-gnu/libblas.so ] || need+=(libblas-dev)
/usr/bin/python3 -c "import numpy" 2>/dev/null || need+=(python3-numpy)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
# The Python package's build and tests (nanobind, pytest, NumPy) and the plot tests (matplotlib), for
# the python3 on PATH.
py_need=()
for mod in nanobind pytest numpy matplotlib; do
  python3 -c "import $mod" 2>/dev/null || py_need+=("$mod")
done
if [ ${#py_need[@]} -gt 0 ]; then
  pins=(); for mod in "${py_need[@]}"; do [ "$mod" = nanobind ] && pins+=("nanobind==2.9.2") || pins+=("$mod"); done
  echo "setup: pip installing ${pins[*]}"
  python3 -m pip install -q --disable-pip-version-check "${pins[@]}"
fi
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: the CUDA toolkit (nvcc) was not found in PATH or /usr/local/cuda; install CUDA 13 first" >&2
  exit 1
fi
