/* SPDX-License-Identifier: GPL-2.0 */
/* Mutual exclusion between cpusteer commands, and the signals they defer.
 *
 * A command that changes an instance defers SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT from before it takes the instance's lock until its last change
 * is recorded: an operator's Ctrl-C then lands between two commands, not
 * in the middle of one. kill -9 cannot be deferred; what it leaves is
 * recorded ahead (the phase in the instance record) for status and
 * unload.
 */
#ifndef CPUSTEER_LOCK_H
#define CPUSTEER_LOCK_H

/* How long a command waits for another one's lock before it gives up. */
#define LOCK_WAIT_SECONDS 10

/* Takes flock(fd, op) (LOCK_EX or LOCK_SH), waiting up to
 * LOCK_WAIT_SECONDS. When it gives up: one line naming `what` and the
 * process holding the lock, and -EBUSY. A deferred signal that arrives
 * while waiting ends the wait: one line and -EINTR.
 */
int lock_wait(int fd, int op, const char *what);

/* Takes flock(fd, op) if it comes free within `seconds` (0: only if it
 * is free now), for a reader that would rather do without the state than
 * wait for it. Prints nothing: -EBUSY when it stayed held, another
 * negative errno when flock failed. Signals do not end the wait.
 */
int lock_try(int fd, int op, double seconds);

/* Defers the signals above for the rest of the command. */
void signals_defer(void);
/* Takes a deferred signal that arrived off the pending set and says, in
 * one line, that COMMAND held it until it finished (err 0) or failed; the
 * command then exits with its own status.
 */
void signals_report_held(const char *command, int err);

#endif
