// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <string.h>

#include "text.h"

char *strtrim(char *s)
{
	size_t skip = 0, n;

	while (isspace((unsigned char)s[skip]))
		skip++;
	n = strlen(s + skip);
	while (n && isspace((unsigned char)s[skip + n - 1]))
		n--;
	/* in place, so that a caller may keep using s (and free it) */
	memmove(s, s + skip, n);
	s[n] = '\0';
	return s;
}

char *next_line(char **cursor)
{
	char *line = *cursor, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = line + strlen(line);
	}
	return line;
}

bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}
