// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "name_table.h"

const struct name_value on_off_names[] = {
	{ .name = "on", .value = 1 },
	{ .name = "off", .value = 0 },
	{}
};

const char *name_of(const struct name_value *t, int value, const char *otherwise)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return otherwise;
}

int name_lookup(const struct name_value *t, const char *name, int *value)
{
	for (; t->name; t++)
		if (!t->operand && !strcmp(t->name, name)) {
			*value = t->value;
			return 0;
		}
	return -ENOENT;
}

/* Every name with its operand, `between` two of them and `last` before
 * the last one.
 */
static void names_join(const struct name_value *t, const char *between, const char *last,
		       char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; t->name && used < len; t++)
		used += snprintf(buf + used, len - used, "%s%s%s",
				 !used ? "" : t[1].name ? between : last, t->name,
				 t->operand ? t->operand : "");
}

void names_expected(const struct name_value *t, char *buf, size_t len)
{
	names_join(t, ", ", " or ", buf, len);
}

void names_choices(const struct name_value *t, char *buf, size_t len)
{
	names_join(t, "|", "|", buf, len);
}

int name_parse(const char *what, const struct name_value *t, const char *name, int *value)
{
	char expected[128];

	if (!name_lookup(t, name, value))
		return 0;
	names_expected(t, expected, sizeof(expected));
	log_err("bad %s '%s': expected %s", what, name, expected);
	return -EINVAL;
}
