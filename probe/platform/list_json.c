// SPDX-License-Identifier: GPL-2.0-or-later
#include <assert.h>

#include <json-c/json.h>

#include "platform/list_json.h"

void jadd(bool *oom, struct json_object *obj, const char *key, struct json_object *v)
{
	assert(oom && key);
	if (!obj || !v || json_object_object_add(obj, key, v)) {
		json_object_put(v);
		*oom = true;
	}
}

void jnull(bool *oom, struct json_object *obj, const char *key)
{
	assert(oom && key);
	if (!obj || json_object_object_add(obj, key, NULL))
		*oom = true;
}

void jpush(bool *oom, struct json_object *arr, struct json_object *v)
{
	assert(oom);
	if (!arr || !v || json_object_array_add(arr, v)) {
		json_object_put(v);
		*oom = true;
	}
}
