#!/usr/bin/env bash
# Everything a fresh machine needs before glassbox builds: Debian packages, .venv, pinned pip
# packages and the CPU build of torch 2.13.0. Each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

# Named in full, never left to "Recommends" (installed with --no-install-recommends): the build
# must not depend on what a machine happens to have. CMakeLists.txt names the package for each
# thing it cannot find.
APT_PACKAGES=(pkg-config libgtest-dev clang-14 libclang-rt-14-dev clang-format-14
              flatbuffers-compiler libflatbuffers-dev libopenblas-dev libopenblas-openmp-dev libdnnl-dev)

install_apt_packages() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo="sudo" || {
      echo "setup: missing Debian packages: ${missing[*]} (run as root, or install them and rerun)" >&2
      return 1
    }
  fi
  echo "setup: installing Debian packages: ${missing[*]}"
  local apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends)
  if ! "${apt[@]}" "${missing[@]}"; then
    $sudo apt-get update -q && "${apt[@]}" "${missing[@]}" || {
      echo "setup: could not install Debian packages: ${missing[*]}" >&2
      return 1
    }
  fi
}

pick_python() {
  for candidate in python3.11 python3.12 python3.10 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(not (3, 10) <= sys.version_info[:2] <= (3, 13))'; then
      echo "$candidate"; return 0
    fi
  done
  echo "setup: need CPython 3.10 to 3.13" >&2; return 1
}

install_python_packages() {
  if [ ! -x .venv/bin/python ]; then
    local py; py=$(pick_python)
    echo "setup: creating .venv with $py"
    "$py" -m venv .venv
  fi
  local pip=(.venv/bin/python -m pip install --disable-pip-version-check -q -c requirements/constraints.txt)
  "${pip[@]}" -r requirements/dev.txt
  if ! .venv/bin/python -c 'import torch, sys; sys.exit(not torch.__version__.startswith("2.13.0"))' 2>/dev/null; then
    echo "setup: installing torch==2.13.0 (CPU build)"
    "${pip[@]}" torch==2.13.0
  fi
}

install_apt_packages
install_python_packages
