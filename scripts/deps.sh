#!/usr/bin/env bash
# Install what building and testing pmem-tuned needs, from Debian's packages,
# only where it is missing.  Usage: scripts/deps.sh [build|test]
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config libndctl-dev libdaxctl-dev libcxl-dev libjson-c-dev
	    libsystemd-dev librsvg2-dev libcairo2-dev)
test_pkgs=(python3 python3-jsonschema libxml2-utils clang libclang-rt-14-dev ansible-core
	   libpmem1 libpmem-dev libpmem1-debug ndctl daxctl systemd prometheus
	   librsvg2-bin jq lintian dkms)

want=("${build_pkgs[@]}")
[ "${1:-build}" = test ] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "scripts/deps.sh: missing packages: ${missing[*]}; run as root or install them" >&2
	exit 1
fi
echo "scripts/deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
