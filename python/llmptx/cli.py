#===- cli.py - What every command line of the package does alike ----------===#
"""The conventions every tool of the package shares on its command line.

- `run_main(prog, body)`: the one top-level handler of a tool's main().
  Whatever goes wrong ends with one `prog: error: ...` line on stderr and
  exit status 1 (2 for usage, as argparse gives), never a traceback:
  a ToolError says what the user can fix; an unreadable file, a full disk,
  input nested too deeply for Python are said as such; a bug of the tool is
  "internal error" (LLMPTX_TRACEBACK=1 shows its traceback). Ctrl-C is
  status 130, SIGTERM 143 and SIGHUP 129, after the tool's own cleanup
  (temporary folders, the child running).
- `run_tool(command, what)`: a child tool, its output captured through
  files (bounded, whatever it prints), killed with its process group when
  the tool is interrupted. A child that fails is a ToolError with its
  message, capped; one killed by a signal is one line naming the tool and
  the signal, not its stack dump.

Only the standard library is used.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import traceback
from typing import Callable, Dict, Optional, Sequence

EXIT_FAILURE = 1
EXIT_USAGE = 2

# What run_tool reprints of a failing child: its first lines, up to where an
# LLVM crash report starts.
MESSAGE_LINES = 60
MESSAGE_BYTES = 16 << 10
CRASH_REPORT = ('Stack dump:', 'PLEASE submit a bug report',
                'Stack dump without symbol names')


class ToolError(Exception):
    """A problem the user can fix; its text is the whole message."""

    def __init__(self, message: str, status: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.status = status


class ChildFailed(ToolError):
    """A child tool ended with `returncode` (negative: killed by a signal)."""

    def __init__(self, message: str, returncode: int) -> None:
        super().__init__(message)
        self.returncode = returncode


class Interrupted(BaseException):
    """SIGTERM or SIGHUP, raised where the tool is so that its `finally`
    blocks run (a BaseException, as KeyboardInterrupt, so that no `except
    Exception` of the tool swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum, _frame):
    raise Interrupted(signum)


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return 'signal %d' % signum


def run_main(prog: str, body: Callable[[], int]) -> int:
    """Runs `body` (parses its arguments, does the work, returns the exit
    status) under the package's one error convention."""
    previous = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[signum] = signal.signal(signum, _raise_interrupted)
        except (ValueError, OSError):  # not the main thread
            pass
    try:
        return body()
    except ToolError as error:
        return _error(prog, str(error), error.status)
    except KeyboardInterrupt:
        return _error(prog, 'interrupted', 128 + signal.SIGINT)
    except Interrupted as stop:
        return _error(prog, 'stopped by %s' % signal_name(stop.signum),
                      128 + stop.signum)
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): nothing more to say.
        try:
            sys.stdout = open(os.devnull, 'w')
        except OSError:
            pass
        return EXIT_FAILURE
    except RecursionError:
        return _error(prog, 'input nested too deeply to process')
    except MemoryError:
        return _error(prog, 'out of memory')
    except OSError as error:
        return _error(prog, describe_os_error(error))
    except UnicodeError as error:
        return _error(prog, 'text that is not UTF-8: %s' % error)
    except Exception as error:  # a bug of the tool, said as one
        if os.environ.get('LLMPTX_TRACEBACK'):
            traceback.print_exc()
        return _error(prog, 'internal error: %s: %s (a bug; '
                      'LLMPTX_TRACEBACK=1 shows where)' %
                      (type(error).__name__, error))
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def describe_os_error(error: OSError) -> str:
    """'path: No such file or directory', as the C tools say it."""
    what = error.strerror or str(error)
    if error.filename is not None and error.filename2 is not None:
        return '%s -> %s: %s' % (error.filename, error.filename2, what)
    if error.filename is not None:
        return '%s: %s' % (error.filename, what)
    return what


def _error(prog: str, message: str, status: int = EXIT_FAILURE) -> int:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        print('%s: error: %s' % (prog, message), file=sys.stderr)
    except (OSError, ValueError):
        pass
    return status


#===----------------------------------------------------------------------===#
# Child tools
#===----------------------------------------------------------------------===#


def _read_capped(handle, limit: int = MESSAGE_BYTES) -> str:
    handle.seek(0)
    return handle.read(limit).decode('utf-8', 'replace')


def tool_message(text: str) -> str:
    """A child's stderr as a message: up to the first line of an LLVM crash
    report, at most MESSAGE_LINES lines."""
    lines = text.rstrip().splitlines()
    for index, line in enumerate(lines):
        if line.startswith(CRASH_REPORT):
            lines = lines[:index]
            break
    if len(lines) > MESSAGE_LINES:
        left = len(lines) - MESSAGE_LINES
        lines = lines[:MESSAGE_LINES] + ['[... %d more line(s)]' % left]
    return '\n'.join(lines).rstrip()


def stop_process_group(process: subprocess.Popen, grace: float = 5) -> None:
    """SIGTERM to the child's process group (its own children too), SIGKILL
    after `grace` seconds."""
    for signum, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, signum)
        except (ProcessLookupError, PermissionError):
            return
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_tool(command: Sequence[str], what: str, capture: bool = True,
             verbose: bool = False, env: Optional[Dict[str, str]] = None
             ) -> subprocess.CompletedProcess:
    """Runs `command` in a process group of its own and waits for it.

    With `capture`, its stdout and stderr go to temporary files (0600, so a
    child that prints gigabytes costs disk, not memory) and come back
    capped; otherwise it writes to this process's. A failure (exit status
    not 0) is a ToolError: "WHAT failed (exit status N):" and its message;
    death by a signal is "WHAT crashed (SIGSEGV, signal 11)" (both
    ChildFailed). An interrupt
    of this process stops the child's group first.
    """
    if verbose:
        print('+ ' + ' '.join(_quote(part) for part in command),
              file=sys.stderr)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            process = subprocess.Popen(
                list(command), stdin=subprocess.DEVNULL,
                stdout=out if capture else None,
                stderr=err if capture else None, env=env,
                start_new_session=True)
        except OSError as error:
            raise ToolError('%s: cannot run %s: %s' %
                            (what, command[0], error.strerror or error))
        try:
            status = process.wait()
        except BaseException:
            stop_process_group(process)
            raise
        stdout = _read_capped(out, 64 << 20) if capture else ''
        stderr = _read_capped(err, 1 << 20) if capture else ''
    if verbose and stderr:
        sys.stderr.write(stderr)
    if status < 0:
        shown = verbose or not capture
        hint = ('; its crash report is not shown' if not shown and
                any(mark in stderr for mark in CRASH_REPORT) else '')
        raise ChildFailed('%s crashed (%s, signal %d)%s' %
                          (what, signal_name(-status), -status, hint), status)
    if status != 0:
        message = tool_message(stderr or stdout)
        raise ChildFailed('%s failed (exit status %d)%s' %
                          (what, status, ':\n' + message if message else ''),
                          status)
    return subprocess.CompletedProcess(list(command), status, stdout, stderr)


def _quote(part: str) -> str:
    return part if re.fullmatch(r'[\w@%+=:,./-]+', part) else repr(part)
