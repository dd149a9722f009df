/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json-c's adders for --list --json (list_cmd.c, list_cxl.c): each takes
 * ownership of v, and on any failure (v, the container or the add itself)
 * drops v and sets *oom, so that the command reports -ENOMEM once at the end.
 */
#ifndef PMEM_TUNE_LIST_JSON_H
#define PMEM_TUNE_LIST_JSON_H

#include <stdbool.h>

struct json_object;

/* obj[key] = v */
void jadd(bool *oom, struct json_object *obj, const char *key, struct json_object *v);

/* obj[key] = null (json-c's null is a NULL object, which jadd takes for a failure) */
void jnull(bool *oom, struct json_object *obj, const char *key);

/* v appended to the array arr */
void jpush(bool *oom, struct json_object *arr, struct json_object *v);

#endif
