// SPDX-License-Identifier: GPL-2.0-or-later
#include "daemon/sanitize.h"

void sanitize_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}
