/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPUSTEER_MULTILINEAR_KEY_H
#define CPUSTEER_MULTILINEAR_KEY_H

#include "cpusteer.h"

/* Fills cfg->multilinear_key from cfg->key, folded as the program reads
 * it.
 */
void multilinear_key_draw(struct cpusteer_config *cfg);

/* Folds key words as drawn (docs/flow-hash.md's K0..K10) into the form the
 * program reads: CPUSTEER_MULTILINEAR_FOLDED in cpusteer.h.
 */
void multilinear_key_fold(struct cpusteer_config *cfg);

#endif
