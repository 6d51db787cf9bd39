// SPDX-License-Identifier: GPL-2.0
/* Device knobs (loader/device/device.c) on veth pairs in a private network
 * namespace:
 *
 *   host namespace                     namespace cstdev<pid>
 *   +------------------------+         +--------------------------------+
 *   | d<pid>t  <-> d<pid>u   |         | d<pid>t  <-> d<pid>v  "twin"   |
 *   | (same name and ifindex |         | d<pid>aN <-> d<pid>bN  one     |
 *   |  as the twin inside)   |         |   fresh pair per test          |
 *   +------------------------+         +--------------------------------+
 *
 * A child process enters the namespace with setns(2) and runs the tests
 * twice over:
 *  1. with the host's /sys still mounted, as after `nsenter --net`: the
 *     NAPI settings must go through netlink, and the host twin (the same
 *     name and ifindex in /sys/class/net) must stay untouched;
 *  2. in a private mount namespace with a sysfs of its own, as under
 *     `ip netns exec`: the NAPI settings go through sysfs.
 * The parent removes the namespace and the host twin however the child
 * ends.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sys/wait.h>
#include "device.h"
#include "napi_netlink.h"
#include "net_sysfs.h"
#include "test_util.h"

static char netns[32], twin[IFNAMSIZ];
static int pair_seq;
static pid_t child;

/* ---- helpers ---------------------------------------------------------- */

/* Runs a shell command quietly; on failure shows it, for the reader. */
__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		printf("#   command failed (%d): %s\n", rc, cmd);
	return rc;
}

struct pair {
	char a[IFNAMSIZ], b[IFNAMSIZ];
};

/* A fresh veth pair, both ends up; GRO on `a` is what gives a veth NAPI
 * instances.
 */
static int pair_make(struct pair *p, bool gro)
{
	int rc;

	pair_seq++;
	snprintf(p->a, sizeof(p->a), "d%da%d", (int)getpid(), pair_seq);
	snprintf(p->b, sizeof(p->b), "d%db%d", (int)getpid(), pair_seq);
	rc = sh("ip link add %s type veth peer name %s && ip link set %s up && ip link set %s up",
		p->a, p->b, p->a, p->b);
	if (!rc && gro)
		rc = sh("ethtool -K %s gro on >/dev/null", p->a);
	/* A half-made pair goes too: the test that skips leaves nothing. */
	if (rc)
		sh("ip link del %s 2>/dev/null || true", p->a);
	return rc ? -1 : 0;
}

static void pair_del(const struct pair *p)
{
	sh("ip link del %s", p->a);
}

/* What `ethtool -k` says about a feature: 1 on, 0 off, -1 not found. */
static int ethtool_k(const char *ifname, const char *feature)
{
	char cmd[128], line[256];
	size_t flen = strlen(feature);
	int state = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ethtool -k %s 2>/dev/null", ifname);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, feature, flen) && line[flen] == ':')
			state = !strncmp(line + flen + 1, " on", 3);
	pclose(f);
	return state;
}

/* A sysfs file of the device as this process's /sys shows it; -1 if none. */
static long long sysfs_value(const char *ifname, const char *file)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Whether a threaded-NAPI kthread of the device runs. Its name is
 * "napi/IFACE-ID", cut to the 15 characters of a task name.
 */
static bool napi_kthread_exists(const char *ifname)
{
	char want[64], path[300], comm[32];
	struct dirent *d;
	bool found = false;
	DIR *dir;
	FILE *f;

	snprintf(want, sizeof(want), "napi/%s-", ifname);
	want[15] = '\0';
	dir = opendir("/proc");
	while (dir && !found && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fgets(comm, sizeof(comm), f) && !strncmp(comm, want, strlen(want));
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

/* Catches what the code under test prints on stderr. */
struct capture {
	int saved, fd;
	char text[1024];
	int lines;
};

static void capture_start(struct capture *c)
{
	char path[] = "/tmp/cpusteer-test-device.XXXXXX";

	fflush(stderr);
	c->fd = mkstemp(path);
	unlink(path);
	c->saved = dup(2);
	dup2(c->fd, 2);
}

static void capture_end(struct capture *c)
{
	ssize_t n;
	int i;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	n = pread(c->fd, c->text, sizeof(c->text) - 1, 0);
	close(c->fd);
	c->text[n > 0 ? n : 0] = '\0';
	for (c->lines = 0, i = 0; c->text[i]; i++)
		c->lines += c->text[i] == '\n';
	if (c->text[0])
		printf("#   stderr: %s", c->text);
}

/* Whether netlink can set NAPI attribute ATTR here: NAPI_SET exists and
 * the twin's NAPI instances (it has GRO on) report the attribute, as
 * device.c itself decides.
 */
static bool netlink_sets(int attr)
{
	struct napi_list l = { 0 };
	struct napi_nl nl;
	bool yes;

	napi_nl_init(&nl);
	yes = !napi_nl_open(&nl) && !napi_nl_dump(&nl, if_nametoindex(twin), &l) && l.n &&
	      (l.v[0].have & (1u << attr));
	free(l.v);
	napi_nl_close(&nl);
	return yes;
}

/* What `ip netns exec` does: a sysfs that shows the current namespace,
 * in a mount namespace of our own.
 */
static int own_sysfs(void)
{
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
		return -1;
	return mount("sysfs", "/sys", "sysfs", 0, NULL);
}

/* -1 while the host's /sys is mounted, else 0 or why mounting our own failed. */
static int own_sysfs_err = -1;

/* Without their own sysfs the NAPI settings need netlink NAPI_SET, and
 * per-NAPI threaded a newer kernel still. Once the sysfs pass has begun
 * they would not go through netlink at all, so the order is checked.
 */
#define NEED_NETLINK(attr)                                                      \
	do {                                                                    \
		if (own_sysfs_err >= 0) {                                       \
			printf("#   listed after the sysfs tests: the NAPI settings " \
			       "would not go through netlink\n");               \
			tu_failures++;                                          \
			return;                                                 \
		}                                                               \
		if (!netlink_sets(attr))                                        \
			SKIP("the kernel's netdev netlink cannot set " #attr);  \
	} while (0)

/* The tests of a sysfs mounted for the namespace need /sys to show the
 * host, as after `nsenter --net`.
 */
#define NEED_HOST_SYS()                                                         \
	do {                                                                    \
		if (own_sysfs_err >= 0) {                                       \
			printf("#   listed after the sysfs tests: /sys shows " \
			       "this namespace\n");                             \
			tu_failures++;                                          \
			return;                                                 \
		}                                                               \
	} while (0)

/* The first sysfs test mounts the namespace's own sysfs; if that fails,
 * every sysfs test fails with the reason.
 */
#define NEED_OWN_SYSFS()                                                        \
	do {                                                                    \
		if (own_sysfs_err < 0)                                          \
			own_sysfs_err = own_sysfs() ? (errno ?: EIO) : 0;     \
		if (own_sysfs_err) {                                            \
			printf("#   cannot mount a sysfs for %s: %s\n", netns,   \
			       strerror(own_sysfs_err));                        \
			tu_failures++;                                          \
			return;                                                 \
		}                                                               \
	} while (0)

static struct device_settings read_dev(const char *ifname)
{
	struct device_settings cur;

	if (device_read(ifname, &cur))
		memset(&cur, 0, sizeof(cur));
	return cur;
}

/* ---- tests that do not depend on how NAPI settings are reached -------- */

static void test_bad_interface_is_one_error_line(void)
{
	struct device_settings want = { .mask = DEV_GRO, .gro = 1 }, saved = { 0 }, cur;
	char name[IFNAMSIZ];
	struct capture c;
	int err;

	snprintf(name, sizeof(name), "nosuch%d", (int)getpid());
	capture_start(&c);
	err = device_apply(name, &want, &saved);
	capture_end(&c);
	ASSERT_EQ(err, -ENODEV, "device_apply on a missing interface");
	ASSERT_EQ(c.lines, 1, "stderr lines from device_apply");
	ASSERT_TRUE(strstr(c.text, name) != NULL, "the message names the interface");
	ASSERT_EQ(saved.mask, 0, "nothing saved");

	capture_start(&c);
	err = device_read(name, &cur);
	capture_end(&c);
	ASSERT_EQ(err, -ENODEV, "device_read on a missing interface");
	ASSERT_EQ(c.lines, 1, "stderr lines from device_read");

	saved.mask = DEV_GRO;
	capture_start(&c);
	err = device_restore(name, &saved);
	capture_end(&c);
	ASSERT_EQ(err, -ENODEV, "device_restore on a vanished interface");
	ASSERT_EQ(c.lines, 0, "device_restore prints nothing for a vanished interface");
}

static void test_bad_value_changes_nothing(void)
{
	struct device_settings want = { .mask = DEV_GRO_FLUSH_TIMEOUT | DEV_GRO,
					.gro_flush_timeout = 5000, .gro = 2 };
	struct device_settings saved = { 0 };
	struct capture c;
	struct pair p;
	int err;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	capture_start(&c);
	err = device_apply(p.a, &want, &saved);
	capture_end(&c);
	ASSERT_EQ(err, -EINVAL, "GRO = 2 is refused");
	ASSERT_EQ(c.lines, 1, "stderr lines");
	ASSERT_EQ(read_dev(p.a).gro_flush_timeout, 0, "gro_flush_timeout untouched");
	ASSERT_EQ(saved.mask, 0, "nothing saved");
	pair_del(&p);
}

static void test_is_veth(void)
{
	struct pair p;

	if (pair_make(&p, false))
		SKIP("cannot create a veth pair");
	ASSERT_TRUE(device_is_veth(p.a), "a veth is a veth");
	ASSERT_TRUE(!device_is_veth("lo"), "lo is not a veth");
	ASSERT_TRUE(!device_is_veth("nosuch0"), "a missing interface is not a veth");
	pair_del(&p);
}

static void test_tx_csum_off_and_on(void)
{
	struct pair p;

	if (pair_make(&p, false))
		SKIP("cannot create a veth pair");
	ASSERT_EQ(device_set_tx_csum(p.a, false), 0, "tx checksumming off");
	ASSERT_EQ(ethtool_k(p.a, "tx-checksumming"), 0, "ethtool -k after off");
	ASSERT_EQ(device_set_tx_csum(p.a, true), 0, "tx checksumming on");
	ASSERT_EQ(ethtool_k(p.a, "tx-checksumming"), 1, "ethtool -k after on");
	pair_del(&p);
}

static void test_gro_off_then_restore(void)
{
	struct device_settings want = { .mask = DEV_GRO, .gro = 0 }, saved = { 0 }, cur;
	struct pair p;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "apply GRO off");
	cur = read_dev(p.a);
	ASSERT_TRUE(cur.mask & DEV_GRO, "GRO readable");
	ASSERT_EQ(cur.gro, 0, "GRO after apply");
	ASSERT_EQ(ethtool_k(p.a, "generic-receive-offload"), 0, "ethtool -k after apply");
	ASSERT_EQ(saved.mask, DEV_GRO, "saved mask");
	ASSERT_EQ(saved.gro, 1, "saved GRO");

	ASSERT_EQ(device_restore(p.a, &saved), 0, "restore");
	ASSERT_EQ(read_dev(p.a).gro, 1, "GRO after restore");
	ASSERT_EQ(ethtool_k(p.a, "generic-receive-offload"), 1, "ethtool -k after restore");
	pair_del(&p);
}

/* ---- tests run once per way of reaching the NAPI settings ------------- */

static void repeated_apply_keeps_original(void)
{
	struct device_settings saved = { 0 }, want = { .mask = DEV_GRO_FLUSH_TIMEOUT };
	struct device_settings cur;
	struct pair p;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	want.gro_flush_timeout = 1000;
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "first apply");
	want.gro_flush_timeout = 2000;
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "second apply");
	cur = read_dev(p.a);
	ASSERT_EQ(cur.gro_flush_timeout, 2000, "gro_flush_timeout after two applies");
	ASSERT_EQ(saved.gro_flush_timeout, 0, "saved gro_flush_timeout is the original");

	want = (struct device_settings){ .mask = DEV_GRO, .gro = 0 };
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "GRO off");
	want.gro = 1;
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "GRO on again");
	ASSERT_EQ(saved.mask, DEV_GRO | DEV_GRO_FLUSH_TIMEOUT, "saved mask");
	ASSERT_EQ(saved.gro, 1, "saved GRO is the original");

	want.gro = 0;
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "GRO off again");
	ASSERT_EQ(device_restore(p.a, &saved), 0, "restore");
	cur = read_dev(p.a);
	ASSERT_EQ(cur.gro, 1, "GRO after restore");
	ASSERT_EQ(cur.gro_flush_timeout, 0, "gro_flush_timeout after restore");
	pair_del(&p);
}

static void napi_settings_round_trip(bool sysfs)
{
	struct device_settings want = { .mask = DEV_GRO_FLUSH_TIMEOUT | DEV_DEFER_HARD_IRQS,
					.gro_flush_timeout = 20000, .defer_hard_irqs = 3 };
	struct device_settings saved = { 0 }, cur;
	struct pair p;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "apply");
	cur = read_dev(p.a);
	ASSERT_EQ(cur.mask & want.mask, want.mask, "both readable");
	ASSERT_EQ(cur.gro_flush_timeout, 20000, "gro_flush_timeout after apply");
	ASSERT_EQ(cur.defer_hard_irqs, 3, "napi_defer_hard_irqs after apply");
	ASSERT_EQ(saved.gro_flush_timeout, 0, "saved gro_flush_timeout");
	ASSERT_EQ(saved.defer_hard_irqs, 0, "saved napi_defer_hard_irqs");
	if (sysfs) {
		ASSERT_EQ(sysfs_value(p.a, "gro_flush_timeout"), 20000, "sysfs gro_flush_timeout");
		ASSERT_EQ(sysfs_value(p.a, "napi_defer_hard_irqs"), 3, "sysfs napi_defer_hard_irqs");
	}

	ASSERT_EQ(device_restore(p.a, &saved), 0, "restore");
	cur = read_dev(p.a);
	ASSERT_EQ(cur.gro_flush_timeout, 0, "gro_flush_timeout after restore");
	ASSERT_EQ(cur.defer_hard_irqs, 0, "napi_defer_hard_irqs after restore");
	if (sysfs)
		ASSERT_EQ(sysfs_value(p.a, "gro_flush_timeout"), 0, "sysfs after restore");
	pair_del(&p);
}

static void threaded_napi_round_trip(void)
{
	struct device_settings want = { .mask = DEV_THREADED_NAPI, .threaded = 1 };
	struct device_settings saved = { 0 };
	struct pair p;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "threaded on (GRO on, so NAPI exists)");
	ASSERT_EQ(read_dev(p.a).threaded, 1, "threaded after apply");
	ASSERT_TRUE(napi_kthread_exists(p.a), "a napi/IFACE kthread runs");
	ASSERT_EQ(saved.threaded, 0, "saved threaded");
	ASSERT_EQ(device_restore(p.a, &saved), 0, "restore");
	ASSERT_EQ(read_dev(p.a).threaded, 0, "threaded after restore");
	pair_del(&p);
}

static void threaded_without_napi_is_explained(void)
{
	struct device_settings want = { .mask = DEV_THREADED_NAPI, .threaded = 1 };
	struct device_settings saved = { 0 };
	struct capture c;
	struct pair p;
	int err;

	if (pair_make(&p, false))
		SKIP("cannot create a veth pair");
	capture_start(&c);
	err = device_apply(p.a, &want, &saved);
	capture_end(&c);
	ASSERT_EQ(err, -EOPNOTSUPP, "threaded on a veth without GRO or XDP");
	ASSERT_EQ(c.lines, 1, "stderr lines");
	ASSERT_TRUE(strstr(c.text, "no NAPI instances") && strstr(c.text, p.a),
		    "the message names the device and the missing NAPI");
	ASSERT_EQ(saved.mask, 0, "nothing saved");
	pair_del(&p);
}

/* A count the kernel cannot keep is refused before gro_flush_timeout,
 * listed first, is written.
 */
static void defer_above_int_refused_before_any_write(void)
{
	struct device_settings want = { .mask = DEV_GRO_FLUSH_TIMEOUT | DEV_DEFER_HARD_IRQS,
					.gro_flush_timeout = 5000,
					.defer_hard_irqs = 0x80000000u };
	struct device_settings saved = { 0 }, cur;
	struct capture c;
	struct pair p;
	int err;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	capture_start(&c);
	err = device_apply(p.a, &want, &saved);
	capture_end(&c);
	ASSERT_EQ(err, -ERANGE, "a defer count above INT32_MAX");
	ASSERT_EQ(c.lines, 1, "stderr lines");
	ASSERT_TRUE(strstr(c.text, "2147483648") && strstr(c.text, p.a),
		    "the message names the value and the device");
	cur = read_dev(p.a);
	ASSERT_EQ(cur.gro_flush_timeout, 0, "gro_flush_timeout never written");
	ASSERT_EQ(cur.defer_hard_irqs, 0, "napi_defer_hard_irqs untouched");
	ASSERT_EQ(saved.mask, 0, "saved left as it was");
	pair_del(&p);
}

/* GRO goes off (and takes the veth's NAPI instances along), then threaded
 * NAPI cannot be set.
 */
static void failed_apply_restores_gro(void)
{
	struct device_settings want = { .mask = DEV_GRO | DEV_THREADED_NAPI,
					.gro = 0, .threaded = 1 };
	struct device_settings saved = { .mask = DEV_GRO_FLUSH_TIMEOUT,
					 .gro_flush_timeout = 42 };
	struct capture c;
	struct pair p;
	int err;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	capture_start(&c);
	err = device_apply(p.a, &want, &saved);
	capture_end(&c);
	ASSERT_EQ(err, -EOPNOTSUPP, "threaded once GRO is off");
	ASSERT_EQ(c.lines, 1, "stderr lines");
	ASSERT_EQ(read_dev(p.a).gro, 1, "GRO back on");
	ASSERT_EQ(ethtool_k(p.a, "generic-receive-offload"), 1, "ethtool -k");
	ASSERT_EQ(saved.mask, DEV_GRO_FLUSH_TIMEOUT, "saved mask as it was");
	ASSERT_EQ(saved.gro_flush_timeout, 42, "saved values as they were");
	pair_del(&p);
}

/* Threaded NAPI was set while the veth had NAPI instances (here from
 * GRO; under cpusteer from its XDP program), and they are gone when it is
 * restored.
 */
static void restore_threaded_after_napi_gone(bool sysfs)
{
	struct device_settings want = { .mask = DEV_THREADED_NAPI, .threaded = 1 };
	struct device_settings saved = { 0 };
	struct pair p;

	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	ASSERT_EQ(device_apply(p.a, &want, &saved), 0, "threaded on");
	/* The pair took GRO on, so ethtool works here: a refusal now is a
	 * failure, and the pair goes either way.
	 */
	if (sh("ethtool -K %s gro off >/dev/null", p.a)) {
		ASSERT_TRUE(false, "ethtool turns GRO off");
		goto out;
	}
	ASSERT_EQ(device_restore(p.a, &saved), 0, "restore without NAPI instances");
	ASSERT_EQ(ethtool_k(p.a, "generic-receive-offload"), 0, "GRO still off");
	if (sysfs)
		ASSERT_EQ(sysfs_value(p.a, "threaded"), 0, "sysfs threaded after restore");
	/* New instances must start unthreaded. */
	if (sh("ethtool -K %s gro on >/dev/null", p.a)) {
		ASSERT_TRUE(false, "ethtool turns GRO on");
		goto out;
	}
	ASSERT_EQ(read_dev(p.a).threaded, 0, "threaded on new NAPI instances");
	ASSERT_TRUE(!napi_kthread_exists(p.a), "no napi/IFACE kthread");
out:
	pair_del(&p);
}

static void test_repeated_apply_keeps_original_netlink(void)
{
	NEED_NETLINK(ND_A_NAPI_DEFER_HARD_IRQS);
	repeated_apply_keeps_original();
}

static void test_repeated_apply_keeps_original_sysfs(void)
{
	NEED_OWN_SYSFS();
	repeated_apply_keeps_original();
}

static void test_napi_settings_round_trip_netlink(void)
{
	NEED_NETLINK(ND_A_NAPI_DEFER_HARD_IRQS);
	napi_settings_round_trip(false);
}

static void test_napi_settings_round_trip_sysfs(void)
{
	NEED_OWN_SYSFS();
	napi_settings_round_trip(true);
}

static void test_threaded_napi_round_trip_netlink(void)
{
	NEED_NETLINK(ND_A_NAPI_THREADED);
	threaded_napi_round_trip();
}

static void test_threaded_napi_round_trip_sysfs(void)
{
	NEED_OWN_SYSFS();
	threaded_napi_round_trip();
}

static void test_threaded_without_napi_is_explained_netlink(void)
{
	NEED_NETLINK(ND_A_NAPI_DEFER_HARD_IRQS);
	threaded_without_napi_is_explained();
}

static void test_threaded_without_napi_is_explained_sysfs(void)
{
	NEED_OWN_SYSFS();
	threaded_without_napi_is_explained();
}

static void test_defer_above_int_refused_before_any_write_netlink(void)
{
	NEED_NETLINK(ND_A_NAPI_DEFER_HARD_IRQS);
	defer_above_int_refused_before_any_write();
}

static void test_defer_above_int_refused_before_any_write_sysfs(void)
{
	NEED_OWN_SYSFS();
	defer_above_int_refused_before_any_write();
}

static void test_failed_apply_restores_gro_netlink(void)
{
	NEED_NETLINK(ND_A_NAPI_THREADED);
	failed_apply_restores_gro();
}

static void test_failed_apply_restores_gro_sysfs(void)
{
	NEED_OWN_SYSFS();
	failed_apply_restores_gro();
}

static void test_restore_threaded_after_napi_gone_netlink(void)
{
	NEED_NETLINK(ND_A_NAPI_THREADED);
	restore_threaded_after_napi_gone(false);
}

static void test_restore_threaded_after_napi_gone_sysfs(void)
{
	NEED_OWN_SYSFS();
	restore_threaded_after_napi_gone(true);
}

/* Only sysfs can hold gro_flush_timeout on a device without NAPI
 * instances: it changes, then threaded NAPI fails.
 */
static void test_failed_threaded_restores_gro_flush_timeout_sysfs(void)
{
	struct device_settings want = { .mask = DEV_GRO_FLUSH_TIMEOUT | DEV_THREADED_NAPI,
					.gro_flush_timeout = 5000, .threaded = 1 };
	struct device_settings saved = { 0 };
	struct capture c;
	struct pair p;
	int err;

	NEED_OWN_SYSFS();
	if (pair_make(&p, false))
		SKIP("cannot create a veth pair");
	capture_start(&c);
	err = device_apply(p.a, &want, &saved);
	capture_end(&c);
	ASSERT_EQ(err, -EOPNOTSUPP, "threaded on a veth without NAPI");
	ASSERT_EQ(c.lines, 1, "stderr lines");
	ASSERT_EQ(read_dev(p.a).gro_flush_timeout, 0, "gro_flush_timeout back");
	ASSERT_EQ(sysfs_value(p.a, "gro_flush_timeout"), 0, "sysfs gro_flush_timeout back");
	ASSERT_EQ(saved.mask, 0, "nothing saved");
	pair_del(&p);
}

/* The host's /sys shows the host twin under the same name and ifindex:
 * a write there would change the wrong device.
 */
static void test_other_namespace_sysfs_untouched_netlink(void)
{
	struct device_settings want = { .mask = DEV_GRO_FLUSH_TIMEOUT,
					.gro_flush_timeout = 7000 };
	struct device_settings saved = { 0 };

	NEED_NETLINK(ND_A_NAPI_DEFER_HARD_IRQS);
	if (sysfs_value(twin, "ifindex") != (long long)if_nametoindex(twin))
		SKIP("the host twin does not share the ifindex");
	ASSERT_EQ(device_apply(twin, &want, &saved), 0, "apply inside the namespace");
	ASSERT_EQ(read_dev(twin).gro_flush_timeout, 7000, "the namespace's device changed");
	ASSERT_EQ(sysfs_value(twin, "gro_flush_timeout"), 0, "the host twin did not");
	ASSERT_EQ(device_restore(twin, &saved), 0, "restore");
	ASSERT_EQ(read_dev(twin).gro_flush_timeout, 0, "after restore");
}

/* What the device knobs fall back to when /sys shows another namespace
 * and the kernel lacks NAPI_SET: a sysfs mounted, detached, for this
 * namespace. Run here, with the host's /sys, where it must see the
 * namespace's devices that /sys does not show, and write the namespace's
 * twin rather than the host's.
 */
static void test_own_namespace_sysfs_mount(void)
{
	__u64 v = 0;
	struct pair p;
	int root;

	NEED_HOST_SYS();
	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	ASSERT_EQ(net_sysfs_read_u64(NET_SYSFS_SYS, p.a, "ifindex", &v), -ENOENT,
		  "the host's /sys does not show the namespace's pair");
	root = net_sysfs_mount_own();
	ASSERT_TRUE(root >= 0, "detached sysfs mounted");
	ASSERT_EQ(net_sysfs_read_u64(root, p.a, "ifindex", &v), 0, "ifindex read");
	ASSERT_EQ(v, if_nametoindex(p.a), "ifindex of the namespace's device");
	ASSERT_EQ(net_sysfs_write_u64(root, p.a, "threaded", 1), 0, "threaded on");
	ASSERT_TRUE(napi_kthread_exists(p.a), "NAPI kthread started");
	ASSERT_EQ(net_sysfs_read_u64(root, p.a, "threaded", &v), 0, "threaded read");
	ASSERT_EQ(v, 1, "threaded");
	ASSERT_EQ(net_sysfs_write_u64(root, p.a, "threaded", 0), 0, "threaded off");
	ASSERT_EQ(net_sysfs_write_u64(root, twin, "gro_flush_timeout", 9000), 0,
		  "write the namespace's twin");
	ASSERT_EQ(net_sysfs_read_u64(root, twin, "gro_flush_timeout", &v), 0, "read it back");
	ASSERT_EQ(v, 9000, "the namespace's twin changed");
	ASSERT_EQ(sysfs_value(twin, "gro_flush_timeout"), 0, "the host twin did not");
	ASSERT_EQ(net_sysfs_write_u64(root, twin, "gro_flush_timeout", 0), 0, "put back");
	close(root);
	pair_del(&p);
}

/* A kernel without the netdev family, imitated: generic netlink sockets
 * fail with EPROTONOSUPPORT for the rest of the calling process's life.
 */
static int deny_generic_netlink(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NETLINK_GENERIC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPROTONOSUPPORT),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Threaded NAPI through device.c as on Debian 12's 6.1 under `nsenter
 * --net`: /sys shows the host and netlink has no netdev family, so only
 * a sysfs mounted for this namespace reaches the device. The child that
 * lacks netlink turns it on; a NAPI kthread shows that it worked.
 */
static void test_threaded_without_netdev_family_own_sysfs(void)
{
	struct device_settings want = { .mask = DEV_THREADED_NAPI, .threaded = 1 };
	struct device_settings saved = { 0 }, cur;
	int status = -1;
	struct pair p;
	pid_t pid;

	NEED_HOST_SYS();
	if (pair_make(&p, true))
		SKIP("cannot create a veth pair");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (deny_generic_netlink())
			_exit(10);
		if (device_apply(p.a, &want, &saved))
			_exit(11);
		if (device_read(p.a, &cur) || !(cur.mask & DEV_THREADED_NAPI) || cur.threaded != 1)
			_exit(12);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	ASSERT_EQ(status, 0, "child's wait status (10 seccomp, 11 apply, 12 read back)");
	ASSERT_TRUE(napi_kthread_exists(p.a), "NAPI kthread started");
	pair_del(&p);
}

/* ---- setup, the two passes, teardown ---------------------------------- */

static int enter_netns(void)
{
	char path[64];
	int fd, err;

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	return err;
}

/* The host's /sys pass first (netlink), then the namespace's own sysfs. */
static const struct tu_test tests[] = {
	TU_TEST(test_bad_interface_is_one_error_line),
	TU_TEST(test_bad_value_changes_nothing),
	TU_TEST(test_is_veth),
	TU_TEST(test_tx_csum_off_and_on),
	TU_TEST(test_gro_off_then_restore),

	TU_TEST(test_own_namespace_sysfs_mount),
	TU_TEST(test_threaded_without_netdev_family_own_sysfs),
	TU_TEST(test_other_namespace_sysfs_untouched_netlink),
	TU_TEST(test_repeated_apply_keeps_original_netlink),
	TU_TEST(test_napi_settings_round_trip_netlink),
	TU_TEST(test_threaded_napi_round_trip_netlink),
	TU_TEST(test_threaded_without_napi_is_explained_netlink),
	TU_TEST(test_defer_above_int_refused_before_any_write_netlink),
	TU_TEST(test_failed_apply_restores_gro_netlink),
	TU_TEST(test_restore_threaded_after_napi_gone_netlink),

	TU_TEST(test_repeated_apply_keeps_original_sysfs),
	TU_TEST(test_napi_settings_round_trip_sysfs),
	TU_TEST(test_threaded_napi_round_trip_sysfs),
	TU_TEST(test_threaded_without_napi_is_explained_sysfs),
	TU_TEST(test_defer_above_int_refused_before_any_write_sysfs),
	TU_TEST(test_failed_apply_restores_gro_sysfs),
	TU_TEST(test_failed_threaded_restores_gro_flush_timeout_sysfs),
	TU_TEST(test_restore_threaded_after_napi_gone_sysfs),
};

static int run_tests(void)
{
	char why[128];

	if (enter_netns()) {
		snprintf(why, sizeof(why), "setup: cannot enter %s: %s", netns, strerror(errno));
		tu_abort(tests, ARRAY_SIZE(tests), why);
		return 1;
	}
	tu_run_range(tests, 0, ARRAY_SIZE(tests));
	return tu_total_failed ? 1 : 0;
}

/* The namespace, and in the host a twin of one of its devices: same name,
 * same ifindex.
 */
static int setup(void)
{
	char peer[IFNAMSIZ], host_peer[IFNAMSIZ];
	unsigned int ifindex;

	snprintf(twin, sizeof(twin), "d%dt", (int)getpid());
	snprintf(host_peer, sizeof(host_peer), "d%du", (int)getpid());
	snprintf(peer, sizeof(peer), "d%dv", (int)getpid());
	if (sh("ip netns add %s", netns) ||
	    sh("ip link add %s type veth peer name %s", twin, host_peer))
		return -1;
	ifindex = if_nametoindex(twin);
	return sh("ip -n %s link add %s index %u type veth peer name %s && "
		  "ip -n %s link set %s up && ip -n %s link set %s up && "
		  "ip netns exec %s ethtool -K %s gro on >/dev/null",
		  netns, twin, ifindex, peer, netns, twin, netns, peer, netns, twin);
}

static void teardown(void)
{
	sh("ip link del %s 2>/dev/null || true", twin);
	sh("ip netns del %s 2>/dev/null || true", netns);
}

/* A timeout or ^C must not leave the namespace behind: stop the child
 * and let main clean up.
 */
static void on_signal(int sig)
{
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
}

int main(void)
{
	int status = 0, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(netns, sizeof(netns), "cstdev%d", (int)getpid());
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	tu_plan(ARRAY_SIZE(tests));
	if (setup()) {
		tu_abort(tests, ARRAY_SIZE(tests), "setup: cannot create the namespace and veth pairs");
		teardown();
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		exit(run_tests());
	}
	if (child < 0) {
		char why[128];

		snprintf(why, sizeof(why), "setup: fork: %s", strerror(errno));
		tu_abort(tests, ARRAY_SIZE(tests), why);
	}
	while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	teardown();
	rc = child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	/* The tests it did not report count as failed in selftests/run.sh. */
	if (child > 0 && WIFSIGNALED(status))
		printf("# the tests died of signal %d\n", WTERMSIG(status));
	return rc;
}
