// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <xdp/libxdp.h>
#include "attachment.h"
#include "log.h"

static bool is_wanted(struct xdp_program *p, __u32 prog_id)
{
	const char *name = xdp_program__name(p);

	if (prog_id)
		return xdp_program__id(p) == prog_id;
	return name && (!strcmp(name, "cpusteer_steer") || !strcmp(name, "cpusteer_notouch"));
}

int attachment_find(int ifindex, __u32 prog_id, struct attachment *a)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p = NULL;
	int err = -ENOENT;

	if (libxdp_get_error(mp))
		return -ENOENT;
	memset(a, 0, sizeof(*a));
	a->mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && is_wanted(p, prog_id)) {
			a->prog_id = xdp_program__id(p);
			err = 0;
		}
	} else {
		a->dispatcher = true;
		while (err && (p = xdp_multiprog__next_prog(p, mp)))
			if (is_wanted(p, prog_id)) {
				a->prog_id = xdp_program__id(p);
				err = 0;
			}
	}
	xdp_multiprog__close(mp);
	return err;
}

int attachment_detach(int ifindex, const struct attachment *a, const char *shown)
{
	struct xdp_program *xp = xdp_program__from_id(a->prog_id);
	int err = libxdp_get_error(xp);

	if (!err) {
		err = xdp_program__detach(xp, ifindex, a->mode, 0);
		xdp_program__close(xp);
	}
	if (err && err != -ENOENT)
		log_err("cannot detach program %u from %s: %s", a->prog_id, shown, strerror(-err));
	return err;
}
