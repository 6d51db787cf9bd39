// SPDX-License-Identifier: GPL-2.0
/* PID 1 of the test guests that selftests/kernels/run.sh boots.
 *
 * The guest has no disk: its root is the host's root, shared read-only
 * over virtio-9p, with a tmpfs overlay on top so that tests can write
 * anywhere and nothing reaches the host. The kernel under test comes from
 * a Debian package whose 9p and virtio drivers are modules, so this
 * program, alone in the initramfs with those modules, loads them, mounts
 * the overlay, moves into it, runs the guest script and powers off.
 *
 * It stays PID 1 while the script runs: a PID 1 that exits panics the
 * kernel, and orphans must be reaped by someone.
 *
 * Linked statically (the initramfs holds no libraries). Configuration
 * comes from the kernel command line, which the kernel hands to PID 1 as
 * its environment: guest_script=PATH is the program to run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODULE_LIST "/modules/order"
#define LOWER "/lower"
#define RW "/rw"
#define NEWROOT "/newroot"

static void say(const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "guest_init: ");
	fprintf(stderr, fmt, arg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

/* Nothing can be tested once setup fails: say why and power off, so the
 * host sees a missing result at once instead of waiting for its timeout.
 */
static void __attribute__((noreturn)) power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	_exit(1);
}

static void must(int ok, const char *what, const char *arg)
{
	if (ok)
		return;
	say(what, arg, errno);
	power_off();
}

/* The module list holds one file name per line, dependencies first (the
 * host resolved the order from the package's modules.dep).
 */
static void load_modules(void)
{
	char name[256], path[300];
	FILE *list = fopen(MODULE_LIST, "r");

	must(list != NULL, "cannot read %s", MODULE_LIST);
	while (fgets(name, sizeof(name), list)) {
		int fd;

		name[strcspn(name, "\n")] = '\0';
		if (!name[0])
			continue;
		snprintf(path, sizeof(path), "/modules/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		must(fd >= 0, "cannot open module %s", path);
		/* EEXIST: built into this kernel or already loaded. */
		must(syscall(SYS_finit_module, fd, "", 0) == 0 || errno == EEXIST,
		     "cannot load module %s", name);
		close(fd);
	}
	fclose(list);
}

static void mount_overlay_root(void)
{
	must(mkdir(LOWER, 0755) == 0 || errno == EEXIST, "cannot create %s", LOWER);
	must(mkdir(RW, 0755) == 0 || errno == EEXIST, "cannot create %s", RW);
	must(mkdir(NEWROOT, 0755) == 0 || errno == EEXIST, "cannot create %s", NEWROOT);
	/* A large msize: the default (8 KiB on 6.1) makes every read of a
	 * binary or library many round trips through the emulated device.
	 */
	must(mount("root", LOWER, "9p", MS_RDONLY,
		   "trans=virtio,version=9p2000.L,msize=512000,cache=loose") == 0,
	     "cannot mount the host root (9p tag %s)", "root");
	must(mount("rw", RW, "tmpfs", 0, "mode=0755") == 0, "cannot mount tmpfs on %s", RW);
	must(mkdir(RW "/upper", 0755) == 0, "cannot create %s", RW "/upper");
	must(mkdir(RW "/work", 0755) == 0, "cannot create %s", RW "/work");
	must(mount("overlay", NEWROOT, "overlay", 0,
		   "lowerdir=" LOWER ",upperdir=" RW "/upper,workdir=" RW "/work") == 0,
	     "cannot mount the overlay on %s", NEWROOT);
}

/* What switch_root does: the overlay becomes "/". The initramfs stays
 * in memory underneath; it is a few megabytes of modules.
 */
static void enter_new_root(void)
{
	must(chdir(NEWROOT) == 0, "cannot enter %s", NEWROOT);
	must(mount(".", "/", NULL, MS_MOVE, NULL) == 0, "cannot move %s to /", NEWROOT);
	must(chroot(".") == 0, "cannot chroot into %s", NEWROOT);
	must(chdir("/") == 0, "cannot enter %s", "/");
}

int main(void)
{
	const char *script = getenv("guest_script");
	int status, console;
	pid_t child;

	must(mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) == 0 || errno == EBUSY,
	     "cannot mount %s", "/dev");
	/* The initramfs has no /dev/console, so the kernel started us with no
	 * standard streams; the script's output must reach the serial console.
	 */
	console = open("/dev/console", O_RDWR);
	if (console >= 0) {
		dup2(console, 0);
		dup2(console, 1);
		dup2(console, 2);
		if (console > 2)
			close(console);
	}
	if (!script) {
		say("no guest_script= on the kernel command line%s", "", 0);
		power_off();
	}
	load_modules();
	mount_overlay_root();
	enter_new_root();

	child = fork();
	must(child >= 0, "cannot fork for %s", script);
	if (child == 0) {
		execl(script, script, (char *)NULL);
		say("cannot run %s", script, errno);
		_exit(127);
	}
	for (;;) {
		pid_t pid = wait(&status);

		if (pid == child)
			break;
		if (pid < 0 && errno != EINTR) {
			say("lost the guest script %s", script, errno);
			power_off();
		}
	}
	if (WIFEXITED(status))
		fprintf(stderr, "guest_init: %s exited with status %d\n", script,
			WEXITSTATUS(status));
	else
		fprintf(stderr, "guest_init: %s killed by signal %d\n", script,
			WTERMSIG(status));
	power_off();
}
