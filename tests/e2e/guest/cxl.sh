# shellcheck shell=sh disable=SC2016,SC2154
# A CXL Type-3 persistent device beside an emulated NVDIMM (run-guest.sh --cxl).
# usage: cxl.sh probe | cxl.sh check
#   probe  the test creates the CXL region (cxl create-region); pmem-tune --list --json
#          shows the CXL bus's region with its memdev; --probe --quick --target auto
#          probes both regions (the NVDIMM's and the CXL one), records the CXL side of
#          the CXL target (region, memdev, PCI ids, firmware), removes both scratch
#          namespaces; --check says the policy is for this host; pmem-tuned --oneshot
#          applies it; the policy goes to the host (pt_export policy.json)
#   check  a second boot (another serial number) with the first boot's policy in
#          /pt-e2e/files/policy.json: the same fingerprint (--check exits 0)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /pt-e2e/lib.sh
set -u
mode=${1:-probe}

skip() { echo "SKIPPED: $*"; exit 77; }
[ -d /sys/bus/cxl ] || skip "the guest kernel has no CXL bus (CONFIG_CXL_BUS)"
[ -e /sys/bus/cxl/devices/mem0 ] || pt_fail "no CXL memdev: cxl_pci or cxl_mem did not bind"

# The NVDIMM's blank label area makes it label-less: initialise it first (smoke.sh),
# while the CXL region does not exist yet.
if [ "$mode" = probe ]; then
	pt_run ndctl disable-region all >/dev/null || pt_fail "disable-region"
	pt_run ndctl init-labels all >/dev/null || pt_fail "init-labels"
	pt_run ndctl enable-region all >/dev/null || pt_fail "enable-region"
fi

# The test's own region, as an administrator makes it: one device, 256 B granularity.
echo "+ cxl create-region -m -d decoder0.0 -w 1 -g 256 mem0 -t pmem"
cxl create-region -m -d decoder0.0 -w 1 -g 256 mem0 -t pmem >/tmp/region.json ||
	pt_fail "cxl create-region"
cxl_region=$(jq -r '.region' /tmp/region.json)
echo "created CXL $cxl_region"
# libnvdimm's region on the CXL bus (cxl_pmem): its id is the CXL region's
nd=$(ndctl list -R -b CXL | jq -r '(if type == "array" then .[0] else . end).dev')
pt_expect_eq "libnvdimm region of the CXL region" "$cxl_region" "$nd"
[ "$(cat /sys/bus/nd/devices/$nd/persistence_domain)" = memory_controller ] ||
	pt_fail "$nd: persistence domain $(cat /sys/bus/nd/devices/$nd/persistence_domain)"

if [ "$mode" = check ]; then
	pmem-tune --check --insecure /pt-e2e/files/policy.json >/tmp/check.out 2>&1
	rc=$?
	cat /tmp/check.out
	pt_expect_eq "another serial number: --check on the first boot's policy" 0 "$rc"
	pt_done
fi

pmem-tune --list --json >/tmp/list.json || pt_fail "pmem-tune --list --json"
jq -e --arg r "$cxl_region" '[.. | objects | select(.dev? == $r)] | length == 1' \
	/tmp/list.json >/dev/null || pt_fail "--list --json does not show $cxl_region: $(head -c 600 /tmp/list.json)"
jq -c .cxl /tmp/list.json
# the CXL side through libcxl: the memdev, the root decoder, the region and what it backs
pt_check "--list --json: memdev mem0 (serial 1, its firmware, PCI 0x8086:0x0d93, a pmem size)" \
	jq -e '.cxl.memdevs[0] | .memdev == "mem0" and .serial == 1 and .pmem_size > 0 and
		.pci_vendor == "0x8086" and .pci_device == "0x0d93" and
		(.firmware_version | length > 0) and .endpoint != null and (.decoders | length > 0)' \
	/tmp/list.json
pt_check "--list --json: the root decoder" \
	jq -e '.cxl.root_decoders[0] | .decoder == "decoder0.0" and .pmem_capable' /tmp/list.json
pt_check "--list --json: the region, its interleave and targets, the libnvdimm region it backs" \
	jq -e --arg r "$cxl_region" '.cxl.regions[0] | .region == $r and .type == "pmem" and
		.interleave_ways == 1 and .interleave_granularity == 256 and
		.mappings[0].memdev == "mem0" and .nd_region == $r' /tmp/list.json
pmem-tune --list >/tmp/list.txt || pt_fail "pmem-tune --list"
sed -n '/^CXL/,$p' /tmp/list.txt
pt_check "--list: the CXL side in the table" grep -q "^CXL memory devices" /tmp/list.txt

echo "+ pmem-tune --probe --quick --target auto"
pmem-tune --probe --quick --threads 1 --strategies movnt,clwb,noflush \
	--target auto --output /etc/pmem-policy.json >/tmp/probe.out 2>/tmp/probe.err
rc=$?
cat /tmp/probe.err
pt_expect_eq "probe of both regions" 0 "$rc"
jq -c '[.targets[] | {name, kind, persistence_domain, cxl}]' /etc/pmem-policy.json
pt_expect_eq "two targets" 2 "$(jq '.targets | length' /etc/pmem-policy.json)"
pt_check "the NVDIMM's region0 has no CXL side" \
	jq -e '.targets[] | select(.name == "region0") | has("cxl") | not' /etc/pmem-policy.json
pt_check "the CXL target says which CXL region and memdev back it" \
	jq -e --arg r "$cxl_region" '.targets[] | select(.name == $r) | .cxl |
		.region == $r and .interleave_ways == 1 and .interleave_granularity == 256 and
		.memdevs[0].memdev == "mem0" and .memdevs[0].pci_vendor == "0x8086" and
		(.memdevs[0].firmware_version | length > 0)' /etc/pmem-policy.json
pt_check "no serial number in the policy" sh -c '! grep -q serial /etc/pmem-policy.json'
# each target has its exports or a stated reason (qemu's CXL memory is MMIO: slow)
pt_check "exports or the reason there are none" \
	jq -e '.exports | length > 0' /etc/pmem-policy.json
pt_check "no scratch namespace left" \
	sh -c '! ndctl list -N | grep -q pmem-tune-scratch'
pt_run pmem-tune --check /etc/pmem-policy.json || pt_fail "--check on this host's policy"
pmem-tuned --oneshot --no-bus >/tmp/apply.log 2>&1
rc=$?
cat /tmp/apply.log
pt_expect_eq "pmem-tuned --oneshot applies" 0 "$rc"
pt_export /etc/pmem-policy.json policy.json
pt_done
