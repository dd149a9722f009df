# shellcheck shell=bash
# TAP-style checks for the daemon's integration scripts: `ok DESCRIPTION
# COMMAND...` counts and prints one line per check; a script may define
# tap_on_fail to show context after a failing check.  tap_finish NAME
# prints the closing line ctest's log shows and sets the exit status.
passed=0
failed=0

ok() {
	local desc=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
		echo "ok - $desc"
	else
		failed=$((failed + 1))
		echo "not ok - $desc"
		if declare -F tap_on_fail >/dev/null; then tap_on_fail; fi
	fi
}

tap_finish() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
