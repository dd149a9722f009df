// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pt_testmod: a module with writable parameters for pmem-tuned's end-to-end
 * test.  It stands in for a patched or future module that exposes a copy
 * threshold (upstream dm-writecache hard-codes 768 bytes): the test's knob map
 * points policy exports at these parameters, loads the module after the daemon
 * started and expects the values within a second, and the originals back when
 * the daemon stops.  It does nothing else.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

/* kernel.threshold_bytes: non-temporal stores up to this size (dm-writecache: 768) */
static unsigned long nt_max_bytes = 768;
module_param(nt_max_bytes, ulong, 0644);
MODULE_PARM_DESC(nt_max_bytes, "largest copy done with non-temporal stores (bytes)");

/* libpmem.PMEM_MOVNT_THRESHOLD mirrored into the kernel (PMDK's default: 256) */
static unsigned long movnt_threshold = 256;
module_param(movnt_threshold, ulong, 0644);
MODULE_PARM_DESC(movnt_threshold, "PMDK-style non-temporal threshold (bytes)");

/* a literal from the knob map (=1); an int, so that it reads back as written */
static int enable;
module_param(enable, int, 0644);
MODULE_PARM_DESC(enable, "set to 1 by the knob map's literal entry");

/* read-only: a knob that refuses writes must not stop the others */
static unsigned long fixed_bytes = 4096;
module_param(fixed_bytes, ulong, 0444);
MODULE_PARM_DESC(fixed_bytes, "read-only parameter (writes are refused)");

/*
 * Whole cache lines only: the store callback refuses anything else with
 * EINVAL, as a real threshold parameter validates its input.
 */
static unsigned long line_bytes = 64;

static int line_bytes_set(const char *val, const struct kernel_param *kp)
{
	unsigned long v;
	int rc = kstrtoul(val, 0, &v);

	if (rc)
		return rc;
	if (!v || v % 64)
		return -EINVAL;
	*(unsigned long *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops line_bytes_ops = {
	.set = line_bytes_set,
	.get = param_get_ulong,
};
module_param_cb(line_bytes, &line_bytes_ops, &line_bytes, 0644);
MODULE_PARM_DESC(line_bytes, "a multiple of 64 bytes (other values: EINVAL)");

static int __init pt_testmod_init(void)
{
	pr_info("pt_testmod: loaded (nt_max_bytes=%lu movnt_threshold=%lu enable=%d)\n",
		nt_max_bytes, movnt_threshold, enable);
	return 0;
}

static void __exit pt_testmod_exit(void)
{
	pr_info("pt_testmod: unloaded (nt_max_bytes=%lu movnt_threshold=%lu enable=%d)\n",
		nt_max_bytes, movnt_threshold, enable);
}

module_init(pt_testmod_init);
module_exit(pt_testmod_exit);
MODULE_DESCRIPTION("pmem-tuned e2e test module: writable parameters, no function");
MODULE_LICENSE("GPL");
