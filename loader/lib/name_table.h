/* SPDX-License-Identifier: GPL-2.0 */
/* The spellings of an enum's values, declared once: the parser takes
 * them, its error message lists them, --help and completion offer them,
 * and every output (status, JSON, the exporter) prints them, so that what
 * cpusteer shows can be given back to it.
 */
#ifndef CPUSTEER_NAME_TABLE_H
#define CPUSTEER_NAME_TABLE_H

#include <stddef.h>

struct name_value {
	const char *name;
	int value;
	/* What follows the name when the value takes one, as shown
	 * (":IFACE" of redirect:IFACE); such a value is no plain name, so
	 * name_lookup does not take it and its parser does.
	 */
	const char *operand;
};

/* Tables end with an entry without name. */

/* The name of `value`, or `otherwise` when the table has none. */
const char *name_of(const struct name_value *t, int value, const char *otherwise);
/* The value named `name` exactly; -ENOENT for any other word. */
int name_lookup(const struct name_value *t, const char *name, int *value);
/* name_lookup, or one line "bad WHAT 'NAME': expected a, b or c" and
 * -EINVAL.
 */
int name_parse(const char *what, const struct name_value *t, const char *name, int *value);
/* "a, b or c", for "expected ..." in an error message. */
void names_expected(const struct name_value *t, char *buf, size_t len);
/* "a|b|c", as --help shows an option's value. */
void names_choices(const struct name_value *t, char *buf, size_t len);

/* The values of a setting that is on or off: 1 and 0. */
extern const struct name_value on_off_names[];

#endif
