# shellcheck shell=bash
# Later boots of the systemd guest (sourced by guest-test.sh as /pt-e2e/boot.sh).
# run.sh boots the same root disk, NVDIMM and data disk again while the guest leaves
# a phase name in out/next-boot; guest-test.sh then runs boot_phase instead of its
# own sections.
#
#  boot 1, after its sections: the packages installed afresh, /etc/pmem-policy.json a
#     symbolic link to a fleet's bundle without this host's platform
#  boot 2 (fleet-link): the probe runs at boot, in the background: multi-user.target
#     and the end of the boot come before it exits, pmem-tuned is up before it
#     exits; it probes the NVDIMM region through the hardened unit (exposure <= 2.0)
#     and writes /var/lib/pmem-tune/probe.json, not the fleet's link or bundle; the
#     unit does not fail; it is not ordered after systemd-udev-settle.service but
#     after pmem-tune-devices.service, whose udevadm trigger --settle both exited
#     0, and the probe saw region0.  Then the bundle gets this host's entry,
#     probed on another kernel (the kernel is no part of the platform fingerprint)
#  boot 3 (kernel-change): no probe (ExecCondition=), the bundle unchanged, pmem-tuned
#     applies its entry, pmem-tune --check exits 0 with an "environment change" line;
#     then reprobe_on_environment_change = yes: the probe runs, writes the kept probe,
#     the bundle still unchanged
# SC2016: jq programs in single quotes
# shellcheck disable=SC2016

FLEET_DIR=/etc/pmem-fleet
FLEET=$FLEET_DIR/pmem-policy.json
KEPT=/var/lib/pmem-tune/probe.json
PROBE_UNIT=pmem-tune-probe.service
FP_A=sha256:$(printf '1%.0s' {1..64})
FP_B=sha256:$(printf '2%.0s' {1..64})

sum() { sha256sum "$1" | cut -d' ' -f1; }
# mono UNIT PROPERTY: a *TimestampMonotonic property in microseconds (0 when unset)
mono() {
	local v
	v=$(systemctl show -P "$2" "$1")
	[[ $v =~ ^[0-9]+$ ]] && echo "$v" || echo 0
}
# a fleet bundle of the given entries, renamed over $FLEET (the link stays)
write_bundle() {
	mkdir -p "$FLEET_DIR"
	jq -s '{schema: "pmem-policy/1", bundle: .}' "$@" >"$FLEET.new"
	chmod 0644 "$FLEET.new"
	mv -f "$FLEET.new" "$FLEET"
	sum "$FLEET" >"$OUT/fleet.sha256"
}
# the bundle (and the link to it) as the previous boot left them
fleet_unchanged_checks() {
	pt_check "$1: $POLICY still a symbolic link to the fleet's bundle" \
		test "$(readlink "$POLICY")" = "$FLEET"
	pt_expect_eq "$1: the fleet's bundle unchanged" "$(cat "$OUT/fleet.sha256")" "$(sum "$FLEET")"
}
# wait_probe_done TIMEOUT_S: the probe unit has run and is no longer active
wait_probe_done() {
	local deadline=$(($(ms) + $1 * 1000))
	while (($(ms) < deadline)); do
		[[ $(mono "$PROBE_UNIT" ExecMainExitTimestampMonotonic) != 0 &&
			$(prop "$PROBE_UNIT" ActiveState) != active &&
			$(prop "$PROBE_UNIT" ActiveState) != activating ]] && return 0
		sleep 0.5
	done
	return 1
}

# wait_probe_skipped_or_ran TIMEOUT_S: its condition skipped it, or it ran and ended
wait_probe_skipped_or_ran() {
	local deadline=$(($(ms) + $1 * 1000))
	while (($(ms) < deadline)); do
		[[ $(prop "$PROBE_UNIT" Result) == exec-condition ]] && return 0
		[[ $(mono "$PROBE_UNIT" ExecMainStartTimestampMonotonic) != 0 ]] &&
			wait_probe_done $((($(ms) - deadline) / -1000)) && return 0
		sleep 0.5
	done
	return 1
}

# --- boot 1, at its end: a fleet's link for the next boot -----------------------------
boot_prepare_fleet_link() {
	sec "the next boot: a fleet's bundle without this host"
	local host=$OUT/host-policy.json
	[[ -s $POLICY ]] && cp "$POLICY" "$host"
	if ! jqt '.platform.fingerprint | startswith("sha256:")' "$host"; then
		pt_check "a policy of this host to build the fleet's bundle from" false
		return
	fi
	# the purge took the packages: install them afresh (enabled, nothing started)
	pt_check "reinstall for the next boots" bash -c \
		'cd /pt-e2e && apt-get install -y ./pmem-tune_*.deb ./pmem-tuned_*.deb >/dev/null'
	jq --arg fp "$FP_A" '.platform.fingerprint = $fp' "$host" >"$OUT/other-a.json"
	jq --arg fp "$FP_B" '.platform.fingerprint = $fp' "$host" >"$OUT/other-b.json"
	write_bundle "$OUT/other-a.json" "$OUT/other-b.json"
	rm -f "$POLICY" "$KEPT"
	ln -s "$FLEET" "$POLICY"
	local rc=0
	pmem-tune --check "$POLICY" >/dev/null 2>&1 || rc=$?
	pt_expect_eq "pmem-tune --check: the fleet's bundle has no entry for this host" 1 "$rc"
	pt_expect_eq "both units enabled for the next boot" "enabled enabled" \
		"$(systemctl is-enabled pmem-tuned.service "$PROBE_UNIT" | xargs)"
	echo fleet-link >"$OUT/next-boot"
	sync
}

# --- boot 2: the probe runs at boot, in the background ---------------------------------
boot_fleet_link() {
	sec "boot 2: a fleet's link without this host: the probe at boot"
	pt_check "the probe unit ran at boot (pulled in by multi-user.target)" \
		wait_probe_done 420
	local mu pe ps dm fin
	mu=$(mono multi-user.target ActiveEnterTimestampMonotonic)
	ps=$(mono "$PROBE_UNIT" ExecMainStartTimestampMonotonic)
	pe=$(mono "$PROBE_UNIT" ExecMainExitTimestampMonotonic)
	dm=$(mono pmem-tuned.service ActiveEnterTimestampMonotonic)
	fin=$(systemctl show -P FinishTimestampMonotonic)
	echo "monotonic (s): multi-user.target $((mu / 1000000)), pmem-tuned active" \
		"$((dm / 1000000)), probe start $((ps / 1000000)), exit $((pe / 1000000))," \
		"boot finished $((${fin:-0} / 1000000))"
	fig boot_probe_ms $(((pe - ps) / 1000))
	fig boot_target_before_probe_exit_ms $(((pe - mu) / 1000))
	pt_expect_eq "the probe at boot succeeded" success "$(prop "$PROBE_UNIT" Result)"
	pt_check "multi-user.target reached before the probe exited" \
		test "$mu" -gt 0 -a "$pe" -gt "$mu"
	pt_check "the boot finished (startup complete) before the probe exited" \
		test "${fin:-0}" -gt 0 -a "$pe" -gt "${fin:-0}"
	pt_check "pmem-tuned active before the probe exited (it does not wait)" \
		test "$dm" -gt 0 -a "$pe" -gt "$dm"
	pt_expect_eq "pmem-tuned.service active" active "$(systemctl is-active pmem-tuned.service)"
	echo "daemon status: $(prop pmem-tuned.service StatusText)"
	pt_check "pmem-tuned says the fleet's bundle has no entry for this host" \
		grep -q "^Policy not applied: .*none of its 2 entries is for this host" \
		<<<"$(prop pmem-tuned.service StatusText)"

	fleet_unchanged_checks "boot 2"
	pt_check "the probe kept its policy in $KEPT" test -s "$KEPT"
	pt_check "$KEPT: valid and for this host" pmem-tune --check "$KEPT"
	pt_check "$KEPT: the NVDIMM region measured (cpu_cache), through the hardened unit" \
		jqt '[.targets[] | select(.kind == "pmem" and .persistence_domain == "cpu_cache")]
			| length == 1' "$KEPT"
	pt_check "$KEPT: dram measured too" jqt '[.targets[] | select(.kind == "dram")] | length == 1' \
		"$KEPT"
	# no deprecated udev settle: the unit waits for the persistent-memory devices alone,
	# and the probe at boot still sees the NVDIMM's region
	pt_check "$PROBE_UNIT: not ordered after systemd-udev-settle.service" \
		bash -c '! systemctl show -P After "$1" | grep -qw systemd-udev-settle.service' _ \
		"$PROBE_UNIT"
	echo "systemd-udev-settle.service this boot: $(prop systemd-udev-settle.service ActiveState)"
	pt_check "$PROBE_UNIT: after pmem-tune-devices.service" \
		bash -c 'systemctl show -P After "$1" | grep -qw pmem-tune-devices.service' _ \
		"$PROBE_UNIT"
	prop pmem-tune-devices.service ExecStart >"$OUT/boot2-devices-execstart.txt"
	sed 's/^/  | /' "$OUT/boot2-devices-execstart.txt"
	pt_expect_eq "pmem-tune-devices.service: both udevadm trigger --settle ran and exited 0" 2 \
		"$(grep -Ec 'path=[^ ]*udevadm ; .* code=exited ; status=0[ /]' \
			"$OUT/boot2-devices-execstart.txt")"
	pt_expect_eq "pmem-tune-devices.service active (exited)" active \
		"$(systemctl is-active pmem-tune-devices.service)"
	echo "monotonic (s): pmem-tune-devices.service done" \
		"$(($(mono pmem-tune-devices.service ActiveEnterTimestampMonotonic) / 1000000))"
	pt_check "$KEPT: the probe at boot saw region0" \
		jqt '[.targets[] | select(.name == "region0" and .kind == "pmem")] | length == 1' "$KEPT"
	jsync
	journalctl -b -u "$PROBE_UNIT" --no-pager >"$OUT/journal-boot2-probe.txt"
	sed 's/^/  | /' "$OUT/journal-boot2-probe.txt" | grep -E "probe:|wrote|pmem-tune:" | tail -n 6
	pt_check "journal: the probe says where it wrote and why" grep -q \
		"$POLICY is a symbolic link to $FLEET, which only the fleet replaces: wrote this host's probe to $KEPT" \
		"$OUT/journal-boot2-probe.txt"
	pt_check "journal: the condition said why it probes" grep -q \
		"probe: $POLICY: none of its 2 entries is for this host" "$OUT/journal-boot2-probe.txt"
	pt_expect_eq "the probe unit not failed" inactive "$(systemctl is-failed "$PROBE_UNIT")"
	pt_check "no scratch namespace left by the probe" \
		test "$(ndctl list -N | jq -s '[.. | objects | select(.name? == "pmem-tune-scratch")] | length')" = 0

	local score
	systemd-analyze security --no-pager "$PROBE_UNIT" >"$OUT/security-probe.txt" 2>&1 || true
	score=$(sed -n "s/.*Overall exposure level for $PROBE_UNIT: \([0-9.]*\).*/\1/p" \
		"$OUT/security-probe.txt")
	fig probe_security_exposure "${score:-unknown}"
	pt_check "systemd-analyze security $PROBE_UNIT <= 2.0 (${score:-?})" \
		awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'

	# the next boot: the bundle holds this host, probed on another kernel
	jq '.platform.kernel = "5.10.0-0.deb10.1-amd64"' "$KEPT" >"$OUT/host-old-kernel.json"
	write_bundle "$OUT/host-old-kernel.json" "$OUT/other-a.json"
	rm -f "$KEPT"
	echo kernel-change >"$OUT/next-boot"
	sync
}

# --- boot 3: a kernel change is no new platform ------------------------------------------
boot_kernel_change() {
	sec "boot 3: this host's entry probed on another kernel"
	# the unit's start job (its condition) is part of the boot's queue
	timeout 180 systemctl is-system-running --wait >/dev/null 2>&1 || true
	pt_check "the probe unit's start at boot is over" wait_probe_skipped_or_ran 180
	pt_expect_eq "no probe at boot: the condition skipped it" exec-condition \
		"$(prop "$PROBE_UNIT" Result)"
	pt_expect_eq "no probe at boot: ExecStart= did not run" 0 \
		"$(mono "$PROBE_UNIT" ExecMainStartTimestampMonotonic)"
	pt_expect_eq "the probe unit not failed" inactive "$(systemctl is-failed "$PROBE_UNIT")"
	jsync
	journalctl -b -u "$PROBE_UNIT" --no-pager >"$OUT/journal-boot3-probe.txt"
	sed 's/^/  | /' "$OUT/journal-boot3-probe.txt" | tail -n 3
	pt_check "journal: the condition names the environment change and the key" grep -q \
		"no probe: .*environment change: kernel $(uname -r), probed on 5.10.0-0.deb10.1-amd64 (reprobe_on_environment_change = no)" \
		"$OUT/journal-boot3-probe.txt"
	fleet_unchanged_checks "boot 3"
	pt_check "no kept probe written" test ! -e "$KEPT"
	local status i=0
	while ((i < 100)) && [[ $(prop pmem-tuned.service StatusText) != Applied* ]]; do
		sleep 0.1
		i=$((i + 1))
	done
	status=$(prop pmem-tuned.service StatusText)
	echo "daemon status: $status"
	pt_check "pmem-tuned applies the bundle's entry for this host" \
		grep -q "^Applied $POLICY (sha256:" <<<"$status"

	# the env-metrics change: an environment change is reported, not a drift
	local out rc=0
	out=$(pmem-tune --check "$POLICY" 2>&1) || rc=$?
	echo "pmem-tune --check: $out"
	pt_expect_eq "pmem-tune --check on a kernel change: exit 0" 0 "$rc"
	pt_check "pmem-tune --check on a kernel change: an environment change line" \
		grep -qi "environment change" <<<"$out"

	# the administrator asks for it: the next start probes, into the kept probe
	sec "boot 3: reprobe_on_environment_change = yes"
	echo "reprobe_on_environment_change = yes" >>/etc/pmem-tuned/pmem-tuned.conf
	rc=0
	pmem-tuned --need-probe || rc=$?
	pt_expect_eq "pmem-tuned --need-probe: yes now" 0 "$rc"
	local t0
	t0=$(ms)
	rc=0
	systemctl start --wait "$PROBE_UNIT" || rc=$?
	fig env_reprobe_ms $(($(ms) - t0))
	pt_expect_eq "systemctl start --wait $PROBE_UNIT" 0 "$rc"
	pt_expect_eq "the re-probe succeeded" success "$(prop "$PROBE_UNIT" Result)"
	pt_check "the re-probe kept its policy in $KEPT" test -s "$KEPT"
	pt_expect_eq "$KEPT: probed on this kernel" "$(uname -r)" \
		"$(jq -r .platform.kernel "$KEPT" 2>/dev/null)"
	fleet_unchanged_checks "after the re-probe"
	# again: this kernel's probe is kept for the fleet, nothing to measure
	rc=0
	systemctl start --wait "$PROBE_UNIT" || rc=$?
	echo "systemctl start --wait $PROBE_UNIT, skipped by its condition: exit $rc"
	pt_expect_eq "again: the condition skips it (kept for the fleet)" exec-condition \
		"$(prop "$PROBE_UNIT" Result)"
}

# boot_phase NAME: one later boot's checks, then the end of the test
boot_phase() {
	rm -f "$OUT/next-boot"
	echo "guest: boot phase '$1', kernel $(uname -r), uptime $(uptime_s) s"
	systemd-analyze 2>/dev/null | head -n1
	case $1 in
	fleet-link) boot_fleet_link ;;
	kernel-change) boot_kernel_change ;;
	*) pt_check "known boot phase '$1'" false ;;
	esac
	sec "end of boot phase $1"
	pt_done
}
