/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One writer of the originals at a time.  Two instances at once would
 * each save the other's tuned values as "originals", and a restore
 * would leave the knobs tuned: every mode that writes holds a lock on
 * the state directory for its whole run.
 */
#ifndef PT_INSTANCE_LOCK_H
#define PT_INSTANCE_LOCK_H

/*
 * Lock dir/lock, waiting up to wait_ms for a holder that is going away
 * (a restart: the old instance's --restore still running).  Returns the
 * descriptor to keep open, or -EBUSY (another instance holds it) or
 * another negative errno: a lock that cannot be opened, is not a regular
 * file of root's (or ours) alone with one name, or cannot be taken.
 * Logged once, one line naming the lock.  Any error is a refusal to run:
 * a lock not held is no lock, and another instance may be running too.
 */
int instance_lock(const char *dir, unsigned wait_ms);

#endif
