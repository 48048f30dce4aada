#!/usr/bin/env python3
"""first-screen.py SOCKET WIDTH HEIGHT TIMEOUT COMMAND

Times how long the explorer takes to show its first screen in tmux, as
bench/lib.sh's first_screen describes: starts COMMAND (one shell command
line) in a new detached session "first-screen" of the tmux server on
SOCKET (tmux -L), WIDTH x HEIGHT, and waits until the pane shows the tab
bar ("1 Left Heavy") on its first row and a box row (a letter, digit or
_) on the second. Prints the milliseconds from just before the start;
exits 1 if TIMEOUT seconds pass first. The session is left running.

The pane is read through one tmux client in control mode (tmux -C),
asked for the first two rows every 10 ms. A `tmux capture-pane` process
per poll, as before, cost a fork and exec of tmux and a new connection
each time: on this 2-core machine that took about 30% of a core from
tflame's two parser threads and made the 1 GB first screen look 0.3 to
0.6 s slower than it is.
"""

import re
import subprocess
import sys
import time

BOX = re.compile(r"[A-Za-z0-9_]")


def main():
    if len(sys.argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    sock, width, height, limit, command = sys.argv[1:]
    tmux = ["tmux", "-L", sock]
    # The server, and a session for the control client, before the clock.
    subprocess.run(tmux + ["new-session", "-d", "-s", "first-screen-idle",
                           "-x", width, "-y", height, "sleep 86400"], check=True)
    ctl = subprocess.Popen(tmux + ["-C", "attach", "-t", "first-screen-idle"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def ask(cmd):
        """One command's output lines; None if tmux answered %error."""
        ctl.stdin.write(cmd + "\n")
        ctl.stdin.flush()
        while True:  # notifications come outside %begin..%end blocks
            line = ctl.stdout.readline()
            if not line:
                raise SystemExit("first-screen.py: the tmux control client ended")
            if line.startswith("%begin"):
                break
        lines = []
        while True:
            line = ctl.stdout.readline()
            if not line:
                raise SystemExit("first-screen.py: the tmux control client ended")
            if line.startswith("%end") or line.startswith("%error"):
                return lines if line.startswith("%end") else None
            lines.append(line.rstrip("\n"))

    # The attach itself answers with an empty block first: sync past it.
    while ask("display-message -p first-screen-ready") != ["first-screen-ready"]:
        pass
    # The pane's shell waits, as a person's does, for the Enter that runs
    # COMMAND: making the session, its pty and its shell is not on the
    # clock (about 45 ms here), the Enter and the command are.
    subprocess.run(tmux + ["new-session", "-d", "-s", "first-screen",
                           "-x", width, "-y", height, "-e", "FS_CMD=" + command,
                           'printf "first-screen-ready\\n"; read _go; printf "\\033[H\\033[2J"; exec sh -c "$FS_CMD"'],
                   check=True)
    ready_by = time.monotonic() + 10
    while True:
        rows = ask("capture-pane -p -t first-screen -S 0 -E 0")
        if rows and rows[0].startswith("first-screen-ready"):
            break
        if time.monotonic() > ready_by:
            raise SystemExit("first-screen.py: the pane's shell did not start")
        time.sleep(0.005)
    start = time.monotonic()
    ask("send-keys -t first-screen Enter")
    shown = False
    while True:
        rows = ask("capture-pane -p -t first-screen -S 0 -E 1")
        if rows and len(rows) >= 2 and "1 Left Heavy" in rows[0] and BOX.search(rows[1]):
            shown = True
            break
        if time.monotonic() - start >= float(limit):
            break
        time.sleep(0.01)
    ms = int((time.monotonic() - start) * 1000)
    ctl.stdin.close()  # the control client ends on end of input
    ctl.wait()
    subprocess.run(tmux + ["kill-session", "-t", "first-screen-idle"],
                   stderr=subprocess.DEVNULL)
    if not shown:
        return 1
    print(ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
