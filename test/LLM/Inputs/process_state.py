"""Prints "ended" when the process whose pid is in FILE has ended (gone, or
a zombie nobody reaped yet) within two seconds, "running" otherwise."""
import sys
import time


def ended(pid):
    try:
        with open("/proc/%d/stat" % pid) as stat:
            # pid (comm) STATE ...: the state follows the last ')'.
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


if __name__ == "__main__":
    pid = int(open(sys.argv[1]).read())
    for _ in range(20):
        if ended(pid):
            print("ended")
            sys.exit(0)
        time.sleep(0.1)
    print("running")
