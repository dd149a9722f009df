/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the last pass did, for monitoring (pmem-tune --metrics reads it):
 * STATE_DIR/status.json after each apply by the daemon or --oneshot and
 * after a restore (applied: false), STATE_DIR/verify.json after each
 * --verify.  Written whole each time
 * (atomic), never read back by the daemon; only into a state directory
 * that exists and is ours (common/trusted.h), else nothing, and nothing
 * said: --verify's answer is its exit status, not this file.
 */
#ifndef PT_STATUS_FILE_H
#define PT_STATUS_FILE_H

#include "daemon/daemon.h"

#define PT_STATUS_FORMAT	"pmem-tuned-status/1"
#define PT_STATUS_FILE		"status.json"
#define PT_VERIFY_FILE		"verify.json"

/*
 * applied: the pass applied a policy (RELOAD_APPLIED).  A directory we
 * may not write is left silently; other errors are warned, not returned.
 */
void status_file_write(const struct daemon *d, bool applied);

#endif
