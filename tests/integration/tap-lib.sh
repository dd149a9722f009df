# shellcheck shell=dash
# TAP-style checks for the daemon's integration scripts: `ok DESCRIPTION
# COMMAND...` counts and prints one line per check; a script may define
# tap_on_fail to show context after a failing check.  tap_finish NAME
# prints the closing line ctest's log shows and sets the exit status.
# `wait_for TENTHS COMMAND...` polls COMMAND every tenth of a second.
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
		# a function or nothing: POSIX sh has no declare -F
		if command -v tap_on_fail >/dev/null 2>&1; then tap_on_fail; fi
	fi
}

# wait_for TENTHS COMMAND...: 0 once COMMAND succeeds, 1 if it has not in TENTHS tries
wait_for() {
	local i=0 n=$1
	shift
	while [ "$i" -lt "$n" ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

tap_finish() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
