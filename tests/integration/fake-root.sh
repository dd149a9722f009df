# shellcheck shell=dash
# The fake root the daemon's integration scripts run pmem-tuned against
# (--sysfs-root ROOT --etc-root ROOT): the one writer of that tree.
#
# fake_daemon_root ROOT: the directories pmem-tuned reads and writes, no
# module and no knob.
# fake_daemon_knob ROOT [VALUE]: that, and module alpha's knob
# (sys/module/alpha/parameters/thresh, at VALUE, default 768; "" leaves it
# unwritten) named kernel.threshold_bytes by knobs.d/60-test.conf; this
# machine's /proc/cpuinfo and kernel release 6.1.0-test for the
# fingerprint.
fake_daemon_root() {
	mkdir -p "$1/sys/module" "$1/etc/pmem-tuned/knobs.d" "$1/run"
}

fake_daemon_knob() {
	fake_daemon_root "$1"
	mkdir -p "$1/sys/module/alpha/parameters" "$1/proc/sys/kernel"
	if [ -n "${2-768}" ]; then
		echo "${2-768}" > "$1/sys/module/alpha/parameters/thresh"
	fi
	echo 'kernel.threshold_bytes /sys/module/*/parameters/thresh' \
		> "$1/etc/pmem-tuned/knobs.d/60-test.conf"
	cp /proc/cpuinfo "$1/proc/cpuinfo"
	echo 6.1.0-test > "$1/proc/sys/kernel/osrelease"
}
