"""Progress lines, end to end (the real ringlab binary): with standard error not a terminal, the
long commands write nothing to it; under a pseudo-terminal they draw one line redrawn in place
("\\r", erase to end of line) that is gone when they finish, and the output on the screen is what
the same command prints to a pipe.

Usage: progress_terminal_test.py RINGLAB_BINARY TEST_DATA_DIR  (Debian's /usr/bin/python3)
"""
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY, DATA = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="ringlab-progress-")

TOPO = ["topo", "search", "--placement", "rr", "--topo",
        "shape=fat-tree,nodes=16,ranks=4,rails=1,leaf=4,spines=4,intra=100GB/s,inter=10GB/s"]
PLAN = ["plan", "--timeline", os.path.join(DATA, "plan_timeline.csv"), "-p", "4",
        "--alpha", "5us", "--bw", "10GB/s", "--gamma", "0"]
SIM = ["sim", "--topo", "nodes=2,ranks=4", "-b", "8", "-e", "1M", "-f", "8"]
TUNE = ["tune", "-p", "2", "-b", "8", "-e", "128", "-n", "1", "-w", "0", "--rounds", "2",
        "--algos", "ring,recursive_doubling", "--json", os.path.join(TMP, "tune.json")]
CALIBRATE = ["calibrate", "-b", "1K", "-e", "4M", "-n", "5", "--json", os.path.join(TMP, "p.json")]
BENCH = ["bench", "-p", "2", "-b", "8", "-e", "4K", "-f", "8", "-n", "2"]


def piped(args):
    """stdout, stderr and status with both going to pipes."""
    r = subprocess.run([BINARY] + args, stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=300)
    return r.stdout.decode(), r.stderr.decode(), r.returncode


def on_terminal(args, stdout_too=True):
    """What a terminal receives (bytes as written) when stderr, and stdout if asked, are one;
    plus stdout when it goes to a pipe instead."""
    master, slave = pty.openpty()
    p = subprocess.Popen([BINARY] + args, stdin=subprocess.DEVNULL, stderr=slave,
                         stdout=slave if stdout_too else subprocess.PIPE)
    os.close(slave)
    received = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        received += chunk
    out = b""
    if not stdout_too:
        out = p.stdout.read()
        p.stdout.close()
    p.wait(timeout=300)
    os.close(master)
    return received.decode(), out.decode(), p.returncode


def screen(terminal):
    """The lines a terminal shows after `terminal`: \\r returns to column 0, ESC[K erases to the
    end of the line, \\n (the terminal's \\r\\n) ends the line."""
    lines, line, col = [], [], 0
    i = 0
    while i < len(terminal):
        if terminal.startswith("\x1b[K", i):
            del line[col:]
            i += 3
            continue
        c = terminal[i]
        i += 1
        if c == "\r":
            col = 0
        elif c == "\n":
            lines.append("".join(line))
            line, col = [], 0
        else:
            if col < len(line):
                line[col] = c
            else:
                line.append(c)
            col += 1
    if line:
        lines.append("".join(line))
    return lines


def masked(lines):
    """Lines with every number replaced by N and runs of spaces by one (columns align to the
    numbers' widths)."""
    return [re.sub(r" +", " ", re.sub(r"[+-]?[0-9][0-9.:e+-]*", "N", line)) for line in lines]


def progress_lines(terminal, command):
    """Every state the progress line was drawn in."""
    return re.findall("\r(" + re.escape(command) + ": [^\r\x1b]*)\x1b\\[K", terminal)


class NotATerminal(unittest.TestCase):
    def test_long_commands_write_nothing_to_stderr(self):
        for args in (TOPO, PLAN, SIM, TUNE, CALIBRATE, BENCH):
            with self.subTest(command=args[0]):
                out, err, status = piped(args)
                self.assertEqual(status, 0, err)
                self.assertEqual(err, "")
                self.assertNotIn("\r", out)


class OnATerminal(unittest.TestCase):
    def check(self, args, command, first):
        """Runs `args` on a terminal; checks the line was drawn, starting with `first`, in the
        right shape, and that the screen ends as stdout alone would leave it. Returns the
        screen's lines."""
        terminal, _, status = on_terminal(args)
        self.assertEqual(status, 0, terminal)
        drawn = progress_lines(terminal, command)
        self.assertTrue(drawn, "no progress line drawn: " + repr(terminal[:300]))
        self.assertTrue(drawn[0].startswith(first), drawn[0])
        for line in drawn:
            self.assertRegex(line, r" \d+/\d+  \d+ s$")
        # Every drawing and erasure is "\r", text, ESC[K; without them, what is left is stdout.
        written = re.sub("\r[^\r\n\x1b]*\x1b\\[K", "", terminal)
        self.assertNotIn("\x1b", written)
        shown = screen(terminal)
        self.assertEqual(shown, written.replace("\r\n", "\n").splitlines())
        self.assertFalse([l for l in shown if l.startswith(command + ": ")])
        return shown

    def test_topo_search_leaves_the_output_as_piped(self):
        shown = self.check(TOPO, "topo search", "topo search: rank order 0/")
        self.assertEqual(shown, piped(TOPO)[0].splitlines())

    def test_plan_draws_each_step_and_leaves_the_output_as_piped(self):
        shown = self.check(PLAN, "plan", "plan: optimal buckets 0/9 ")
        self.assertEqual(shown, piped(PLAN)[0].splitlines())

    def test_sim_rows_and_the_line_do_not_mix(self):
        shown = self.check(SIM, "sim", "sim: 8 B 0/")
        self.assertEqual(masked(shown), masked(piped(SIM)[0].splitlines()))  # the date moves

    def test_measuring_commands_draw_where_they_are(self):
        for args, command, first in (
                (TUNE, "tune", "tune: ring 8 B (round 1/2) 0/12 "),
                (CALIBRATE, "calibrate", "calibrate: ping-pong 1 KiB 0/"),
                (BENCH, "bench", "bench: 8 B 0/4 ")):
            with self.subTest(command=command):
                self.check(args, command, first)

    def test_stdout_to_a_file_stays_as_piped_and_the_line_is_erased(self):
        expected, _, _ = piped(TOPO)
        terminal, out, status = on_terminal(TOPO, stdout_too=False)
        self.assertEqual(status, 0)
        self.assertEqual(out, expected)
        self.assertTrue(progress_lines(terminal, "topo search"))
        self.assertEqual([l for l in screen(terminal) if l], [], "the line was not erased")


if __name__ == "__main__":
    try:
        unittest.main(argv=[sys.argv[0]], verbosity=2)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
