// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scratch space on persistent memory, the way `ndctl create-namespace`
 * and `ndctl destroy-namespace` do it, through libndctl:
 *
 *  - labelled region: a new namespace in free capacity, alt-name
 *    "pmem-tune-scratch", devdax (a dax seed claims it) or, where
 *    devdax cannot be had, fsdax (a pfn seed) with ext4 mounted -o dax
 *    and a file in it.  Destroyed afterwards.
 *  - label-less region (named, with destroy_data only): its one
 *    namespace spans the region and cannot be subdivided.  If it is
 *    devdax already it is used as it is; raw or fsdax is turned into
 *    devdax for the probe and put back into its mode afterwards (empty:
 *    the user agreed to lose the data).
 *
 * Every change is recorded in the state file before it is made, so that
 * a probe killed half-way can be cleaned up by the next one.  A
 * namespace is destroyed only when its alt-name and its UUID both match
 * a record: nothing the probe did not create is ever touched.  One lock
 * file serialises probes; the kernel drops the lock of a killed one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ndctl.h>
#include <daxctl/libdaxctl.h>
#include <ndctl/libndctl.h>

#include "platform/cpu.h"
#include "platform/regions.h"
#include "platform/scratch.h"

#define SZ_2M		(2ull << 20)
#define SZ_16M		(16ull << 20)
#define INFO_BLOCK	8192		/* what ndctl zeroes: the pfn/dax/btt info block */
#define SCRATCH_FILE	"pmem-tune-scratch.data"

extern char **environ;

struct scratch_priv {
	struct scratch_record rec;
	bool recorded;			/* rec is in the state file */
};

static void now_rfc3339(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- devices, mounts, helpers ---- */

/* Device nodes appear through devtmpfs/udev shortly after the bind. */
static bool wait_for_node(const char *path)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	for (int i = 0; i < 250; i++) {
		if (access(path, F_OK) == 0)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* mountinfo escapes blanks and backslashes as \ooo */
static void unescape_octal(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static bool is_mount_point(const char *dir)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);

		/* id parent major:minor root mount-point ... */
		for (int i = 0; tok && i < 4; i++)
			tok = strtok_r(NULL, " ", &save);
		if (tok) {
			unescape_octal(tok);
			found = strcmp(tok, dir) == 0;
		}
	}
	fclose(f);
	return found;
}

/*
 * Is the character device open or mapped by another process?  There is
 * no exclusive open for a dax device; /proc is what fuser(1) reads.
 */
static bool chardev_in_use(const char *path, pid_t *who)
{
	struct stat want;
	struct dirent *de;
	bool busy = false;
	DIR *proc;

	if (stat(path, &want) || !S_ISCHR(want.st_mode))
		return false;
	proc = opendir("/proc");
	if (!proc)
		return false;
	while (!busy && (de = readdir(proc))) {
		char dir[300], line[PATH_MAX + 256];
		pid_t pid = (pid_t)atol(de->d_name);
		struct dirent *fe;
		DIR *fds;
		FILE *maps;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
		fds = opendir(dir);
		while (fds && !busy && (fe = readdir(fds))) {
			char fd_path[600];
			struct stat st;

			snprintf(fd_path, sizeof(fd_path), "%s/%s", dir, fe->d_name);
			if (fe->d_name[0] != '.' && stat(fd_path, &st) == 0 &&
			    S_ISCHR(st.st_mode) && st.st_rdev == want.st_rdev)
				busy = true;
		}
		if (fds)
			closedir(fds);
		/* a mapping outlives the close of its descriptor */
		snprintf(dir, sizeof(dir), "/proc/%d/maps", (int)pid);
		maps = busy ? NULL : fopen(dir, "re");
		while (maps && !busy && fgets(line, sizeof(line), maps)) {
			char *p = strchr(line, '/');
			size_t n = strlen(path);

			if (p && strncmp(p, path, n) == 0 && (p[n] == '\n' || p[n] == '\0' ||
							      p[n] == ' '))
				busy = true;
		}
		if (maps)
			fclose(maps);
		if (busy)
			*who = pid;
	}
	closedir(proc);
	return busy;
}

/* Run argv (PATH, then /sbin), its output dropped; 0 if it exited 0. */
static int run_quiet(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	char alt[PATH_MAX];
	pid_t pid;
	int rc, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	if (rc == ENOENT) {
		snprintf(alt, sizeof(alt), "/sbin/%s", argv[0]);
		rc = posix_spawn(&pid, alt, &fa, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -rc;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return WIFEXITED(status) ? -EIO : -EINTR;
}

/* A namespace seed to configure: namespace0.0 first when idle, as ndctl does. */
static struct ndctl_namespace *idle_seed(struct ndctl_region *region)
{
	struct ndctl_namespace *ndns;

	ndctl_namespace_foreach(region, ndns)
		if (ndctl_namespace_get_id(ndns) == 0 &&
		    ndctl_namespace_is_configuration_idle(ndns))
			return ndns;
	ndns = ndctl_region_get_namespace_seed(region);
	return ndns && ndctl_namespace_is_configuration_idle(ndns) ? ndns : NULL;
}

static struct ndctl_namespace *find_namespace(struct ndctl_region *region, const char *name)
{
	struct ndctl_namespace *ndns;

	ndctl_namespace_foreach(region, ndns)
		if (strcmp(ndctl_namespace_get_devname(ndns), name) == 0)
			return ndns;
	return NULL;
}

/* The namespace a record created: alt-name and label UUID both match. */
static struct ndctl_namespace *find_owned(struct ndctl_region *region,
					  const struct scratch_record *r)
{
	char uuid[REGION_UUID_STR_LEN];
	struct ndctl_namespace *ndns;

	ndctl_namespace_foreach(region, ndns) {
		const char *alt = ndctl_namespace_get_alt_name(ndns);

		if (!alt || strcmp(alt, SCRATCH_ALT_NAME))
			continue;
		namespace_label_uuid(ndns, uuid);
		if (strcmp(uuid, r->uuid) == 0)
			return ndns;
	}
	return NULL;
}

/*
 * The devdax/fsdax alignment ndctl would pick: the seed's default,
 * or a page where the region itself is not aligned to it.
 */
static uint64_t personality_align(struct ndctl_region *region, bool devdax)
{
	struct ndctl_dax *dax = devdax ? ndctl_region_get_dax_seed(region) : NULL;
	struct ndctl_pfn *pfn = devdax ? NULL : ndctl_region_get_pfn_seed(region);
	unsigned long long res = ndctl_region_get_resource(region);
	uint64_t align = SZ_2M;

	if (dax && ndctl_dax_get_align(dax))
		align = ndctl_dax_get_align(dax);
	else if (pfn && ndctl_pfn_has_align(pfn) && ndctl_pfn_get_align(pfn))
		align = ndctl_pfn_get_align(pfn);
	if (res != ULLONG_MAX && (res & (align - 1)))
		align = (uint64_t)sysconf(_SC_PAGESIZE);
	return align;
}

/*
 * The two personalities, the same steps each through libndctl's twin
 * APIs (ndctl_dax_* and ndctl_pfn_*): the region's seed takes the UUID,
 * the location and the alignment (an fsdax seed only where it has the
 * attribute), then ndns, then is enabled.  *seed names the seed,
 * *enabling says the failure (if any) was the enable; on failure ndns is
 * detached from the seed again.
 */
#define DEFINE_CLAIM(name, kind, align_always)					\
static int name(struct ndctl_region *region, struct ndctl_namespace *ndns,	\
		unsigned char uu[16], uint64_t align, const char **seed,	\
		bool *enabling)							\
{										\
	struct ndctl_##kind *s = ndctl_region_get_##kind##_seed(region);	\
	int rc;									\
										\
	if (!s)									\
		return -ENODEV;							\
	*seed = ndctl_##kind##_get_devname(s);					\
	if (!(rc = ndctl_##kind##_set_uuid(s, uu)) &&				\
	    !(rc = ndctl_##kind##_set_location(s, NDCTL_PFN_LOC_PMEM)) &&	\
	    !((align_always || ndctl_##kind##_has_align(s)) &&			\
	      (rc = ndctl_##kind##_set_align(s, align))) &&			\
	    !(rc = ndctl_##kind##_set_namespace(s, ndns))) {			\
		*enabling = true;						\
		rc = ndctl_##kind##_enable(s);					\
	}									\
	if (rc)									\
		ndctl_##kind##_set_namespace(s, NULL);				\
	return rc;								\
}

DEFINE_CLAIM(claim_devdax, dax, true)
DEFINE_CLAIM(claim_fsdax, pfn, false)

/*
 * Claim ndns with a devdax (dax seed) or fsdax (pfn seed) personality
 * whose UUID is uuid (NULL: a new one).
 */
static int claim(struct ndctl_region *region, struct ndctl_namespace *ndns, bool devdax,
		 uint64_t align, const char *uuid, char *err, size_t errlen)
{
	const char *ns = ndctl_namespace_get_devname(ndns);
	unsigned long long res = ndctl_namespace_get_resource(ndns);
	const char *seed = NULL;
	bool enabling = false;
	unsigned char uu[16];
	int rc;

	/* the kernel maps dax in 16 MiB sections: ndctl refuses the same */
	if (res != ULLONG_MAX && (res & (SZ_16M - 1))) {
		snprintf(err, errlen, "%s: starts at %#llx, not 16 MiB aligned", ns, res);
		return -EINVAL;
	}
	rc = uuid ? region_uuid_parse(uuid, uu) : region_uuid_generate(uu);
	if (rc) {
		snprintf(err, errlen, "cannot generate a UUID: %s", strerror(-rc));
		return rc;
	}
	ndctl_namespace_set_enforce_mode(ndns, devdax ? NDCTL_NS_MODE_DEVDAX : NDCTL_NS_MODE_FSDAX);
	rc = devdax ? claim_devdax(region, ndns, uu, align, &seed, &enabling)
		    : claim_fsdax(region, ndns, uu, align, &seed, &enabling);
	if (!rc)
		return 0;
	if (!seed)
		snprintf(err, errlen, "%s: %s", ndctl_region_get_devname(region), devdax
			 ? "no dax seed (is device_dax loaded?)"
			 : "no pfn seed: the kernel lacks fsdax support");
	else if (!enabling)
		snprintf(err, errlen, "%s: cannot configure %s: %s", ns, seed, strerror(-rc));
	else
		snprintf(err, errlen, "%s: %s did not enable%s: %s", ns, seed,
			 devdax ? " (dax_pmem/device_dax missing?)" : "", strerror(-rc));
	return rc;
}

/*
 * Zero the info block of a namespace whose personality was removed, as
 * ndctl does before reconfiguring: otherwise the next enable finds the
 * old pfn/dax superblock and claims the namespace with it again.
 */
static int zero_info_block(struct ndctl_namespace *ndns, char *err, size_t errlen)
{
	const char *ns = ndctl_namespace_get_devname(ndns);
	char path[PATH_MAX];
	const char *bdev;
	void *buf = NULL;
	int fd, rc;

	ndctl_namespace_set_raw_mode(ndns, 1);
	rc = ndctl_namespace_enable(ndns);
	bdev = rc ? NULL : ndctl_namespace_get_block_device(ndns);
	if (!bdev || !*bdev) {
		snprintf(err, errlen, "%s: cannot enable it raw to clear its info block", ns);
		rc = rc ? rc : -ENXIO;
		goto out;
	}
	snprintf(path, sizeof(path), "/dev/%s", bdev);
	wait_for_node(path);
	fd = open(path, O_RDWR | O_EXCL | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s: %s", ns, path, strerror(-rc));
		goto out;
	}
	rc = posix_memalign(&buf, 4096, INFO_BLOCK) ? -ENOMEM : 0;
	if (!rc) {
		memset(buf, 0, INFO_BLOCK);
		if (pwrite(fd, buf, INFO_BLOCK, 0) != INFO_BLOCK || fsync(fd))
			rc = -EIO;
		if (rc)
			snprintf(err, errlen, "%s: cannot clear the info block on %s", ns, path);
	}
	free(buf);
	close(fd);
out:
	ndctl_namespace_set_raw_mode(ndns, 0);
	ndctl_namespace_disable_invalidate(ndns);
	return rc;
}

/* ---- destroying what a record describes ---- */

static int unmount_scratch(const struct scratch_record *r, char *err, size_t errlen)
{
	char file[PATH_MAX];
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	if (!r->mount[0])
		return 0;
	if (is_mount_point(r->mount)) {
		snprintf(file, sizeof(file), "%s/%s", r->mount, SCRATCH_FILE);
		unlink(file);
		/* a child of ours may still be closing the file */
		for (int i = 0; umount(r->mount); i++) {
			if (errno != EBUSY || i == 20) {
				int e = errno;

				snprintf(err, errlen, "cannot unmount %s: %s", r->mount,
					 strerror(e));
				return -e;
			}
			nanosleep(&ts, NULL);
		}
	}
	if (rmdir(r->mount) && errno != ENOENT) {
		int e = errno;

		snprintf(err, errlen, "cannot remove %s: %s", r->mount, strerror(e));
		return -e;
	}
	return 0;
}

/* Put a label-less namespace back into the mode it had. */
static int restore_label_less(struct ndctl_region *region, struct ndctl_namespace *ndns,
			      const char *mode, char *err, size_t errlen)
{
	const char *ns = ndctl_namespace_get_devname(ndns);
	int rc;

	rc = ndctl_namespace_disable_safe(ndns);
	if (rc) {
		snprintf(err, errlen, "%s: cannot disable it: %s", ns, strerror(-rc));
		return rc;
	}
	rc = zero_info_block(ndns, err, errlen);
	if (rc)
		return rc;
	if (strcmp(mode, "fsdax") == 0)
		return claim(region, ndns, false, personality_align(region, false), NULL, err,
			     errlen);
	ndctl_namespace_set_enforce_mode(ndns, NDCTL_NS_MODE_RAW);
	rc = ndctl_namespace_enable(ndns);
	if (rc < 0)
		snprintf(err, errlen, "%s: cannot enable it raw again: %s", ns, strerror(-rc));
	return rc < 0 ? rc : 0;
}

/*
 * Undo what r describes.  Returns 1 when something was removed, 0 when
 * there was nothing (left) to remove, negative errno (said in err) when
 * it could not be removed: the record is then kept.
 */
static int destroy_record(struct ndctl_ctx *ctx, const struct scratch_record *r, char *what,
			  size_t whatlen, char *err, size_t errlen)
{
	struct ndctl_region *region = region_find(ctx, r->region);
	struct ndctl_namespace *ndns;
	int rc;

	what[0] = '\0';
	rc = unmount_scratch(r, err, errlen);
	if (rc)
		return rc;
	if (!region)
		return 0;
	if (strcmp(r->mode, "label-less") == 0) {
		char uuid[REGION_UUID_STR_LEN];

		ndns = r->ns[0] ? find_namespace(region, r->ns) : NULL;
		if (!ndns || !region_is_label_less(region))
			return 0;
		/*
		 * Ours to put back: the dax personality the probe gave it
		 * (its UUID was recorded first), or, killed half-way, the
		 * namespace still disabled between the two, where the record
		 * says the probe disabled it (killed before that, the
		 * namespace was never ours: one disabled later is an
		 * administrator's).  Anything else has been reconfigured
		 * since: not ours any more.
		 */
		namespace_display_uuid(ndns, uuid);
		if (!ndctl_namespace_get_dax(ndns) && !ndctl_namespace_is_active(ndns) &&
		    strcmp(r->phase, "disabled")) {
			fprintf(stderr, "pmem-tune: %s (%s) is disabled and its record does not "
				"say the probe disabled it: left as it is (ndctl "
				"enable-namespace %s if it is yours)\n", r->ns, r->region, r->ns);
			return 0;
		}
		if (ndctl_namespace_get_dax(ndns) ? strcmp(uuid, r->uuid) != 0 :
		    ndctl_namespace_is_active(ndns))
			return 0;
		snprintf(what, whatlen, "%s (%s, back to %s)", r->ns, r->region,
			 r->restore[0] ? r->restore : "raw");
		return restore_label_less(region, ndns, r->restore, err, errlen) ?: 1;
	}
	ndns = find_owned(region, r);
	if (!ndns)
		return 0;
	snprintf(what, whatlen, "%s (%s, %s)", ndctl_namespace_get_devname(ndns), r->mode,
		 r->region);
	/* refuses (EBUSY) while the block device is mounted or held open */
	rc = ndctl_namespace_disable_safe(ndns);
	if (rc) {
		snprintf(err, errlen, "%s: busy, not destroyed: %s",
			 ndctl_namespace_get_devname(ndns), strerror(-rc));
		return rc;
	}
	ndctl_namespace_set_enforce_mode(ndns, NDCTL_NS_MODE_RAW);
	/*
	 * No info block zeroing here, unlike a reconfigure: deleting the
	 * label frees the capacity, and a later namespace there has a new
	 * UUID, which a stale pfn/dax superblock (keyed to ours) never
	 * matches.
	 */
	rc = ndctl_namespace_delete(ndns);
	if (rc) {
		snprintf(err, errlen, "%s: cannot delete: %s", what, strerror(-rc));
		return rc;
	}
	return 1;
}

/* ---- acquire ---- */

/*
 * The namespace size for about size_bytes usable (0: 4 x LLC) in region,
 * and the personality's alignment; -ENOSPC when the region has no room.
 */
static int labelled_size(struct ndctl_region *region, uint64_t size_bytes, bool devdax,
			 uint64_t *ns_size, uint64_t *dev_align, char *err, size_t errlen)
{
	uint64_t align, extent, llc;
	struct cpu_info ci;

	*dev_align = personality_align(region, devdax);
	align = region_size_align(region, *dev_align);
	extent = region_free_extent(region);
	llc = cpu_detect(&ci) == 0 && ci.llc_bytes ? ci.llc_bytes : 32ull << 20;
	if (!devdax) {
		/* ext4 keeps a journal, inode tables and bitmaps: about 1/8 and 32 MiB */
		uint64_t want = size_bytes ? size_bytes : 4 * llc;

		want = want < REGION_MIN_SCRATCH ? REGION_MIN_SCRATCH : want;
		size_bytes = want + want / 8 + (32ull << 20);
	}
	*ns_size = region_scratch_size(size_bytes, llc, extent, align);
	if (!*ns_size) {
		snprintf(err, errlen, "%s: the largest free extent is %" PRIu64 " MiB, too small "
			 "for a %llu MiB scratch namespace", ndctl_region_get_devname(region),
			 extent >> 20, REGION_MIN_SCRATCH >> 20);
		return -ENOSPC;
	}
	return 0;
}

/*
 * Record the namespace the seed ndns is about to become (a new UUID in
 * uu), before its label is written: a crash from there on is reaped.
 */
static int record_labelled(struct ndctl_region *region, struct ndctl_namespace *ndns,
			   bool devdax, unsigned char uu[16], struct scratch_record *r, char *err,
			   size_t errlen)
{
	int rc;

	rc = region_uuid_generate(uu);
	if (rc) {
		snprintf(err, errlen, "cannot generate a UUID: %s", strerror(-rc));
		return rc;
	}
	memset(r, 0, sizeof(*r));
	region_uuid_unparse(uu, r->uuid);
	snprintf(r->region, sizeof(r->region), "%s", ndctl_region_get_devname(region));
	snprintf(r->ns, sizeof(r->ns), "%s", ndctl_namespace_get_devname(ndns));
	snprintf(r->mode, sizeof(r->mode), "%s", devdax ? "devdax" : "fsdax");
	r->pid = (long)getpid();
	now_rfc3339(r->created, sizeof(r->created));
	if (!devdax)
		snprintf(r->mount, sizeof(r->mount), "%s/mnt-%s", scratch_state_dir(), r->uuid);
	return scratch_state_update(r, true, err, errlen);
}

/* Label the seed ndns as the scratch namespace of ns_size and claim it. */
static int configure_labelled(struct ndctl_region *region, struct ndctl_namespace *ndns,
			      unsigned char uu[16], uint64_t ns_size, bool devdax,
			      uint64_t dev_align, char *err, size_t errlen)
{
	int rc;

	if ((rc = ndctl_namespace_set_uuid(ndns, uu)) ||
	    (rc = ndctl_namespace_set_alt_name(ndns, SCRATCH_ALT_NAME)) ||
	    (rc = ndctl_namespace_set_size(ndns, ns_size))) {
		snprintf(err, errlen, "%s: cannot configure %s (%" PRIu64 " MiB): %s",
			 ndctl_region_get_devname(region), ndctl_namespace_get_devname(ndns),
			 ns_size >> 20, strerror(-rc));
		return rc;
	}
	return claim(region, ndns, devdax, dev_align, NULL, err, errlen);
}

/* The claimed devdax namespace's character device, as s's target. */
static int open_devdax(struct ndctl_namespace *ndns, const struct scratch_record *r,
		       struct scratch *s, char *err, size_t errlen)
{
	struct ndctl_dax *dax = ndctl_namespace_get_dax(ndns);
	struct daxctl_region *dr = dax ? ndctl_dax_get_daxctl_region(dax) : NULL;
	struct daxctl_dev *dev = dr ? daxctl_dev_get_first(dr) : NULL;

	if (!dev) {
		snprintf(err, errlen, "%s: enabled, but libdaxctl shows no device", r->ns);
		return -ENODEV;
	}
	snprintf(s->spec, sizeof(s->spec), "/dev/%s", daxctl_dev_get_devname(dev));
	s->area_bytes = daxctl_dev_get_size(dev);
	if (!wait_for_node(s->spec)) {
		snprintf(err, errlen, "%s: %s did not appear", r->ns, s->spec);
		return -ENODEV;
	}
	return 0;
}

/* ext4 on the claimed fsdax namespace, mounted -o dax at r->mount; a file in it as s's target. */
static int mount_fsdax(struct ndctl_namespace *ndns, const struct scratch_record *r,
		       struct scratch *s, char *err, size_t errlen)
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	const char *bdev = pfn ? ndctl_pfn_get_block_device(pfn) : NULL;
	char dev[64], file[PATH_MAX];
	char *mkfs[] = { "mkfs.ext4", "-q", "-F", "-b", "4096", dev, NULL };
	struct statvfs sv;
	uint64_t avail;
	int rc;

	if (!bdev || !*bdev) {
		snprintf(err, errlen, "%s: fsdax enabled without a block device", r->ns);
		return -ENODEV;
	}
	snprintf(dev, sizeof(dev), "/dev/%s", bdev);
	if (!wait_for_node(dev)) {
		snprintf(err, errlen, "%s: %s did not appear", r->ns, dev);
		return -ENODEV;
	}
	/* 4 KiB blocks: DAX needs the block size to be the page size */
	rc = run_quiet(mkfs);
	if (rc) {
		snprintf(err, errlen, "mkfs.ext4 -b 4096 %s failed%s", dev,
			 rc == -ENOENT ? ": mkfs.ext4 not installed" : "");
		return rc;
	}
	if (mkdir(r->mount, 0700) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "cannot create %s: %s", r->mount, strerror(-rc));
		return rc;
	}
	if (mount(dev, r->mount, "ext4", MS_NOSUID | MS_NODEV | MS_NOEXEC, "dax")) {
		rc = -errno;
		snprintf(err, errlen, "mount -o dax %s %s: %s", dev, r->mount, strerror(-rc));
		return rc;
	}
	if (statvfs(r->mount, &sv)) {
		rc = -errno;
		snprintf(err, errlen, "statvfs %s: %s", r->mount, strerror(-rc));
		return rc;
	}
	/* leave the filesystem room for the file's extent tree */
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	avail = (avail - avail / 32) & ~(SZ_2M - 1);
	if (avail < REGION_MIN_SCRATCH) {
		snprintf(err, errlen, "%s: %" PRIu64 " MiB free on the DAX mount, the probe "
			 "needs %llu MiB", dev, avail >> 20, REGION_MIN_SCRATCH >> 20);
		return -ENOSPC;
	}
	snprintf(file, sizeof(file), "%s/%s", r->mount, SCRATCH_FILE);
	if ((size_t)snprintf(s->spec, sizeof(s->spec), "file:%s", file) >= sizeof(s->spec)) {
		snprintf(err, errlen, "%s: path too long for a target", file);
		return -ENAMETOOLONG;
	}
	s->area_bytes = avail;
	return 0;
}

/*
 * A new scratch namespace in region's free capacity: sized, recorded,
 * configured and claimed, then opened (devdax) or mounted (fsdax).  On
 * a failure after the record, what was made is destroyed again.
 */
static int acquire_labelled(struct ndctl_region *region, uint64_t size_bytes, bool devdax,
			    struct scratch *s, char *err, size_t errlen)
{
	struct scratch_priv *p = s->priv;
	struct scratch_record *r = &p->rec;
	struct ndctl_namespace *ndns;
	uint64_t ns_size, dev_align;
	char why[512], what[256];
	unsigned char uu[16];
	int rc;

	rc = labelled_size(region, size_bytes, devdax, &ns_size, &dev_align, err, errlen);
	if (rc)
		return rc;
	ndns = idle_seed(region);
	if (!ndns) {
		snprintf(err, errlen, "%s: no idle namespace seed to configure",
			 ndctl_region_get_devname(region));
		return -EAGAIN;
	}
	rc = record_labelled(region, ndns, devdax, uu, r, err, errlen);
	if (rc)
		return rc;
	p->recorded = true;

	rc = configure_labelled(region, ndns, uu, ns_size, devdax, dev_align, err, errlen);
	if (!rc)
		rc = devdax ? open_devdax(ndns, r, s, err, errlen)
			    : mount_fsdax(ndns, r, s, err, errlen);
	if (!rc) {
		s->owned = true;
		snprintf(s->how, sizeof(s->how), "%s", r->mode);
		return 0;
	}
	if (destroy_record(ndctl_region_get_ctx(region), r, what, sizeof(what), why,
			   sizeof(why)) < 0) {
		fprintf(stderr, "pmem-tune: %s; cleanup: %s\n", err, why);
		return rc;
	}
	scratch_state_update(r, false, why, sizeof(why));
	p->recorded = false;
	return rc;
}

/* The one namespace of a label-less region (the idle seed aside). */
static struct ndctl_namespace *label_less_namespace(struct ndctl_region *region)
{
	struct ndctl_namespace *ndns;

	ndctl_namespace_foreach(region, ndns)
		if (namespace_is_configured(ndns))
			return ndns;
	return NULL;
}

/*
 * A label-less region, named with destroy_data.  Its namespace cannot
 * be subdivided, so the probe takes all of it: as it is when devdax,
 * else turned into devdax and put back afterwards.  Refused while it is
 * mounted, open or online as system RAM.
 */
static int acquire_label_less(struct ndctl_region *region, struct scratch *s, char *err,
			      size_t errlen)
{
	struct scratch_priv *p = s->priv;
	struct scratch_record *r = &p->rec;
	const char *rname = ndctl_region_get_devname(region);
	struct ndctl_namespace *ndns = label_less_namespace(region);
	enum ndctl_namespace_mode mode;
	struct ndctl_dax *dax;
	struct daxctl_region *dr;
	struct daxctl_dev *dev;
	char why[512], what[256], dev_name[64];
	pid_t who = 0;
	int rc;

	if (!ndns) {
		snprintf(err, errlen, "%s: label-less region without a namespace", rname);
		return -ENODEV;
	}
	mode = ndctl_namespace_get_mode(ndns);
	namespace_device(ndns, dev_name, sizeof(dev_name));
	if (mode == NDCTL_NS_MODE_SECTOR || mode == NDCTL_NS_MODE_UNKNOWN) {
		snprintf(err, errlen, "%s: %s is in %s mode; reconfigure it to devdax "
			 "(ndctl create-namespace -f -e %s -m devdax) to probe it", rname,
			 ndctl_namespace_get_devname(ndns), namespace_mode_name(mode),
			 ndctl_namespace_get_devname(ndns));
		return -EOPNOTSUPP;
	}
	if (mode != NDCTL_NS_MODE_DEVDAX) {
		unsigned char uu[16];

		memset(r, 0, sizeof(*r));
		rc = region_uuid_generate(uu);
		if (rc) {
			snprintf(err, errlen, "cannot generate a UUID: %s", strerror(-rc));
			return rc;
		}
		region_uuid_unparse(uu, r->uuid);	/* the dax personality's */
		snprintf(r->region, sizeof(r->region), "%s", rname);
		snprintf(r->ns, sizeof(r->ns), "%s", ndctl_namespace_get_devname(ndns));
		snprintf(r->mode, sizeof(r->mode), "label-less");
		snprintf(r->restore, sizeof(r->restore), "%s",
			 mode == NDCTL_NS_MODE_FSDAX ? "fsdax" : "raw");
		r->pid = (long)getpid();
		now_rfc3339(r->created, sizeof(r->created));
		/* recorded before anything changes: a crash from here on is undone */
		rc = scratch_state_update(r, true, err, errlen);
		if (rc)
			return rc;
		p->recorded = true;
		/* fails with EBUSY while the block device is mounted or held open */
		rc = ndctl_namespace_disable_safe(ndns);
		if (rc) {
			snprintf(err, errlen, "%s: %s (/dev/%s) is mounted or open elsewhere; "
				 "not touched", rname, ndctl_namespace_get_devname(ndns),
				 dev_name[0] ? dev_name : "?");
			/* the record would name a namespace we never took: say so if it stays */
			if (scratch_state_update(r, false, why, sizeof(why)) == 0)
				p->recorded = false;
			else
				fprintf(stderr, "pmem-tune: %s; its record of %s stays, never "
					"acted on while the namespace is enabled\n", why,
					r->ns);
			return -EBUSY;
		}
		/* only a record that says so lets a later probe restore a disabled namespace */
		snprintf(r->phase, sizeof(r->phase), "disabled");
		rc = scratch_state_update(r, true, err, errlen);
		if (rc)
			goto restore;	/* this probe disabled it: put back as recorded here */
		rc = zero_info_block(ndns, err, errlen);
		if (!rc)
			rc = claim(region, ndns, true, personality_align(region, true), r->uuid,
				   err, errlen);
		if (rc)
			goto restore;
	}
	dax = ndctl_namespace_get_dax(ndns);
	dr = dax ? ndctl_dax_get_daxctl_region(dax) : NULL;
	dev = dr ? daxctl_dev_get_first(dr) : NULL;
	if (!dev) {
		snprintf(err, errlen, "%s: %s is devdax but libdaxctl shows no device", rname,
			 ndctl_namespace_get_devname(ndns));
		rc = -ENODEV;
		goto restore;
	}
	snprintf(s->spec, sizeof(s->spec), "/dev/%s", daxctl_dev_get_devname(dev));
	if (!wait_for_node(s->spec)) {
		snprintf(err, errlen, "%s: %s did not appear", rname, s->spec);
		rc = -ENODEV;
		goto restore;
	}
	if (daxctl_dev_get_memory(dev) && daxctl_dev_has_online_memory(dev)) {
		snprintf(err, errlen, "%s: %s is online as system RAM; not touched", rname,
			 s->spec);
		rc = -EBUSY;
		goto restore;
	}
	if (chardev_in_use(s->spec, &who)) {
		snprintf(err, errlen, "%s: %s is open in process %d; not touched", rname, s->spec,
			 (int)who);
		rc = -EBUSY;
		goto restore;
	}
	s->area_bytes = daxctl_dev_get_size(dev);
	s->owned = false;
	snprintf(s->how, sizeof(s->how), "label-less");
	return 0;
restore:
	if (p->recorded) {
		if (destroy_record(ndctl_region_get_ctx(region), r, what, sizeof(what), why,
				   sizeof(why)) < 0) {
			fprintf(stderr, "pmem-tune: %s; putting %s back: %s (if it stays disabled: "
				"ndctl enable-namespace %s)\n", err, r->ns, why, r->ns);
			return rc;
		}
		scratch_state_update(r, false, why, sizeof(why));
		p->recorded = false;
	}
	return rc;
}

static int open_region(const char *name, struct ndctl_ctx **ctx, struct ndctl_region **region,
		       char *err, size_t errlen)
{
	int rc = regions_ctx_new(ctx);

	if (rc) {
		snprintf(err, errlen, "cannot initialise libndctl: %s", strerror(-rc));
		return rc;
	}
	*region = region_find(*ctx, name);
	if (!*region) {
		snprintf(err, errlen, "region:%s: no such region (see pmem-tune --list)", name);
		ndctl_unref(*ctx);
		*ctx = NULL;
		return -ENODEV;
	}
	return 0;
}

/* PMEM_TUNE_SCRATCH_MODE=devdax|fsdax forces one (tests); else devdax, then fsdax. */
static const char *forced_mode(void)
{
	const char *m = getenv("PMEM_TUNE_SCRATCH_MODE");

	return m && (!strcmp(m, "devdax") || !strcmp(m, "fsdax")) ? m : NULL;
}

int scratch_acquire(const char *region_name, uint64_t size_bytes, bool destroy_data,
		    struct scratch *s, char *err, size_t errlen)
{
	struct ndctl_region *region;
	struct ndctl_ctx *ctx = NULL;
	struct scratch_priv *p;
	const char *mode = forced_mode();
	bool devdax;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = scratch_lock(err, errlen);
	if (rc)
		return rc;
	rc = open_region(region_name, &ctx, &region, err, errlen);
	if (rc)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	s->priv = p;
	region_identity_fill(region, &s->id);
	if (!region_is_pmem(region) || !ndctl_region_is_enabled(region) ||
	    ndctl_region_get_ro(region)) {
		snprintf(err, errlen, "%s: %s", region_name, !region_is_pmem(region) ?
			 "not a persistent-memory region" : !ndctl_region_is_enabled(region) ?
			 "disabled" : "read-only");
		rc = -ENXIO;
		goto out;
	}
	if (region_is_label_less(region)) {
		if (!destroy_data) {
			snprintf(err, errlen, "region:%s is label-less: the probe would overwrite "
				 "all of it; pass --destroy-data to allow that", region_name);
			rc = -EPERM;
			goto out;
		}
		rc = acquire_label_less(region, s, err, errlen);
		goto out;
	}
	devdax = mode ? strcmp(mode, "devdax") == 0 : ndctl_region_get_dax_seed(region) != NULL;
	rc = acquire_labelled(region, size_bytes, devdax, s, err, errlen);
	if (rc && devdax && !mode && (rc == -ENODEV || rc == -ENXIO) &&
	    ndctl_region_get_pfn_seed(region)) {
		fprintf(stderr, "pmem-tune: %s; trying fsdax\n", err);
		rc = acquire_labelled(region, size_bytes, false, s, err, errlen);
	}
out:
	ndctl_unref(ctx);
	if (rc) {
		free(s->priv);
		s->priv = NULL;
	}
	return rc;
}

void scratch_release(struct scratch *s)
{
	struct scratch_priv *p = s->priv;
	char what[256], err[512];
	struct ndctl_ctx *ctx;
	int rc;

	if (!p)
		return;
	s->priv = NULL;
	if (!p->recorded)
		goto out;
	/* a fresh view: the probe ran for a while, other devices may have come and gone */
	rc = regions_ctx_new(&ctx);
	if (rc) {
		fprintf(stderr, "pmem-tune: cannot initialise libndctl to remove the scratch "
			"namespace %s: %s\n", p->rec.ns, strerror(-rc));
		goto out;
	}
	rc = destroy_record(ctx, &p->rec, what, sizeof(what), err, sizeof(err));
	ndctl_unref(ctx);
	if (rc < 0) {
		fprintf(stderr, "pmem-tune: scratch %s left in place (the next probe retries): "
			"%s\n", p->rec.ns, err);
		goto out;
	}
	if (scratch_state_update(&p->rec, false, err, sizeof(err)))
		fprintf(stderr, "pmem-tune: %s\n", err);
out:
	free(p);
}

int scratch_reap_stale(void)
{
	struct scratch_record *recs = NULL;
	struct ndctl_region *region;
	struct ndctl_namespace *ndns;
	struct ndctl_ctx *ctx = NULL;
	struct ndctl_bus *bus;
	char path[PATH_MAX], err[512], what[256];
	size_t n = 0, kept = 0;
	int rc, removed = 0;

	rc = scratch_lock(err, sizeof(err));
	if (rc) {
		fprintf(stderr, "pmem-tune: %s\n", err);
		return rc;
	}
	rc = scratch_state_path(path, sizeof(path), SCRATCH_STATE_FILE);
	if (!rc)
		rc = scratch_state_load(path, &recs, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "pmem-tune: state file %s is not usable (%s): no stale scratch "
			"removed; check `ndctl list -N` for %s namespaces and remove the file\n",
			path, err, SCRATCH_ALT_NAME);
		return rc;
	}
	rc = regions_ctx_new(&ctx);
	if (rc) {
		fprintf(stderr, "pmem-tune: cannot initialise libndctl: %s\n", strerror(-rc));
		free(recs);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		struct scratch_record *r = &recs[i];

		rc = destroy_record(ctx, r, what, sizeof(what), err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "pmem-tune: stale scratch of pid %ld not removed: %s\n",
				r->pid, err);
			recs[kept++] = *r;
			continue;
		}
		if (rc > 0) {
			fprintf(stderr, "pmem-tune: removed stale scratch namespace %s left by "
				"pid %ld (uuid %s)\n", what, r->pid, r->uuid);
			removed++;
		}
	}
	rc = scratch_state_save(path, recs, kept);
	if (rc)
		fprintf(stderr, "pmem-tune: cannot update %s: %s\n", path, strerror(-rc));
	/* a scratch-named namespace no record accounts for is someone else's */
	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			ndctl_namespace_foreach(region, ndns) {
				const char *alt = ndctl_namespace_get_alt_name(ndns);
				char uuid[REGION_UUID_STR_LEN];
				bool known = false;

				if (!alt || strcmp(alt, SCRATCH_ALT_NAME) ||
				    !namespace_is_configured(ndns))
					continue;
				namespace_label_uuid(ndns, uuid);
				for (size_t i = 0; i < kept; i++)
					known |= strcmp(recs[i].uuid, uuid) == 0;
				if (!known)
					fprintf(stderr, "pmem-tune: %s: %s is named %s but no "
						"record of ours matches its uuid %s; left alone\n",
						ndctl_region_get_devname(region),
						ndctl_namespace_get_devname(ndns), SCRATCH_ALT_NAME,
						uuid);
			}
	ndctl_unref(ctx);
	free(recs);
	return rc ? rc : removed;
}

const char *scratch_region_skip_reason(struct ndctl_region *region, uint64_t llc, char *buf,
				       size_t len)
{
	const char *name = ndctl_region_get_devname(region);
	uint64_t extent, align, need;
	const char *mode = forced_mode();
	bool devdax;

	if (!region_is_pmem(region))
		return "not a persistent-memory region";
	if (!ndctl_region_is_enabled(region))
		return "disabled";
	if (ndctl_region_get_ro(region))
		return "read-only";
	if (region_is_label_less(region)) {
		snprintf(buf, len, "label-less (%s): its one namespace spans it and cannot be "
			 "subdivided; probe it with --target region:%s --destroy-data, which "
			 "overwrites it", region_dimms_have_labels(region) ?
			 "the label area is not initialised, see ndctl init-labels" :
			 "no label area", name);
		return buf;
	}
	devdax = mode ? strcmp(mode, "devdax") == 0 : ndctl_region_get_dax_seed(region) != NULL;
	if (!ndctl_region_get_dax_seed(region) && !ndctl_region_get_pfn_seed(region))
		return "neither devdax nor fsdax is available (dax_pmem, nd_pmem loaded?)";
	align = region_size_align(region, personality_align(region, devdax));
	extent = region_free_extent(region);
	need = region_scratch_size(REGION_MIN_SCRATCH, llc, UINT64_MAX, align);
	if (!region_scratch_size(0, llc, extent, align)) {
		snprintf(buf, len, "no room: the largest free extent is %" PRIu64 " MiB, a "
			 "scratch namespace needs %" PRIu64 " MiB", extent >> 20, need >> 20);
		return buf;
	}
	if (!idle_seed(region))
		return "no idle namespace seed";
	return NULL;
}

int scratch_plan(const char *spec, bool destroy_data, char (*regions)[POLICY_NAME_MAX],
		 size_t max, char *err, size_t errlen)
{
	struct ndctl_region *region;
	struct ndctl_ctx *ctx;
	struct ndctl_bus *bus;
	struct cpu_info ci;
	uint64_t llc;
	size_t count = 0;
	char why[512];
	int rc;

	llc = cpu_detect(&ci) == 0 && ci.llc_bytes ? ci.llc_bytes : 32ull << 20;
	if (strncmp(spec, "region:", 7) == 0) {
		const char *name = spec + 7;
		const char *reason;

		rc = open_region(name, &ctx, &region, err, errlen);
		if (rc)
			return rc;
		if (region_is_label_less(region) && region_is_pmem(region) &&
		    ndctl_region_is_enabled(region) && !ndctl_region_get_ro(region)) {
			if (!destroy_data) {
				snprintf(err, errlen, "region:%s is label-less: the probe would "
					 "overwrite all of it; pass --destroy-data to allow that",
					 name);
				rc = -EPERM;
			}
		} else if ((reason = scratch_region_skip_reason(region, llc, why, sizeof(why)))) {
			snprintf(err, errlen, "region:%s: %s", name, reason);
			rc = -ENOSPC;
		}
		ndctl_unref(ctx);
		if (rc)
			return rc;
		if (max)
			snprintf(regions[0], POLICY_NAME_MAX, "%s", name);
		return 1;
	}
	if (strcmp(spec, "auto")) {
		snprintf(err, errlen, "'%s' is not a region target (auto, region:NAME)", spec);
		return -EINVAL;
	}
	rc = regions_ctx_new(&ctx);
	if (rc) {
		snprintf(err, errlen, "cannot initialise libndctl: %s", strerror(-rc));
		return rc;
	}
	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region) {
			const char *name = ndctl_region_get_devname(region);
			const char *reason = scratch_region_skip_reason(region, llc, why,
									sizeof(why));

			if (reason) {
				fprintf(stderr, "pmem-tune: auto: skipping %s: %s\n", name, reason);
				continue;
			}
			if (count < max)
				snprintf(regions[count], POLICY_NAME_MAX, "%s", name);
			count++;
		}
	ndctl_unref(ctx);
	return (int)(count < max ? count : max);
}
