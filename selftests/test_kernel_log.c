// SPDX-License-Identifier: GPL-2.0
/* The kernel log check of the benchmark (loader/bench/kernel_log.c): the
 * kind each message is counted as. The messages are shaped like the
 * kernel's own; none of them is a copy of a real log.
 */
#include <stdio.h>
#include <string.h>
#include "kernel_log.h"
#include "test_util.h"

static void test_rcu_stalls(void)
{
	ASSERT_EQ(kernel_log_classify("rcu: INFO: rcu_sched self-detected stall on CPU"),
		  KL_RCU_STALL, "self-detected");
	ASSERT_EQ(kernel_log_classify("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"),
		  KL_RCU_STALL, "detected stalls");
}

/* The kernel words a soft lockup as a BUG; it counts as a lockup only. */
static void test_soft_lockup_is_not_a_bug(void)
{
	ASSERT_EQ(kernel_log_classify("watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [napi/x-1:77]"),
		  KL_SOFT_LOCKUP, "soft lockup");
}

static void test_hung_task(void)
{
	ASSERT_EQ(kernel_log_classify("INFO: task ip:4242 blocked for more than 122 seconds."),
		  KL_HUNG_TASK, "hung task");
}

static void test_warning_and_bug(void)
{
	ASSERT_EQ(kernel_log_classify("WARNING: CPU: 0 PID: 12 at net/core/dev.c:100 f+0x1/0x2"),
		  KL_WARNING, "WARNING");
	ASSERT_EQ(kernel_log_classify("BUG: unable to handle page fault for address: 0"),
		  KL_BUG, "BUG:");
	ASSERT_EQ(kernel_log_classify("kernel BUG at mm/slub.c:400!"), KL_BUG, "kernel BUG at");
	/* A fault the kernel reports with no "BUG:" line, as 6.12 did for
	 * an int3 in its XDP dispatcher, and the panic after it.
	 */
	ASSERT_EQ(kernel_log_classify("Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"), KL_BUG, "Oops:");
	ASSERT_EQ(kernel_log_classify("Kernel panic - not syncing: Fatal exception in interrupt"),
		  KL_BUG, "Kernel panic");
}

/* Words that only look alike: the boot command line, a register name,
 * an ordinary task message.
 */
static void test_lookalikes_are_nothing(void)
{
	ASSERT_EQ(kernel_log_classify("Command line: rcupdate.rcu_cpu_stall_timeout=21 softlockup_panic=0"),
		  -1, "command line");
	ASSERT_EQ(kernel_log_classify("x86/debugctl: DEBUGCTL: 0x1"), -1, "DEBUGCTL");
	ASSERT_EQ(kernel_log_classify("INFO: task list ready"), -1, "INFO: task without blocked");
	ASSERT_EQ(kernel_log_classify("veth0: link becomes ready"), -1, "ordinary line");
	ASSERT_EQ(kernel_log_classify("Command line: oops=panic panic=-1"), -1, "panic options");
}

static void test_kind_names(void)
{
	ASSERT_TRUE(!strcmp(kernel_log_kind_name(KL_RCU_STALL), "rcu_stall"), "rcu_stall");
	ASSERT_TRUE(!strcmp(kernel_log_kind_name(KL_BUG), "bug"), "bug");
	ASSERT_TRUE(!strcmp(kernel_log_kind_name(KL_KINDS), "unknown"), "out of range");
}

static const struct tu_test tests[] = {
	TU_TEST(test_rcu_stalls),
	TU_TEST(test_soft_lockup_is_not_a_bug),
	TU_TEST(test_hung_task),
	TU_TEST(test_warning_and_bug),
	TU_TEST(test_lookalikes_are_nothing),
	TU_TEST(test_kind_names),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
