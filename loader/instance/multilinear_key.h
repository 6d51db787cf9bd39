/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPUSTEER_MULTILINEAR_KEY_H
#define CPUSTEER_MULTILINEAR_KEY_H

#include "cpusteer.h"

/* Fills cfg->multilinear_key from cfg->key. */
void multilinear_key_draw(struct cpusteer_config *cfg);

#endif
