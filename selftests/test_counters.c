// SPDX-License-Identifier: GPL-2.0
/* The counter registry (loader/instance/counters.h) against the BPF
 * side's view of the counters: struct cpusteer_counters as the BPF
 * compiler lays it out, from the BTF of a test object
 * (selftests/bpf/counters_layout.bpf.c). Every member, a __u64 or an
 * array of them, must have a descriptor with its offset and size, and
 * every descriptor must name a member, so that a counter added to the
 * struct fails here until every output can show it. The members are
 * walked from BTF, not listed, so this test needs no edit when the
 * struct grows.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "counters.h"
#include "selftests/counters_layout.skel.h"
#include "test_util.h"

/* The layout object, opened (never loaded) for its BTF. */
static struct counters_layout *skel;

static const struct btf_type *counters_type(const struct btf **btf)
{
	__s32 id;

	skel = counters_layout__open();
	ASSERT_TRUE(skel != NULL, "open the layout object");
	if (!skel)
		return NULL;
	*btf = bpf_object__btf(skel->obj);
	ASSERT_TRUE(*btf != NULL, "the layout object has BTF");
	if (!*btf)
		return NULL;
	id = btf__find_by_name_kind(*btf, "cpusteer_counters", BTF_KIND_STRUCT);
	ASSERT_TRUE(id > 0, "struct cpusteer_counters in its BTF");
	return id > 0 ? btf__type_by_id(*btf, id) : NULL;
}

static void close_object(void)
{
	counters_layout__destroy(skel);
	skel = NULL;
}

/* The __u64s that member type `type_id` holds: 1 for a __u64, the
 * entries of an array of them, 0 for anything else.
 */
static __u32 u64_words(const struct btf *btf, __u32 type_id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, type_id));

	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);

		return u64_words(btf, a->type) == 1 ? a->nelems : 0;
	}
	return btf_is_int(t) && t->size == sizeof(__u64) && !btf_int_offset(t) ? 1 : 0;
}

static const struct counter_desc *descriptor_of(const char *field)
{
	const struct counter_desc *c;

	for_each_counter(c)
		if (c->field && !strcmp(c->field, field))
			return c;
	return NULL;
}

static void every_u64_of_the_counters_has_a_descriptor(void)
{
	const struct btf_member *m;
	const struct counter_desc *c;
	const struct btf_type *t;
	const struct btf *btf;
	const char *name;
	char what[128];
	__u32 words;
	int i;

	t = counters_type(&btf);
	if (!t)
		goto out;
	ASSERT_EQ(t->size, sizeof(struct cpusteer_counters),
		  "struct cpusteer_counters: the program's size is the loader's");
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		words = u64_words(btf, m->type);
		snprintf(what, sizeof(what), "member %s: a __u64 or an array of __u64", name);
		ASSERT_TRUE(words > 0, what);
		c = descriptor_of(name);
		snprintf(what, sizeof(what), "member %s has a descriptor in counters.c", name);
		ASSERT_TRUE(c != NULL, what);
		if (!c)
			continue;
		snprintf(what, sizeof(what), "descriptor %s: offset", name);
		ASSERT_EQ(c->offset, btf_member_bit_offset(t, i) / 8, what);
		snprintf(what, sizeof(what), "descriptor %s: entries", name);
		ASSERT_EQ(c->n, words, what);
	}
out:
	close_object();
}

static void every_descriptor_names_a_member(void)
{
	const struct counter_desc *c, *slots = NULL;
	const struct btf_member *m;
	const struct btf_type *t;
	const struct btf *btf;
	char what[128];
	bool found;
	int i;

	t = counters_type(&btf);
	if (!t)
		goto out;
	for_each_counter(c) {
		if (!c->field) {
			ASSERT_TRUE(slots == NULL, "one descriptor of the redirect slots");
			slots = c;
			continue;
		}
		found = false;
		for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++)
			found |= !strcmp(btf__name_by_offset(btf, m->name_off), c->field);
		snprintf(what, sizeof(what), "descriptor %s names a member", c->field);
		ASSERT_TRUE(found, what);
	}
	ASSERT_TRUE(slots != NULL, "a descriptor of the redirect slots");
	if (slots) {
		ASSERT_EQ(slots->offset, t->size, "the redirect slots follow the struct");
		ASSERT_EQ(slots->n, 0, "the redirect slots: one per possible CPU");
	}
out:
	close_object();
}

/* What each output needs of a descriptor to show it. */
static void every_descriptor_can_be_shown(void)
{
	const struct counter_desc *c, *o;
	char what[128];

	for_each_counter(c) {
		const char *name = c->field ? c->field : "redirect slots";

		snprintf(what, sizeof(what), "%s: a help line, a unit and a metric", name);
		ASSERT_TRUE(c->help && c->unit && c->metric, what);
		snprintf(what, sizeof(what), "%s: an array names its entries, a label says how", name);
		ASSERT_TRUE(c->n <= 1 || (c->entry_name && c->label), what);
		snprintf(what, sizeof(what), "%s: status shows it in its JSON by a key", name);
		ASSERT_TRUE(!c->status || c->json_total_key, what);
		for (o = counter_descs; o < c; o++) {
			snprintf(what, sizeof(what), "%s: its metric is its own", name);
			ASSERT_TRUE(strcmp(o->metric, c->metric) || strcmp(o->unit, c->unit), what);
		}
	}
}

static const struct tu_test tests[] = {
	TU_TEST(every_u64_of_the_counters_has_a_descriptor),
	TU_TEST(every_descriptor_names_a_member),
	TU_TEST(every_descriptor_can_be_shown),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
