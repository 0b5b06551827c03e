#!/usr/bin/env bash
# Installs NVRTC 13.0 (the runtime compiler only; no GPU or driver needed) into .venv at the
# repository root, where fermat-codegen's NVRTC check finds it without LD_LIBRARY_PATH.
#
# The version is pinned exactly: the GPU machines run driver 580 (CUDA 13.0), which rejects
# the PTX that newer NVRTC releases emit. Running the script again does nothing once the
# pinned wheel is present. Prints the directory holding libnvrtc.so.
set -euo pipefail
cd "$(dirname "$0")/.."

NVRTC_VERSION="13.0.88"
VENV=".venv"

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi

installed="$("$VENV/bin/python" -m pip show nvidia-cuda-nvrtc 2>/dev/null \
    | sed -n 's/^Version: //p' || true)"
if [ "$installed" != "$NVRTC_VERSION" ]; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "nvidia-cuda-nvrtc==$NVRTC_VERSION"
fi

libdir=""
for dir in "$VENV"/lib/python3*/site-packages/nvidia/cu13/lib; do
    if compgen -G "$dir/libnvrtc.so*" > /dev/null; then
        libdir="$(cd "$dir" && pwd)"
        break
    fi
done
if [ -z "$libdir" ]; then
    echo "nvrtc.sh: nvidia-cuda-nvrtc $NVRTC_VERSION is installed but no libnvrtc.so was found under $VENV" >&2
    exit 1
fi
echo "$libdir"
