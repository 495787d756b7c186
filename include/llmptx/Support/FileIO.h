//===- FileIO.h - Reading and writing files that others can touch -*- C++ -*-=//
//
// Cache entries, bundles, results and reports live in folders a user (or
// another process) can plant anything in: a FIFO, a symlink to /dev/zero, a
// symlink named like the file about to be written. Every read of such a file
// goes through readRegularFile (never blocks, bounded size) and every write
// through writeFileAtomically (a fresh file renamed into place: readers see
// the old or the new content, never half, and a symlink at the path is
// replaced rather than followed).
//
// Header-only, POSIX: the LLVM-free runner uses it as well.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_SUPPORT_FILEIO_H
#define LLMPTX_SUPPORT_FILEIO_H

#include "llmptx/Support/UntrustedText.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace llmptx::untrusted {

/// Reads the whole of `path` into `contents` when it is a regular file (a
/// symlink to one is fine) of at most `maxBytes`; otherwise returns why not
/// ("not a regular file (a FIFO)", "larger than ... bytes", the errno text).
/// Opening never blocks: a FIFO, a device or a socket is refused after a
/// non-blocking open, so a planted /dev/zero or FIFO cannot hang a reader.
inline std::optional<std::string>
readRegularFile(const std::string &path, std::string &contents,
                uint64_t maxBytes = kMaxDocumentBytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::string(std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return std::string(std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return std::string("not a regular file (") +
           (S_ISDIR(info.st_mode)    ? "a directory"
            : S_ISFIFO(info.st_mode) ? "a FIFO"
            : S_ISCHR(info.st_mode)  ? "a character device"
            : S_ISBLK(info.st_mode)  ? "a block device"
            : S_ISSOCK(info.st_mode) ? "a socket"
                                     : "not a file") +
           ")";
  if (static_cast<uint64_t>(info.st_size) > maxBytes)
    return "larger than " + std::to_string(maxBytes) + " bytes (" +
           std::to_string(info.st_size) + ")";
  contents.clear();
  contents.reserve(static_cast<size_t>(info.st_size));
  char chunk[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return std::string(std::strerror(errno));
    if (got == 0)
      return std::nullopt;
    // The file may grow while it is read.
    if (contents.size() + static_cast<uint64_t>(got) > maxBytes)
      return "larger than " + std::to_string(maxBytes) + " bytes";
    contents.append(chunk, static_cast<size_t>(got));
  }
}

/// Writes all of `contents` to the open `fd`; the errno text on failure.
inline std::optional<std::string> writeAll(int fd, std::string_view contents) {
  for (size_t written = 0; written < contents.size();) {
    ssize_t put =
        ::write(fd, contents.data() + written, contents.size() - written);
    if (put < 0 && errno == EINTR)
      continue;
    if (put < 0)
      return std::string(std::strerror(errno));
    written += static_cast<size_t>(put);
  }
  return std::nullopt;
}

/// Writes `contents` into the character device or FIFO `path` names
/// (`-o /dev/null`, `-o /dev/stdout`, a pipe); the errno text on failure.
inline std::optional<std::string>
writeIntoSpecialFile(const std::string &path, std::string_view contents) {
  // Non-blocking open: a FIFO nobody reads is an error, not a hang; the
  // writes themselves block as usual.
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::string(std::strerror(errno));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::optional<std::string> problem = writeAll(fd, contents);
  ::close(fd);
  return problem;
}

/// What writeFileAtomically does with a file at the path that is not a
/// regular file.
enum class SpecialFiles {
  /// An output a user named (`-o`, `report=`, a bundle folder): a character
  /// device or a FIFO there (`/dev/null`, `/dev/stdout`, a pipe) is written
  /// into, anything else (a folder, a socket) refused. Renaming over
  /// /dev/null would replace the device for the whole machine.
  WriteInto,
  /// An entry of the tool's own store (the caches), a folder anyone may
  /// plant things in: whatever is there is replaced by the rename, so a
  /// planted FIFO cannot block or break the store.
  Replace,
};

/// Writes `contents` to `path` through a temporary file in the same folder
/// and rename(2). On failure (a full disk, no permission) the temporary file
/// is removed, whatever was at `path` is left as it was, and the error text
/// is returned. What is done with a special file at `path` (or behind a
/// symlink there) is `special`'s.
inline std::optional<std::string>
writeFileAtomically(const std::string &path, std::string_view contents,
                    SpecialFiles special = SpecialFiles::WriteInto) {
  struct stat existing;
  if (special == SpecialFiles::WriteInto &&
      ::stat(path.c_str(), &existing) == 0) {
    if (S_ISCHR(existing.st_mode) || S_ISFIFO(existing.st_mode))
      return writeIntoSpecialFile(path, contents);
    if (!S_ISREG(existing.st_mode))
      return std::string("not a regular file; not replaced");
  }
  std::string temporary = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0)
    return "cannot create a temporary file next to it: " +
           std::string(std::strerror(errno));
  // Past a file size limit (ulimit -f) write(2) raises SIGXFSZ, which would
  // kill the process and leave the temporary file behind; ignored, it is
  // an EFBIG error like a full disk.
  struct sigaction ignore = {}, previous = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGXFSZ, &ignore, &previous);
  struct Restore {
    struct sigaction &previous;
    ~Restore() { ::sigaction(SIGXFSZ, &previous, nullptr); }
  } restore{previous};
  auto fail = [&](int error) {
    ::close(fd);
    ::unlink(temporary.c_str());
    return std::string(std::strerror(error));
  };
  if (std::optional<std::string> problem = writeAll(fd, contents)) {
    ::close(fd);
    ::unlink(temporary.c_str());
    return problem;
  }
  // mkstemp creates 0600; give the file the mode an ordinary create would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0 && errno != EINVAL)
    return fail(errno);
  if (::close(fd) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return std::string(std::strerror(error));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return std::string(std::strerror(error));
  }
  return std::nullopt;
}

/// Whether `output` names the file `input` names (the same device and inode:
/// a link, a symlink or another spelling of the path counts), so a tool can
/// refuse to write over what it reads. False when either does not exist.
inline bool isSameFile(const std::string &input, const std::string &output) {
  struct stat in, out;
  if (::stat(input.c_str(), &in) != 0 || ::stat(output.c_str(), &out) != 0)
    return false;
  return in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

} // namespace llmptx::untrusted

#endif // LLMPTX_SUPPORT_FILEIO_H
