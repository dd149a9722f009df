// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "daemon/bus.h"
#include "daemon/log.h"

#define SD_DEST		"org.freedesktop.systemd1"
#define SD_PATH		"/org/freedesktop/systemd1"
#define SD_MANAGER	"org.freedesktop.systemd1.Manager"
#define BUS_TIMEOUT_S	5

struct bus {
	sd_bus *bus;
	bool stuck;	/* a call timed out this pass: the rest of it leaves the bus alone */
};

/*
 * Each call may wait the whole timeout; a pass makes several (a read
 * and a write a variable, restores), and the watchdog sees the sum.
 * After one timeout the pass skips the bus: the files still apply.
 */
static int bus_gate(struct bus *b, int r, const char *what)
{
	if (r == -ETIMEDOUT && !b->stuck) {
		b->stuck = true;
		log_warn("the service manager did not answer %s within %d s: its environment "
			 "is left alone until the next pass", what, BUS_TIMEOUT_S);
	}
	return r;
}

void bus_pass_begin(struct bus *b)
{
	if (b)
		b->stuck = false;
}

int bus_open(struct bus **ret)
{
	struct bus *b;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	r = sd_bus_open_system_with_description(&b->bus, "pmem-tuned");
	if (r < 0) {
		free(b);
		return r;
	}
	/* calls are synchronous in the loop: a stuck bus must not outlast the watchdog */
	(void)sd_bus_set_method_call_timeout(b->bus, BUS_TIMEOUT_S * 1000 * 1000ULL);
	*ret = b;
	return 0;
}

void bus_close(struct bus *b)
{
	if (!b)
		return;
	sd_bus_flush_close_unref(b->bus);
	free(b);
}

int bus_manager_getenv(struct bus *b, const char *name, char **value)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	char **env = NULL, **e;
	size_t n = strlen(name);
	int r;

	if (b->stuck)
		return -ETIMEDOUT;
	r = sd_bus_get_property_strv(b->bus, SD_DEST, SD_PATH, SD_MANAGER,
				     "Environment", &err, &env);
	sd_bus_error_free(&err);
	if (r < 0)
		return bus_gate(b, r, "Environment");
	r = -ENOENT;
	for (e = env; e && *e; e++) {
		if (r == -ENOENT && !strncmp(*e, name, n) && (*e)[n] == '=') {
			*value = strdup(*e + n + 1);
			r = *value ? 0 : -ENOMEM;
		}
		free(*e);
	}
	free(env);
	return r;
}

static int call_strv(struct bus *b, const char *method, const char *item)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	char *strv[] = { (char *)item, NULL };
	int r;

	if (b->stuck)
		return -ETIMEDOUT;
	r = sd_bus_message_new_method_call(b->bus, &m, SD_DEST, SD_PATH, SD_MANAGER, method);
	if (r >= 0)
		r = sd_bus_message_append_strv(m, strv);
	if (r >= 0)
		r = sd_bus_call(b->bus, m, 0, &err, NULL);
	if (r < 0 && sd_bus_error_is_set(&err))
		log_debug("%s(%s): %s", method, item, err.message);
	sd_bus_error_free(&err);
	sd_bus_message_unref(m);
	return bus_gate(b, r, method);
}

int bus_manager_setenv(struct bus *b, const char *name, const char *value)
{
	char *a;
	int r;

	if (asprintf(&a, "%s=%s", name, value) < 0)
		return -ENOMEM;
	r = call_strv(b, "SetEnvironment", a);
	free(a);
	return r;
}

int bus_manager_unsetenv(struct bus *b, const char *name)
{
	return call_strv(b, "UnsetEnvironment", name);
}

int bus_start_unit(struct bus *b, const char *unit)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	int r;

	if (b->stuck)
		return -ETIMEDOUT;
	r = sd_bus_call_method(b->bus, SD_DEST, SD_PATH, SD_MANAGER, "StartUnit", &err,
			       NULL, "ss", unit, "replace");
	if (r < 0 && sd_bus_error_is_set(&err))
		log_debug("StartUnit(%s): %s", unit, err.message);
	sd_bus_error_free(&err);
	return bus_gate(b, r, "StartUnit");
}
