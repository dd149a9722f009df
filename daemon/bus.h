/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The service manager over D-Bus: its environment block (inherited by
 * every service started afterwards) and starting the probe.  All of it
 * is best effort: without a bus the files still carry the settings.
 */
#ifndef PT_BUS_H
#define PT_BUS_H

struct bus;

int bus_open(struct bus **ret);
void bus_close(struct bus *b);
/*
 * A pass begins (b may be NULL): after a call times out, every other
 * call of the pass returns -ETIMEDOUT at once, so that one pass waits
 * for the bus at most once.  Every entry point that reaches the bus (an
 * apply, a restore, a region that appeared) begins one.
 */
void bus_pass_begin(struct bus *b);
/* 0 and a malloc'd value, or -ENOENT when the manager has no such variable */
int bus_manager_getenv(struct bus *b, const char *name, char **value);
int bus_manager_setenv(struct bus *b, const char *name, const char *value);
int bus_manager_unsetenv(struct bus *b, const char *name);
int bus_start_unit(struct bus *b, const char *unit);

#endif
