// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ifname.h"
#include "log.h"

/* The kernel's own rule (dev_valid_name): not empty, shorter than
 * IFNAMSIZ, not "." or "..", and no '/', ':' or white space. Returns why
 * a name breaks it, or NULL.
 */
static const char *why_invalid(const char *name)
{
	const char *p;

	if (!*name)
		return "the name is empty";
	if (strnlen(name, IF_NAMESIZE) >= IF_NAMESIZE)
		return "longer than the 15 bytes an interface name may have";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "'.' and '..' are not interface names";
	for (p = name; *p; p++) {
		if (*p == '/')
			return "interface names cannot contain '/'";
		if (*p == ':')
			return "interface names cannot contain ':'";
		if (strchr(" \t\n\v\f\r", *p))
			return "interface names cannot contain white space";
	}
	return NULL;
}

int ifname_check(const char *name)
{
	char shown[IFNAME_SHOWN_LEN];
	const char *why = why_invalid(name);

	if (!why)
		return 0;
	/* Only the start of an overlong argument is worth showing. */
	log_printable(name, shown, sizeof(shown));
	log_err("bad interface name '%s': %s", shown, why);
	return -EINVAL;
}

static void swap_char(const char *in, char out[IF_NAMESIZE], char from, char to)
{
	size_t i;

	for (i = 0; i + 1 < IF_NAMESIZE && in[i]; i++)
		out[i] = in[i] == from ? to : in[i];
	out[i] = '\0';
}

void ifname_to_pin_name(const char *name, char out[IF_NAMESIZE])
{
	swap_char(name, out, '.', ':');
}

int ifname_from_pin_name(const char *pin, char out[IF_NAMESIZE])
{
	if (strnlen(pin, IF_NAMESIZE) >= IF_NAMESIZE || strchr(pin, '.'))
		return -EINVAL;
	swap_char(pin, out, ':', '.');
	return why_invalid(out) ? -EINVAL : 0;
}
