#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmem-tuned links the file model (policy/) and none of the rule (rule/):
# no symbol the rule's library defines is defined in the daemon.
# Usage: test_daemon_no_rule.sh LIBPMEM_RULE_A PMEM_TUNED
set -uo pipefail
rule=$1
daemon=$2
command -v nm >/dev/null || { echo "SKIP: nm not installed (binutils)"; exit 77; }
syms=$(nm --defined-only -g "$rule" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDRB]/ {print $3}' | sort -u)
[ -n "$syms" ] || { echo "FAIL: no symbols in $rule"; exit 1; }
have=$(nm --defined-only "$daemon" | awk 'NF == 3 {print $3}' | sort -u)
both=$(comm -12 <(printf '%s\n' "$syms") <(printf '%s\n' "$have"))
if [ -n "$both" ]; then
	echo "FAIL: pmem-tuned defines $(wc -l <<<"$both") of the rule's symbols: $(head -5 <<<"$both" | tr '\n' ' ')"
	exit 1
fi
echo "ok: pmem-tuned defines none of the rule's $(wc -l <<<"$syms") symbols"
