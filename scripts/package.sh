#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the Debian packages in DIR: pmem-tune_*.deb, pmem-tuned_*.deb and their
# -dbgsym .ddeb files, prefix /usr, hardened, no sanitizers.  Only the two
# programs are compiled (not the tests).  Usage: scripts/package.sh DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scripts/package.sh DIR}
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
	-DPT_SANITIZE=OFF -DPT_WERROR=OFF -DPT_HARDEN=ON \
	-DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null
cmake --build "$dir" -j"$(nproc)" --target pmem-tune pmem-tuned
rm -f "$dir"/*.deb "$dir"/*.ddeb
(cd "$dir" && cpack -G DEB)
ls "$dir"/*.deb
