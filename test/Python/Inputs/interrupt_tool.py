"""Starts a Python tool (COMMAND...), waits until PIDFILE names the child
tool it runs (a stand-in that writes its pid there and sleeps), sends
SIGNAL to the Python tool and prints how it ended: its exit status, its
last stderr line, whether stderr holds a traceback, and whether the child
tool still runs."""
import os
import signal
import subprocess
import sys
import time

sig, pidfile = sys.argv[1], sys.argv[2]
command = sys.argv[3:]
# A shell's background job ignores SIGINT, and Python keeps an ignored
# SIGINT ignored: the tool gets it as a terminal would give it.
tool = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, text=True,
                        preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                         signal.SIG_DFL))
for _ in range(1200):
    if os.path.exists(pidfile) and open(pidfile).read().strip():
        break
    if tool.poll() is not None:
        sys.exit("the tool ended before its child started: %s" %
                 tool.stderr.read())
    time.sleep(0.05)
else:
    tool.kill()
    sys.exit("the child tool never started")
child = int(open(pidfile).read())
tool.send_signal(getattr(signal, sig))
try:
    _, err = tool.communicate(timeout=60)
except subprocess.TimeoutExpired:
    tool.kill()
    sys.exit("the tool did not stop")


def running(pid):
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


for _ in range(50):
    if not running(child):
        break
    time.sleep(0.1)
lines = err.strip().splitlines()
print("exit status: %d" % tool.returncode)
print("last line: %s" % (lines[-1] if lines else ""))
print("traceback: %s" % ("yes" if "Traceback" in err else "no"))
print("child: %s" % ("running" if running(child) else "ended"))
