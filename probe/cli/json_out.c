// SPDX-License-Identifier: GPL-2.0-or-later
/* JSON as every pmem-tune command prints it, and the shared strategy object. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cli/json_out.h"
#include "measure/strategy.h"
#include "platform/cpu.h"

int json_out(FILE *f, struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	return fprintf(f, "%s\n", s) < 0 ? -EIO : 0;
}

/* key = v, or nothing and false when either is missing (v is freed) */
static bool add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		return false;
	}
	return true;
}

struct json_object *strategy_json(const struct strategy *s, const struct cpu_info *ci)
{
	struct json_object *o = json_object_new_object();
	const char *missing = NULL;
	bool ok = strategy_supported(s, ci, &missing), good;

	if (!o)
		return NULL;
	good = add(o, "name", json_object_new_string(s->name)) &&
	       add(o, "supported", json_object_new_boolean(ok)) &&
	       add(o, "summary", json_object_new_string(s->summary));
	if (good && !ok && missing)
		good = add(o, "missing", json_object_new_string(missing));
	if (good && s->cpu_cache_domain_only)
		good = add(o, "needs_persistence_domain", json_object_new_string("cpu_cache"));
	if (!good) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
