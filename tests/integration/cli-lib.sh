# shellcheck shell=bash
# Shared by the pmem-tune command-line tests: a scratch directory, counters,
# the exit and refusal checks, a JSON editor and the closing line.  Source it after setting `tune`.
tmp=$(mktemp -d "/tmp/pt-${PT_TEST_NAME:-cli}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect_refusal DESCRIPTION WORD -- ARGS...: exit 2, one line on stderr naming WORD
expect_refusal() {
	local what=$1 word=$2
	shift 3
	"$tune" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] || { bad "$what: exit $rc, expected 2"; return; }
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		{ bad "$what: not one line: $(cat "$tmp/err")"; return; }
	grep -qF -- "$word" "$tmp/err" ||
		{ bad "$what: '$(cat "$tmp/err")' does not name '$word'"; return; }
	ok
}

# expect RC DESCRIPTION -- ARGS...: pmem-tune exits RC (its output in $tmp/out, $tmp/err)
expect() {
	local want=$1 what=$2
	shift 3
	"$tune" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq "$want" ] && ok || bad "$what: exit $rc, expected $want: $(cat "$tmp/out" "$tmp/err")"
}

# edit IN OUT PYTHON-STATEMENTS-ON-p: a doctored copy of the JSON file IN in OUT
edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}

# The closing line ctest's log shows, and the exit status.
finish() {
	echo "${PT_TEST_NAME:-cli}: $pass passed, $fail failed"
	[ $fail -eq 0 ]
}
