/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small macros every layer uses. */
#ifndef PT_COMMON_MACROS_H
#define PT_COMMON_MACROS_H

/* Elements in an array (not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
