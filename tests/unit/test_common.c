// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The common layer: bounded file reads (a FIFO refused without hanging,
 * the size bound), the strict attribute read, parsing, trimming, lines,
 * paths, the trusted-file rule and the atomic write.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "common/atomic_file.h"
#include "common/macros.h"
#include "common/parse.h"
#include "common/path.h"
#include "common/read_file.h"
#include "common/sysfs_attr.h"
#include "common/text.h"
#include "common/trusted.h"
#include "put_file.h"

static char dir[] = "/tmp/pt-test-common.XXXXXX";

static const char *at(const char *name)
{
	static char path[2][4096];
	static int i;

	i ^= 1;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void test_read_file(void)
{
	char *buf = NULL;
	size_t len = 0;

	put_file(dir, "small", "hello\nworld\n");
	CHECK_INT(read_file(at("small"), 0, 64, &buf, &len), 0);
	CHECK_STR(buf, "hello\nworld\n");
	CHECK_INT(len, 12);
	free(buf);
	/* exactly at the bound is fine, one byte over is not */
	CHECK_INT(read_file(at("small"), 0, 12, &buf, NULL), 0);
	free(buf);
	CHECK_INT(read_file(at("small"), 0, 11, &buf, NULL), -EFBIG);
	CHECK_INT(read_file(at("absent"), 0, 64, &buf, NULL), -ENOENT);
	/* a directory and a FIFO are not regular files; the FIFO must not hang */
	CHECK_INT(read_file(dir, 0, 64, &buf, NULL), -EINVAL);
	CHECK(mkfifo(at("fifo"), 0600) == 0);
	CHECK_INT(read_file(at("fifo"), 0, 64, &buf, NULL), -EINVAL);
	/* a symlink is followed unless refused */
	CHECK(symlink("small", at("link")) == 0);
	CHECK_INT(read_file(at("link"), 0, 64, &buf, NULL), 0);
	free(buf);
	CHECK_INT(read_file(at("link"), READ_FILE_NOFOLLOW, 64, &buf, NULL), -ELOOP);
}

static void test_read_fd_bound(void)
{
	char big[10000], *buf = NULL;
	int fd;

	/* the bound holds past the first buffer too (a file growing after fstat) */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put_file(dir, "big", big);
	fd = open(at("big"), O_RDONLY);
	CHECK(fd >= 0);
	CHECK_INT(read_fd(fd, 9000, &buf, NULL), -EFBIG);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK_INT(read_fd(fd, 9999, &buf, NULL), 0);
	CHECK_INT(strlen(buf), 9999);
	free(buf);
	close(fd);
}

static void test_read_attr(void)
{
	char buf[8];

	put_file(dir, "attr", "  value\n");
	CHECK_INT(read_attr(at("attr"), buf, sizeof(buf)), 0);
	CHECK_STR(buf, "value");
	/* only the first line */
	put_file(dir, "attr", "one\ntwo\n");
	CHECK_INT(read_attr(at("attr"), buf, sizeof(buf)), 0);
	CHECK_STR(buf, "one");
	/* 7 characters fit in 8 bytes, with or without the newline after them */
	put_file(dir, "attr", "1234567\n");
	CHECK_INT(read_attr(at("attr"), buf, sizeof(buf)), 0);
	CHECK_STR(buf, "1234567");
	put_file(dir, "attr", "1234567");
	CHECK_INT(read_attr(at("attr"), buf, sizeof(buf)), 0);
	/* strict: a longer value is refused, never cut short */
	put_file(dir, "attr", "12345678\n");
	CHECK_INT(read_attr(at("attr"), buf, sizeof(buf)), -EFBIG);
	CHECK_INT(read_attrf(buf, sizeof(buf), "%s/%s", dir, "absent"), -ENOENT);
	CHECK_INT(write_attr(at("attr"), "42"), 0);
	CHECK_INT(read_attrf(buf, sizeof(buf), "%s/%s", dir, "attr"), 0);
	CHECK_STR(buf, "42");
	/* the write is not made through a symlink */
	CHECK(symlink("attr", at("attr-link")) == 0);
	CHECK_INT(write_attr(at("attr-link"), "1"), -ELOOP);
}

static void test_parse(void)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "-1", "+1", "0x", "0xg", "0x 1", "1a", "0x0x1",
		"18446744073709551616",
	};
	uint64_t v = 7;

	CHECK_INT(parse_u64("0", &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(parse_u64("4096", &v), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(parse_u64("0x4040", &v), 0);
	CHECK_INT(v, 0x4040);
	CHECK_INT(parse_u64("0XfF", &v), 0);
	CHECK_INT(v, 255);
	CHECK_INT(parse_u64("010", &v), 0);
	CHECK_INT(v, 10);
	CHECK(parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK_INT(parse_u64("18446744073709551616", &v), -ERANGE);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 7;
		CHECK_MSG(parse_u64(bad[i], &v) < 0 && v == 7, "'%s' accepted", bad[i]);
	}
	CHECK(parse_u64(NULL, &v) == -EINVAL);
	CHECK_INT(parse_u64_dec("42", &v), 0);
	CHECK_INT(v, 42);
	CHECK_INT(parse_u64_dec("0x10", &v), -EINVAL);
}

static void test_text(void)
{
	char s[] = " \t a b \n", e[] = "   ", t[] = "a\n\nb", *cur = t, *line;

	CHECK(strtrim(s) == s);
	CHECK_STR(s, "a b");
	CHECK_STR(strtrim(e), "");
	line = next_line(&cur);
	CHECK_STR(line, "a");
	line = next_line(&cur);
	CHECK_STR(line, "");
	line = next_line(&cur);
	CHECK_STR(line, "b");
	CHECK(next_line(&cur) == NULL);
	CHECK(startswith("export X=1", "export "));
	CHECK(!startswith("exp", "export "));
	CHECK(startswith("x", ""));
}

static void test_path(void)
{
	char out[8];
	struct stat st;

	CHECK_INT(path_join(out, sizeof(out), "/a", "/b"), 0);
	CHECK_STR(out, "/a/b");
	CHECK_INT(path_join(out, sizeof(out), NULL, "/bc"), 0);
	CHECK_STR(out, "/bc");
	CHECK_INT(path_join(out, sizeof(out), "/abcd", "/ef"), -ENAMETOOLONG);
	CHECK_INT(mkdir_p(at("m/n/o"), 0700), 0);
	CHECK(stat(at("m/n/o"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_INT(mkdir_p(at("m/n/o/"), 0700), 0);	/* existing: fine */
	CHECK_INT(mkdir_p(at("small/x"), 0700), -ENOTDIR);
	CHECK_INT(mkdir_p("", 0700), -ENOENT);
}

static void test_trusted(void)
{
	struct stat st = { .st_uid = 0, .st_mode = S_IFREG | 0644 };

	CHECK(trusted_stat(&st));
	st.st_mode = S_IFREG | 0664;
	CHECK(!trusted_stat(&st));
	st.st_mode = S_IFREG | 0646;
	CHECK(!trusted_stat(&st));
	st.st_mode = S_IFDIR | 01777;	/* sticky does not make /tmp ours */
	CHECK(!trusted_stat(&st));
	st.st_mode = S_IFREG | 0600;
	st.st_uid = geteuid();
	CHECK(trusted_stat(&st));
	/* someone else's, neither root nor us */
	st.st_uid = geteuid() + 1;
	CHECK(!trusted_stat(&st));
}

/* mkdir name with mode (umask aside) */
static void mkdir_mode(const char *name, mode_t mode)
{
	if (mkdir(at(name), 0700) < 0 || chmod(at(name), mode) < 0) {
		perror(at(name));
		exit(EXIT_FAILURE);
	}
}

static void test_trusted_dir(void)
{
	char why[PATH_MAX + 64], cwd[PATH_MAX];

	CHECK_INT(trusted_dir(dir, why, sizeof(why)), 0);
	mkdir_mode("t", 0755);
	CHECK_INT(trusted_dir(at("t"), why, sizeof(why)), 0);
	CHECK_INT(trusted_dir(at("t/"), why, sizeof(why)), 0);
	chmod(at("t"), 0775);
	CHECK_INT(trusted_dir(at("t"), why, sizeof(why)), -EPERM);
	CHECK(strstr(why, at("t")) && strstr(why, "with mode 0775"));
	chmod(at("t"), 0755);
	CHECK_INT(trusted_dir(at("t/../t/./"), why, sizeof(why)), 0);
	/* who may rename a directory above may swap it */
	mkdir_mode("open", 0777);
	mkdir_mode("open/in", 0755);
	CHECK_INT(trusted_dir(at("open/in"), why, sizeof(why)), -EPERM);
	CHECK(strstr(why, at("open")) && strstr(why, "with mode 0777"));
	/* unless it is sticky, as /tmp: then only what we own is ours */
	mkdir_mode("sticky", 01777);
	mkdir_mode("sticky/in", 0700);
	CHECK_INT(trusted_dir(at("sticky/in"), why, sizeof(why)), 0);
	CHECK_INT(trusted_dir(at("sticky"), why, sizeof(why)), -EPERM);
	CHECK(strstr(why, "with mode 1777"));
	/* links are followed and what they name is judged */
	CHECK_INT(symlink("t", at("to-t")), 0);
	CHECK_INT(trusted_dir(at("to-t"), why, sizeof(why)), 0);
	CHECK_INT(symlink(at("open/in"), at("to-open")), 0);
	CHECK_INT(trusted_dir(at("to-open"), why, sizeof(why)), -EPERM);
	CHECK(strstr(why, at("open")) && !strstr(why, "to-open"));
	CHECK_INT(symlink("loop", at("loop")), 0);
	CHECK_INT(trusted_dir(at("loop"), why, sizeof(why)), -ELOOP);
	/* missing: those above pass, so it may be created */
	CHECK_INT(trusted_dir(at("t/new/deeper"), why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, at("t/new")));
	CHECK_INT(trusted_dir(at("open/new"), why, sizeof(why)), -EPERM);
	put_file(dir, "t/file", "x");
	CHECK_INT(trusted_dir(at("t/file"), why, sizeof(why)), -ENOTDIR);
	/* relative: from the working directory, which is judged too */
	if (getcwd(cwd, sizeof(cwd)) && chdir(at("t")) == 0) {
		CHECK_INT(trusted_dir(".", why, sizeof(why)), 0);
		CHECK_INT(trusted_dir("../sticky/in", why, sizeof(why)), 0);
		CHECK_INT(trusted_dir("../open/in", why, sizeof(why)), -EPERM);
		CHECK(chdir(cwd) == 0);
	}
	if (geteuid() != 0) {
		printf("skipped: trusted_dir() of another user's directory and link: not root\n");
		return;
	}
	CHECK_INT(chown(at("t"), 65534, 65534), 0);
	CHECK_INT(trusted_dir(at("t"), why, sizeof(why)), -EPERM);
	CHECK(strstr(why, "owned by uid 65534 with mode 0755"));
	CHECK_INT(chown(at("t"), 0, 0), 0);
	/* a link in a sticky directory belongs to whoever made it */
	CHECK_INT(symlink(at("t"), at("sticky/link")), 0);
	CHECK_INT(trusted_dir(at("sticky/link"), why, sizeof(why)), 0);
	CHECK_INT(lchown(at("sticky/link"), 65534, 65534), 0);
	CHECK_INT(trusted_dir(at("sticky/link"), why, sizeof(why)), -EPERM);
	CHECK(strstr(why, at("sticky/link")) && strstr(why, "uid 65534"));
}

static void test_atomic_write(void)
{
	char *buf = NULL;
	struct stat st;

	put_file(dir, "target", "old");
	CHECK_INT(atomic_write_file(at("target"), "new\n", 4, 0640), 0);
	CHECK_INT(read_file(at("target"), 0, 64, &buf, NULL), 0);
	CHECK_STR(buf, "new\n");
	free(buf);
	CHECK(stat(at("target"), &st) == 0 && (st.st_mode & 07777) == 0640);
	CHECK_INT(atomic_write_file(at("nodir/target"), "x", 1, 0644), -ENOENT);
}

/* What is not a regular file is never replaced; not even through a link. */
static void test_atomic_refuses(void)
{
	char *buf = NULL;
	char link_to[PATH_MAX];

	put_file(dir, "victim", "precious");
	snprintf(link_to, sizeof(link_to), "%s", at("victim"));
	CHECK(symlink(link_to, at("out-link")) == 0);
	CHECK(mkfifo(at("out-fifo"), 0600) == 0);
	CHECK(mkdir(at("out-sub"), 0700) == 0);
	CHECK_INT(atomic_write_file(at("out-link"), "x", 1, 0644), -EEXIST);
	CHECK_INT(atomic_write_file(at("out-fifo"), "x", 1, 0644), -EEXIST);
	CHECK_INT(atomic_write_file(at("out-sub"), "x", 1, 0644), -EEXIST);
	CHECK_INT(atomic_write_file("/dev/null", "x", 1, 0644), -EEXIST);
	CHECK_INT(output_path_check(at("absent")), 0);
	CHECK_INT(output_path_check(at("victim")), 0);
	CHECK_STR(output_path_kind(at("out-fifo")), "a FIFO");
	CHECK_STR(output_path_kind(at("out-link")), "a symbolic link");
	CHECK_INT(read_file(at("victim"), 0, 64, &buf, NULL), 0);
	CHECK_STR(buf, "precious");
	free(buf);
	{
		struct stat st;

		CHECK(lstat(at("out-link"), &st) == 0 && S_ISLNK(st.st_mode));
		CHECK(lstat(at("out-fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
	}
}

static void age(const char *name, time_t seconds)
{
	struct timespec ts[2] = { { .tv_sec = time(NULL) - seconds },
				  { .tv_sec = time(NULL) - seconds } };

	CHECK(utimensat(AT_FDCWD, at(name), ts, AT_SYMLINK_NOFOLLOW) == 0);
}

/*
 * A writer killed between naming its temporary and the rename: swept on
 * the next save.  Only a name of exactly our shape is: ".NAME.pmem-tune-tmp."
 * and six characters of [A-Za-z0-9], a regular file of ours; whatever an
 * administrator keeps beside NAME (NAME.backup, NAME.golden, NAME.231203:
 * six characters of that set after a dot) is never removed.
 */
static void test_atomic_sweep(void)
{
	static const char *const theirs[] = {
		"pol.json.backup", "pol.json.golden", "pol.json.231203", "pol.json.Ab12Cd",
		"pol.json.bak", "pol.json.Ab12C!",
		"pol.json.pmem-tune-tmp.Ab12Cd",	/* not hidden */
		".pol.json.pmem-tune-tmp.Ab12C",	/* five */
		".pol.json.pmem-tune-tmp.Ab12Cd7",	/* seven */
		".pol.json.pmem-tune-tmp.Ab12C!",	/* not the set */
		".pol.json.pmem-tune-tmp.Ab12Cd~",	/* an editor's backup of one */
		".pol.json.pmem-tune-tmp.",
		".pol.json.pmem-tune-tmpXAb12Cd",
		"..pol.json.pmem-tune-tmp.Ab12Cd",
		".pol.json.bak.pmem-tune-tmp.Ab12Cd",	/* pol.json.bak's */
		".other.json.pmem-tune-tmp.Ab12Cd",	/* another file's */
		".pol.jso.pmem-tune-tmp.Ab12Cd",
	};
	char *buf = NULL;
	struct stat st;

	put_file(dir, "pol.json", "old");
	put_file(dir, ".pol.json.pmem-tune-tmp.Ab12Cd", "stale");
	age(".pol.json.pmem-tune-tmp.Ab12Cd", 2 * ATOMIC_STALE_S);
	put_file(dir, ".pol.json.pmem-tune-tmp.Zz99Yy", "a live writer's");
	for (size_t i = 0; i < ARRAY_SIZE(theirs); i++) {
		put_file(dir, theirs[i], "precious");
		age(theirs[i], 2 * ATOMIC_STALE_S);
	}
	/* our name, but not a regular file: a directory, a link to someone's file */
	CHECK(mkdir(at(".pol.json.pmem-tune-tmp.Qq11Qq"), 0700) == 0);
	age(".pol.json.pmem-tune-tmp.Qq11Qq", 2 * ATOMIC_STALE_S);
	CHECK(symlink("pol.json.backup", at(".pol.json.pmem-tune-tmp.Ll11Ll")) == 0);
	age(".pol.json.pmem-tune-tmp.Ll11Ll", 2 * ATOMIC_STALE_S);
	/* our name, another user's file (root can make one) */
	if (geteuid() == 0) {
		put_file(dir, ".pol.json.pmem-tune-tmp.Oo11Oo", "another user's");
		CHECK(chown(at(".pol.json.pmem-tune-tmp.Oo11Oo"), 65534, 65534) == 0);
		age(".pol.json.pmem-tune-tmp.Oo11Oo", 2 * ATOMIC_STALE_S);
	}

	CHECK_INT(atomic_write_file(at("pol.json"), "new", 3, 0644), 0);
	CHECK(lstat(at(".pol.json.pmem-tune-tmp.Ab12Cd"), &st) && errno == ENOENT);
	CHECK(lstat(at(".pol.json.pmem-tune-tmp.Zz99Yy"), &st) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(theirs); i++) {
		CHECK_MSG(read_file(at(theirs[i]), 0, 64, &buf, NULL) == 0 &&
			  !strcmp(buf, "precious"), "%s: removed or changed", theirs[i]);
		free(buf);
		buf = NULL;
	}
	CHECK(lstat(at(".pol.json.pmem-tune-tmp.Qq11Qq"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(lstat(at(".pol.json.pmem-tune-tmp.Ll11Ll"), &st) == 0 && S_ISLNK(st.st_mode));
	if (geteuid() == 0)
		CHECK(lstat(at(".pol.json.pmem-tune-tmp.Oo11Oo"), &st) == 0);
	/* the threshold is the caller's: aged 60 s, the live one is kept at 120 s, swept at 30 s */
	age(".pol.json.pmem-tune-tmp.Zz99Yy", 60);
	CHECK_INT(atomic_sweep_temps(at("pol.json"), 120), 0);
	CHECK_INT(atomic_sweep_temps(at("pol.json"), 30), 1);
	CHECK(lstat(at(".pol.json.pmem-tune-tmp.Zz99Yy"), &st) && errno == ENOENT);
	/* the other file's temporary is its own save's to sweep */
	CHECK_INT(atomic_sweep_temps(at("other.json"), 30), 1);
	CHECK(lstat(at(".other.json.pmem-tune-tmp.Ab12Cd"), &st) && errno == ENOENT);
}

/* Entries in a directory of the test's: a check must leave none behind. */
static unsigned entries(const char *name)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(at(name));

	while (d && (de = readdir(d)))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* What atomic_write_file() would certainly fail on, found without writing. */
static void test_atomic_write_check(void)
{
	char longname[256];
	unsigned before;

	CHECK(mkdir(at("ck"), 0755) == 0);
	CHECK(mkdir(at("ck-all"), 0755) == 0 && chmod(at("ck-all"), 0777) == 0);
	put_file(dir, "ck/file", "x");
	before = entries("ck");
	CHECK_INT(atomic_write_check(at("ck/new.json")), 0);
	CHECK_INT(atomic_write_check(at("ck/file")), 0);
	CHECK_INT(atomic_write_check(""), -ENOENT);
	CHECK_INT(atomic_write_file("", "x", 1, 0644), -ENOENT);
	CHECK_INT(atomic_write_check(at("ck/new/")), -EISDIR);
	CHECK_INT(atomic_write_file(at("ck/new/"), "x", 1, 0644), -EISDIR);
	CHECK_INT(atomic_write_check(at("ck/file/")), -EISDIR);
	CHECK_INT(atomic_write_check(at("ck/nodir/new.json")), -ENOENT);
	CHECK_INT(atomic_write_check(at("ck/file/new.json")), -ENOTDIR);
	CHECK_INT(atomic_write_check(at("ck")), -EEXIST);
	CHECK_INT(atomic_write_check("/dev/null"), -EEXIST);
	/* a name that fits, whose temporary does not (NAME_MAX 255 here) */
	memset(longname, 'a', 240);
	snprintf(longname + 240, sizeof(longname) - 240, ".json");
	{
		char p[4096];

		snprintf(p, sizeof(p), "ck/%s", longname);
		CHECK_INT(atomic_write_check(at(p)), -ENAMETOOLONG);
		CHECK_INT(atomic_write_file(at(p), "x", 1, 0644), -ENAMETOOLONG);
	}
	/* a directory we may not create files in; beside one we may */
	if (geteuid() == 0) {
		/* root passes every mode: check as nobody, who may enter both */
		CHECK(chmod(dir, 0755) == 0);
		CHECK(seteuid(65534) == 0);
		CHECK_INT(atomic_write_check(at("ck/new.json")), -EACCES);
		CHECK_INT(atomic_write_check(at("ck-all/new.json")), 0);
		CHECK(seteuid(0) == 0);
		CHECK(chmod(dir, 0700) == 0);
	} else {
		CHECK(chmod(at("ck"), 0555) == 0);
		CHECK_INT(atomic_write_check(at("ck/new.json")), -EACCES);
		CHECK_INT(atomic_write_check(at("ck-all/new.json")), 0);
		CHECK(chmod(at("ck"), 0755) == 0);
	}
	CHECK_INT(entries("ck"), before);
	CHECK_INT(entries("ck-all"), 2);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	test_read_file();
	test_read_fd_bound();
	test_read_attr();
	test_parse();
	test_text();
	test_path();
	test_trusted();
	test_trusted_dir();
	test_atomic_write();
	test_atomic_refuses();
	test_atomic_sweep();
	test_atomic_write_check();
	remove_tree(dir);
	return check_report("test_common");
}
