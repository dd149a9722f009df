# shellcheck shell=sh
# Plumbing smoke test (runs in the guest under busybox sh): the emulated NVDIMM shows up
# as ndctl expects, namespaces can be created, used and destroyed (labelled region), or
# the region holds one raw namespace and cannot be subdivided (label-less region).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /pt-e2e/lib.sh
set -u
out=''


pt_run ndctl list -RNDu || pt_fail "ndctl list failed"
regions=$(pt_regions) || pt_fail "ndctl list -RN failed"
pt_expect_eq "number of regions" "${PT_E2E_NVDIMMS:-1}" "$(echo "$regions" | jq length)"
pt_expect_eq "persistence_domain of every region" \
	"$(pt_persistence_name "${PT_E2E_PERSISTENCE:-}")" \
	"$(echo "$regions" | jq -r '[.[].persistence_domain // "absent"] | unique | join(",")')"

if [ "${PT_E2E_LABELS:-1}" = 1 ]; then
	if [ "$(echo "$regions" | jq '[.[] | select(.available_size == 0)] | length')" -gt 0 ]; then
		echo "label areas blank: initializing labels"
		pt_run ndctl disable-region all || pt_fail "disable-region"
		pt_run ndctl init-labels all || pt_fail "init-labels"
		pt_run ndctl enable-region all || pt_fail "enable-region"
		regions=$(pt_regions)
	fi
fi

# smoke_labelled REGION: namespaces of both kinds come and go; an fsdax one takes a DAX mount
smoke_labelled() {
	region=$1
	r=$(pt_regions -r "$region")
	avail=$(echo "$r" | jq '.[0].available_size')
	pt_check "$region has room ($avail of $(echo "$r" | jq '.[0].size') bytes)" [ "$avail" -gt 0 ]
	pt_expect_eq "$region: no namespace yet" 0 "$(echo "$r" | jq '.[0].namespaces // [] | length')"
	# 256 MiB each, or half the room (in 16 MiB steps) on a small region
	mib=$((avail / 33554432))
	mib=$((mib * 16))
	[ "$mib" -gt 256 ] && mib=256

	# devdax
	pt_json out ndctl create-namespace -r "$region" -m devdax -s "${mib}M" -a 2M
	dax_ns=$(echo "$out" | jq -r .dev)
	chardev=$(echo "$out" | jq -r '.daxregion.devices[0].chardev')
	pt_expect_eq "devdax mode" devdax "$(echo "$out" | jq -r .mode)"
	pt_check "/dev/$chardev appears" pt_wait_for "/dev/$chardev"
	pt_check "/dev/$chardev is a character device" [ -c "/dev/$chardev" ]
	ns_size=$(pt_namespace "$dax_ns" | jq .size)
	echo "devdax $dax_ns: /dev/$chardev, $ns_size bytes usable of $mib MiB"
	# the struct page array (map=dev) takes ~1/64 of it
	pt_check "devdax size in [$mib MiB - 16 MiB, $mib MiB]" \
		pt_between "$ns_size" $(((mib - 16) << 20)) $((mib << 20))
	pt_check "daxctl lists $chardev" \
		sh -c "daxctl list -D | jq -e '[.] | flatten | map(.chardev) | index(\"$chardev\")' >/dev/null"

	# fsdax, with an ext4 DAX mount
	pt_json out ndctl create-namespace -r "$region" -m fsdax -s "${mib}M"
	fs_ns=$(echo "$out" | jq -r .dev)
	blockdev=$(echo "$out" | jq -r .blockdev)
	pt_expect_eq "fsdax mode" fsdax "$(echo "$out" | jq -r .mode)"
	pt_check "/dev/$blockdev appears" pt_wait_for "/dev/$blockdev"
	pt_check "/dev/$blockdev is a block device" [ -b "/dev/$blockdev" ]
	pt_check "mkfs.ext4 on /dev/$blockdev" mkfs.ext4 -q -F -b 4096 "/dev/$blockdev"
	mkdir -p /mnt/pmem
	if pt_run mount -o dax "/dev/$blockdev" /mnt/pmem; then
		pt_check "mounted with dax=always" \
			grep -q "^/dev/$blockdev /mnt/pmem ext4 .*dax=always" /proc/mounts
		dd if=/dev/urandom of=/mnt/pmem/data bs=1M count=4 2>/dev/null
		sum1=$(sha256sum </mnt/pmem/data)
		umount /mnt/pmem
		mount -o dax "/dev/$blockdev" /mnt/pmem
		pt_expect_eq "data survives a remount" "$sum1" "$(sha256sum </mnt/pmem/data)"
		umount /mnt/pmem
	else
		pt_check "mount -o dax /dev/$blockdev" false
	fi

	pt_run ndctl list -RNu -r "$region"
	pt_check "destroy $dax_ns" ndctl destroy-namespace -f "$dax_ns"
	pt_check "destroy $fs_ns" ndctl destroy-namespace -f "$fs_ns"
	pt_check "/dev/$chardev gone" [ ! -e "/dev/$chardev" ]
	pt_check "/dev/$blockdev gone" [ ! -e "/dev/$blockdev" ]
	r=$(pt_regions -r "$region")
	pt_expect_eq "$region: available size restored" "$avail" "$(echo "$r" | jq '.[0].available_size')"
	pt_expect_eq "$region: no namespace left" 0 "$(echo "$r" | jq '.[0].namespaces // [] | length')"
}

# smoke_labelless REGION: one raw namespace over the whole region, not subdividable
smoke_labelless() {
	region=$1
	r=$(pt_regions -r "$region")
	pt_expect_eq "$region: available_size" 0 "$(echo "$r" | jq '.[0].available_size')"
	pt_expect_eq "$region: one namespace" 1 "$(echo "$r" | jq '.[0].namespaces | length')"
	ns=$(echo "$r" | jq -c '.[0].namespaces[0]')
	pt_expect_eq "$region: raw mode" raw "$(echo "$ns" | jq -r .mode)"
	pt_expect_eq "$region: namespace spans the region" "$(echo "$r" | jq '.[0].size')" \
		"$(echo "$ns" | jq .size)"
	blockdev=$(echo "$ns" | jq -r .blockdev)
	pt_check "/dev/$blockdev is a block device" [ -b "/dev/$blockdev" ]
	pt_check "$region refuses to be subdivided" \
		sh -c "! ndctl create-namespace -r $region -m devdax -s 256M"
	pt_expect_eq "$region: namespaces unchanged" "$r" "$(pt_regions -r "$region")"
}

for region in $(echo "$regions" | jq -r '.[].dev' | sort); do
	echo "== $region (nstype $(cat "/sys/bus/nd/devices/$region/nstype"))"
	if [ "${PT_E2E_LABELS:-1}" = 1 ]; then
		smoke_labelled "$region"
	else
		smoke_labelless "$region"
	fi
done
pt_done
