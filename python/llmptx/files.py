#===- files.py - The files a tool reads and writes, and where -------------===#
"""The one rule every tool of the package follows for files, in one place.

Reading. A file a user names is read whole through `read_bytes`,
`read_text` or `read_json`: a regular file (a symlink to one is fine) of at
most MAX_DOCUMENT_BYTES, opened without blocking, so a FIFO, /dev/zero, a
folder or a socket is an error naming the file, never a hang or an
allocation storm; text must be UTF-8 (an error names the file and the
byte), JSON nests at most MAX_JSON_DEPTH levels. A file only handed to
another tool (an IREE program, a C driver) is checked with `regular_file`.

Writing. An output never replaces an input of the same run, compared by
file identity (device and inode: a hard link, a symlink or another
spelling of the path is the same file), nor another output of the run;
`check_outputs` says so before any work starts. Outputs are written
through a temporary file in their folder and a rename (`write_bytes`,
`write_text`, `staged` for a file a child tool writes): a reader sees the
old or the new file, never half, a failed step leaves the old one, and a
symlink at the path is replaced, not followed; a character device
(/dev/null) is written into, never replaced.

Work folders (`WorkFolder`). A folder a tool writes several files into is
made by it, or adopted when it is empty, or reused when it carries the
tool's marker file, which lists every entry the tool made there; a folder
that holds anything else is refused, and only listed entries are ever
replaced or removed.

Names (`file_name_component`). A name from the input (a kernel, an
executable, a set) becomes a file name only through this, the same
function as the C++ tools' untrusted::fileNameComponent.

Only the standard library is used.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import tempfile
from typing import Any, Iterator, List, Optional, Sequence, Tuple

from llmptx.cli import ToolError

# The limits of include/llmptx/Support/UntrustedText.h.
MAX_DOCUMENT_BYTES = 256 << 20
MAX_JSON_DEPTH = 128

# fileNameComponent's limits.
_NAME_MAX_BYTES = 96
_NAME_KEPT_BYTES = 80
_SAFE_NAME_BYTES = frozenset(b'abcdefghijklmnopqrstuvwxyz'
                             b'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+.')


#===----------------------------------------------------------------------===#
# Names
#===----------------------------------------------------------------------===#


def file_name_component(name: str) -> str:
    """`name` as one component of a file name: unchanged when it already is
    a safe one (letters, digits, '_', '-', '+', '.', not starting with '.',
    at most 96 bytes); otherwise every other byte becomes '_', it is cut to
    80 bytes and '-' and the FNV-1a hash of the whole name (its UTF-8
    bytes) follow, so "../../victim" can neither leave the folder it is
    written in nor collide with the plain "_.._victim"."""
    data = name.encode('utf-8', 'surrogatepass')
    if (data and len(data) <= _NAME_MAX_BYTES and data[:1] != b'.' and
            all(byte in _SAFE_NAME_BYTES for byte in data)):
        return name
    kept = bytearray(byte if byte in _SAFE_NAME_BYTES else ord('_')
                     for byte in data[:_NAME_KEPT_BYTES])
    if kept[:1] == b'.':
        kept[0] = ord('_')
    digest = 2166136261
    for byte in data:
        digest = ((digest ^ byte) * 16777619) & 0xffffffff
    return '%s-%08x' % (kept.decode('ascii'), digest)


#===----------------------------------------------------------------------===#
# Reading
#===----------------------------------------------------------------------===#


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, 'a directory'),
                       (stat.S_ISFIFO, 'a FIFO'),
                       (stat.S_ISCHR, 'a character device'),
                       (stat.S_ISBLK, 'a block device'),
                       (stat.S_ISSOCK, 'a socket')):
        if test(mode):
            return name
    return 'not a file'


def regular_file(path: str, what: str = '',
                 limit: Optional[int] = None) -> str:
    """`path` when it is a regular file (or a symlink to one) of at most
    `limit` bytes when given; a ToolError saying what it is otherwise. For
    files only handed to another tool."""
    label = (what + ' ' if what else '') + path
    try:
        info = os.stat(path)
    except OSError as error:
        raise ToolError('%s: %s' % (label, error.strerror))
    if not stat.S_ISREG(info.st_mode):
        raise ToolError('%s: not a regular file (%s)' %
                        (label, _kind(info.st_mode)))
    if limit is not None and info.st_size > limit:
        raise ToolError('%s: %d bytes, more than the %d a tool reads' %
                        (label, info.st_size, limit))
    return path


def read_bytes(path: str, what: str = '',
               limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The whole of the regular file `path`, at most `limit` bytes; a
    ToolError naming the file otherwise. Never blocks on a FIFO or device."""
    label = (what + ' ' if what else '') + path
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise ToolError('cannot read %s: %s' % (label, error.strerror))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ToolError('cannot read %s: not a regular file (%s)' %
                            (label, _kind(info.st_mode)))
        if info.st_size > limit:
            raise ToolError('cannot read %s: larger than %d bytes (%d)' %
                            (label, limit, info.st_size))
        chunks, size = [], 0
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError as error:
                raise ToolError('cannot read %s: %s' % (label, error.strerror))
            if not chunk:
                return b''.join(chunks)
            size += len(chunk)
            if size > limit:  # it grew while it was read
                raise ToolError('cannot read %s: larger than %d bytes' %
                                (label, limit))
            chunks.append(chunk)
    finally:
        os.close(fd)


def decode_text(data: bytes, label: str) -> str:
    """`data` as UTF-8; a ToolError naming `label`, the line and the byte
    otherwise."""
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as error:
        line = data.count(b'\n', 0, error.start) + 1
        raise ToolError('%s: not UTF-8 text (line %d, byte %d: 0x%02x)' %
                        (label, line, error.start + 1, data[error.start]))


def read_text(path: str, what: str = '',
              limit: int = MAX_DOCUMENT_BYTES) -> str:
    """The regular file `path` as UTF-8 text (read_bytes, decode_text)."""
    return decode_text(read_bytes(path, what, limit),
                       (what + ' ' if what else '') + path)


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)


def json_nesting_problem(text: str, limit: int = MAX_JSON_DEPTH
                         ) -> Optional[str]:
    """Where `text` nests deeper than `limit` (brackets and braces outside
    strings), as the C++ tools' findExcessiveJsonNesting says it; None
    when it does not."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in '[{':
            depth += 1
            if depth > limit:
                at = match.start()
                line = text.count('\n', 0, at) + 1
                column = at - (text.rfind('\n', 0, at) + 1) + 1
                return ('byte %d (line %d, column %d): JSON nested deeper '
                        'than %d levels' % (at + 1, line, column, limit))
        elif token in ']}' and depth:
            depth -= 1
    return None


def _refuse_constant(name: str) -> Any:
    raise ValueError('%s is not a JSON number' % name)


def parse_json(text: str, label: str) -> Any:
    """`text` as JSON (no NaN or Infinity, at most MAX_JSON_DEPTH deep); a
    ToolError naming `label` and the place otherwise."""
    problem = json_nesting_problem(text)
    if problem:
        raise ToolError('%s: %s' % (label, problem))
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise ToolError('%s: invalid JSON: %s (line %d, column %d)' %
                        (label, error.msg, error.lineno, error.colno))
    except (ValueError, RecursionError) as error:
        raise ToolError('%s: invalid JSON: %s' % (label, error))


def read_json(path: str, what: str = '',
              limit: int = MAX_DOCUMENT_BYTES) -> Any:
    """The regular file `path` as JSON (read_text, parse_json)."""
    return parse_json(read_text(path, what, limit),
                      (what + ' ' if what else '') + path)


#===----------------------------------------------------------------------===#
# Writing
#===----------------------------------------------------------------------===#


def same_file(first: str, second: str) -> bool:
    """Whether the two paths name one file (device and inode); False when
    either does not exist."""
    try:
        a, b = os.stat(first), os.stat(second)
    except (OSError, ValueError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _same_path(first: str, second: str) -> bool:
    """Whether two paths, existing or not, name one place."""
    return (same_file(first, second) or
            os.path.realpath(first) == os.path.realpath(second))


def check_output_folder(path: str, what: str) -> None:
    """The folder `path` will be written in exists, or can be made: its
    nearest existing ancestor is a folder."""
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        raise ToolError('%s %s: %s is not a folder' % (what, path, folder))


def check_outputs(inputs: Sequence[Tuple[str, Optional[str]]],
                  outputs: Sequence[Tuple[str, Optional[str]]],
                  folders: Sequence[Tuple[str, Optional[str]]] = ()) -> None:
    """Before any work: no output (a file the run writes) is an input of the
    run or another output, names a folder, or lies below a file; no output
    folder is an input either. Each pair is (what the user called it, its
    path); a None path is skipped."""
    inputs = [(what, path) for what, path in inputs if path]
    files = [(what, path) for what, path in outputs if path]
    folders = [(what, path) for what, path in folders if path]
    for what, path in files:
        mode = _existing_kind(path)
        if mode is not None and stat.S_ISDIR(mode):
            raise ToolError('%s %s is a folder; name a file' % (what, path))
        if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISCHR(mode)):
            raise ToolError('%s %s is not a regular file (%s)' %
                            (what, path, _kind(mode)))
    for what, path in files + folders:
        check_output_folder(path, what)
        for source, source_path in inputs:
            if same_file(path, source_path):
                raise ToolError('%s %s is %s (%s): a run never writes over '
                                'what it reads; name another %s' %
                                (what, path, source, source_path,
                                 'folder' if (what, path) in folders
                                 else 'file'))
    places = files + folders
    for index, (what, path) in enumerate(places):
        for other, other_path in places[index + 1:]:
            if _same_path(path, other_path):
                raise ToolError('%s %s and %s %s are the same; name two '
                                'places' % (what, path, other, other_path))


def _staging_folder(path: str) -> str:
    """Where the temporary file of `path` is made: its folder (so the
    rename is atomic), the system's for a device (nothing is made in /dev)."""
    mode = _existing_kind(path)
    if mode is not None and stat.S_ISCHR(mode):
        return tempfile.gettempdir()
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    return folder


def _temporary_next_to(path: str) -> Tuple[int, str]:
    folder = _staging_folder(path)
    return tempfile.mkstemp(dir=folder,
                            prefix='.%s.tmp-' % os.path.basename(path)[:64])


def _existing_kind(path: str) -> Optional[int]:
    """The mode of what `path` names (through symlinks), None when nothing."""
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):
        return None


def _deliver(temporary: str, path: str) -> None:
    """Puts the finished temporary file at `path`: renamed onto it, unless
    `path` is a character device (/dev/null, a terminal), which is written
    into, never replaced. Another kind of file there is refused."""
    mode = _existing_kind(path)
    if mode is not None and stat.S_ISCHR(mode):
        with open(temporary, 'rb') as source, open(path, 'wb') as target:
            shutil.copyfileobj(source, target)
        os.unlink(temporary)
        return
    if mode is not None and not stat.S_ISREG(mode):
        raise ToolError('%s: not a regular file (%s); not replaced' %
                        (path, _kind(mode)))
    os.replace(temporary, path)


def _finish(fd: int, temporary: str, path: str, mode: Optional[int]) -> None:
    """Gives the temporary file the mode an ordinary create would (or
    `mode`), closes it and delivers it to `path`."""
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, (0o666 if mode is None else mode) & ~umask)
    os.close(fd)
    _deliver(temporary, path)


def write_bytes(path: str, data: bytes, mode: Optional[int] = None) -> None:
    """Writes `data` to `path` through a temporary file and a rename; on
    failure the temporary file is gone and `path` is as it was."""
    fd, temporary = _temporary_next_to(path)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        _finish(fd, temporary, path, mode)
        fd = -1
    finally:
        if fd >= 0:
            os.close(fd)
        if os.path.lexists(temporary):
            os.unlink(temporary)


def write_text(path: str, text: str) -> None:
    write_bytes(path, text.encode('utf-8'))


def write_json(path: str, value: Any) -> None:
    write_text(path, json.dumps(value, indent=1) + '\n')


@contextlib.contextmanager
def staged(path: str) -> Iterator[str]:
    """A path for a child tool to write (`cc -o`, `iree-compile -o`) in a
    fresh private folder next to `path`; the file is renamed onto `path`
    when the block ends normally, and the folder removed either way, so a
    failed step leaves `path` as it was."""
    private = tempfile.mkdtemp(dir=_staging_folder(path),
                               prefix='.%s.tmp-' % os.path.basename(path)[:64])
    try:
        written = os.path.join(private, os.path.basename(path))
        yield written
        if not os.path.isfile(written) or os.path.islink(written):
            raise ToolError('%s was not written' % path)
        _deliver(written, path)
    finally:
        shutil.rmtree(private, ignore_errors=True)


#===----------------------------------------------------------------------===#
# Work folders
#===----------------------------------------------------------------------===#


class WorkFolder:
    """A folder one tool writes several files into (--keep, --work-dir, the
    substitutions of llmptx-iree).

    Constructing it checks, and changes nothing: the folder may be absent
    (then `open` makes it), empty, or carry `marker`, the tool's file that
    lists the entries it made; any other folder, or one holding an entry
    the marker does not list, is refused. `open` makes or adopts it;
    `file`/`folder` name an entry, list it in the marker before it is
    written, and check it against the run's inputs; `remove_listed` removes
    what an earlier run of the tool made there. Nothing unlisted is ever
    touched.
    """

    def __init__(self, path: str, tool: str, marker: str, what: str,
                 inputs: Sequence[Tuple[str, Optional[str]]] = ()) -> None:
        self.path, self.tool, self.what = path, tool, what
        self.marker = marker
        self.inputs = [(label, p) for label, p in inputs if p]
        self.listed: List[str] = []
        self.opened = False
        label = '%s %s' % (what, path)
        if os.path.islink(path) and not os.path.exists(path):
            raise ToolError('%s is a symbolic link to nothing (%s)' %
                            (label, os.readlink(path)))
        if not os.path.lexists(path):
            check_output_folder(path, what)
            return
        if not os.path.isdir(path):
            raise ToolError('%s exists and is not a folder' % label)
        try:
            entries = sorted(os.listdir(path))
        except OSError as error:
            raise ToolError('%s: %s' % (label, error.strerror))
        if not entries:
            return
        if marker not in entries:
            raise ToolError('%s exists and was not made by %s (it has no %s '
                            'file): name a new or an empty folder' %
                            (label, tool, marker))
        self.listed = self._read_marker()
        foreign = [e for e in entries if e != marker and e not in self.listed]
        if foreign:
            raise ToolError('%s holds %s, which %s did not write there: move '
                            'it, or name another folder' %
                            (label, foreign[0], tool))
        for source, source_path in self.inputs:
            for name in self.listed:
                if same_file(os.path.join(path, name), source_path):
                    raise ToolError('%s holds %s (%s), which this run '
                                    'would replace: name another folder' %
                                    (label, source, source_path))

    def _header(self) -> str:
        return ('%s made this folder; it may replace or remove the entries '
                'listed below, and nothing else' % self.tool)

    def _read_marker(self) -> List[str]:
        marker = os.path.join(self.path, self.marker)
        text = read_text(marker)
        lines = text.splitlines()
        if not lines or lines[0] != self._header():
            raise ToolError('%s is not the marker %s writes (from another '
                            'version?): remove the folder %s or name another' %
                            (marker, self.tool, self.path))
        return [line for line in lines[1:]
                if line and file_name_component(line) == line]

    def _write_marker(self) -> None:
        write_text(os.path.join(self.path, self.marker),
                   '\n'.join([self._header()] + self.listed) + '\n')

    def open(self) -> 'WorkFolder':
        """Makes the folder (or adopts the empty or marked one)."""
        if not self.opened:
            os.makedirs(self.path, exist_ok=True)
            self._write_marker()
            self.opened = True
        return self

    def _entry(self, name: str) -> str:
        if file_name_component(name) != name or name == self.marker:
            raise ToolError('%s: %r is not a plain file name' %
                            (self.path, name))
        path = os.path.join(self.path, name)
        for source, source_path in self.inputs:
            if same_file(path, source_path):
                raise ToolError('%s in %s %s is %s (%s): a run never writes '
                                'over what it reads' % (name, self.what,
                                                        self.path, source,
                                                        source_path))
        self.open()
        if name not in self.listed:
            self.listed.append(name)
            self._write_marker()
        return path

    def file(self, name: str) -> str:
        """The path of the entry `name`, listed as the tool's; an old entry
        of that name that is not a file is removed."""
        path = self._entry(name)
        if os.path.isdir(path) and not os.path.islink(path):
            _remove_tree(path)
        return path

    def folder(self, name: str) -> str:
        """The path of the fresh, empty folder `name` (an earlier one of the
        tool's is removed first)."""
        path = self._entry(name)
        if os.path.lexists(path):
            _remove_tree(path)
        os.mkdir(path)
        return path

    def adopt(self, path: str) -> None:
        """Lists `path`, an output of the run written into this folder, as
        the tool's (so a later run does not refuse the folder for it)."""
        folder = os.path.dirname(os.path.abspath(path))
        if folder == os.path.abspath(self.path):
            name = os.path.basename(path)
            if name not in self.listed and file_name_component(name) == name:
                self.open()
                self.listed.append(name)
                self._write_marker()

    def remove_listed(self) -> None:
        """Removes every entry an earlier run listed (the marker stays)."""
        for name in list(self.listed):
            path = os.path.join(self.path, name)
            if os.path.lexists(path):
                _remove_tree(path)
        self.listed = []
        if self.opened:
            self._write_marker()


def _remove_tree(path: str) -> None:
    """Removes a file, a symlink (not what it points to) or a folder."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)
