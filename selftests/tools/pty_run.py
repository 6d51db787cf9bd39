#!/usr/bin/env python3
"""A command under a pseudo-terminal, for the tests of terminal output.

  pty_run.py ROWS COLS COMMAND [ARG...]

Runs COMMAND with a new pseudo-terminal of ROWS x COLS as its standard
input, output and error, copies everything it writes there to standard
output as it comes (with the terminal's \\r\\n line ends), and exits with
COMMAND's exit status (128 + N when signal N ended it). A SIGINT or
SIGTERM to this script is passed on to COMMAND.
"""
import fcntl
import os
import pty
import signal
import struct
import sys
import termios


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execvp(sys.argv[3], sys.argv[3:])
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda s, _f: os.kill(pid, s))
    out = sys.stdout.buffer
    while True:
        try:
            data = os.read(master, 4096)
        except InterruptedError:
            continue
        except OSError:		# EIO: the command and its children are gone
            break
        if not data:
            break
        out.write(data)
        out.flush()
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status)
             else 128 + os.WTERMSIG(status))


main()
