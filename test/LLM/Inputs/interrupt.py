"""Starts COMMAND..., waits until the file PIDFILE names a running model
command, sends SIGNAL to COMMAND and prints what is left: whether the model
command still runs and which files are in TMPDIR (the command's own
temporary folder), with their modes."""
import os
import signal
import subprocess
import sys
import time

from process_state import ended

sig, pidfile, tmpdir = sys.argv[1], sys.argv[2], sys.argv[3]
command = sys.argv[4:]
env = dict(os.environ, TMPDIR=tmpdir)
child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
for _ in range(600):
    if os.path.exists(pidfile) and open(pidfile).read().strip():
        break
    time.sleep(0.05)
else:
    child.kill()
    sys.exit("the model command never started")
files = sorted(os.listdir(tmpdir))
print("while running: %s" % " ".join(
    "%s=%o" % (name.split("-")[2], os.stat(os.path.join(tmpdir, name)).st_mode & 0o777)
    for name in files))
child.send_signal(getattr(signal, sig))
try:
    child.wait(timeout=30)
except subprocess.TimeoutExpired:
    child.kill()
    sys.exit("the compiler did not stop")
model = int(open(pidfile).read())
for _ in range(20):
    if ended(model):
        break
    time.sleep(0.1)
print("model command: %s" % ("ended" if ended(model) else "running"))
print("left in TMPDIR: %d" % len(os.listdir(tmpdir)))
