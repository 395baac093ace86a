#include "core/line_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/device_input.h"
#include "core/text_encoding.h"

namespace fabdiag {
namespace {

constexpr size_t kChunkBytes = size_t{64} << 10;
// Bytes of one line skipped past its cut before the input is taken for no text at all.
constexpr size_t kMaxSkippedBytes = size_t{64} << 20;

Error open_error(int err, const std::string& path) {
  ErrorCode code = err == ENOENT                                      ? ErrorCode::kNotFound
                   : (err == EACCES || err == EPERM) ? ErrorCode::kPermission
                                                     : ErrorCode::kIo;
  return make_error(code, std::string("cannot open: ") + std::strerror(err), path);
}

// A descriptor read in chunks; closes it at the end when it owns it.
struct FdReader {
  FdReader(int f, bool o, std::string n) : fd(f), owned(o), name(std::move(n)) {}
  FdReader(const FdReader&) = delete;
  FdReader& operator=(const FdReader&) = delete;
  int fd;
  bool owned;
  std::string name;
  ~FdReader() {
    if (owned && fd >= 0) ::close(fd);
  }
  Result<size_t> read(char* buf, size_t size) const {
    for (;;) {
      ssize_t n = ::read(fd, buf, size);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      return make_error(ErrorCode::kIo, std::string("read failed: ") + std::strerror(errno), name);
    }
  }
};

std::unique_ptr<LineSource> reader_source(std::shared_ptr<FdReader> r) {
  return std::make_unique<ChunkLineSource>(
      [r = std::move(r)](char* buf, size_t size) { return r->read(buf, size); });
}

}  // namespace

std::string endless_input_kind(mode_t mode, dev_t rdev) {
  if (S_ISCHR(mode) && major(rdev) == 1 && minor(rdev) == 3) return "";  // /dev/null: empty
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  return "";
}

std::string endless_input_message(const std::string& kind) {
  return "is a " + kind + ", not a file: it may never end; give a saved output (or pipe it to '-')";
}

ChunkLineSource::ChunkLineSource(ChunkReader read, size_t max_line)
    : read_(std::move(read)), max_line_(max_line) {}

bool ChunkLineSource::refill() {
  if (eof_) return false;
  if (buf_.empty()) buf_.resize(kChunkBytes);
  auto n = read_(buf_.data(), buf_.size());
  if (!n) {
    error_ = n.error();
    eof_ = true;
    return false;
  }
  pos_ = 0;
  len_ = *n;
  bytes_read_ += *n;
  if (len_ == 0) eof_ = true;
  return len_ > 0;
}

std::optional<std::string_view> ChunkLineSource::next() {
  line_.clear();
  bool any = false, cut = false, ended = false;
  size_t skipped = 0;  // bytes of this line past max_line_
  while (!ended) {
    if (pos_ == len_ && !refill()) break;
    any = true;
    const char* start = buf_.data() + pos_;
    size_t avail = len_ - pos_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', avail));
    size_t n = nl ? static_cast<size_t>(nl - start) : avail;
    nul_bytes_ += static_cast<uint64_t>(std::count(start, start + n, '\0'));
    size_t room = max_line_ > line_.size() ? max_line_ - line_.size() : 0;
    if (n > room) cut = true;
    line_.append(start, std::min(n, room));
    pos_ += n;
    skipped += n - std::min(n, room);
    if (skipped > kMaxSkippedBytes) {
      // No newline in 64 MiB past the cut (a stream of NULs, '-' fed from /dev/zero): not a text
      // tool's output; reading stops instead of skipping a line that may never end.
      error_ = make_error(ErrorCode::kParse,
                          "line " + std::to_string(line_no_ + 1) + " runs past " + std::to_string((max_line_ + kMaxSkippedBytes) >> 20) +
                              " MiB without a newline: not the text of a tool; reading stopped",
                          "");
      eof_ = true;
      pos_ = len_;
      break;
    }
    if (nl) {
      ++pos_;
      ended = true;
    }
  }
  if (!any) return std::nullopt;
  unterminated_ = !ended;
  // A UTF-8 byte-order mark is no part of the first line (core/text_encoding.h).
  if (line_no_ == 0 && line_.compare(0, kUtf8Bom.size(), kUtf8Bom) == 0) line_.erase(0, kUtf8Bom.size());
  ++line_no_;
  if (cut) ++cut_lines_;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return std::string_view(line_);
}

std::unique_ptr<LineSource> text_line_source(std::string text) {
  auto held = std::make_shared<std::string>(std::move(text));
  auto at = std::make_shared<size_t>(0);
  return std::make_unique<ChunkLineSource>([held, at](char* buf, size_t size) -> Result<size_t> {
    size_t n = std::min(size, held->size() - *at);
    std::memcpy(buf, held->data() + *at, n);
    *at += n;
    return n;
  });
}

Result<std::unique_ptr<LineSource>> open_line_source(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return open_error(errno, path);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::kInvalidArgument, "is a directory, expected a file", path);
  }
  if (std::string kind = endless_input_kind(st.st_mode, st.st_rdev); !kind.empty()) {
    ::close(fd);
    return make_error(ErrorCode::kInvalidArgument, endless_input_message(kind), path);
  }
  return reader_source(std::make_shared<FdReader>(fd, true, path));
}

std::unique_ptr<LineSource> fd_line_source(int fd, const std::string& name) {
  return reader_source(std::make_shared<FdReader>(fd, false, name));
}

PeekedLineSource::PeekedLineSource(std::unique_ptr<LineSource> inner, size_t max_lines, size_t max_bytes)
    : inner_(std::move(inner)) {
  size_t bytes = 0;
  while (head_.size() < max_lines && bytes < max_bytes) {
    auto l = inner_->next();
    if (!l) {
      head_is_all_ = true;
      break;
    }
    head_.emplace_back(*l);
    bytes += l->size() + 1;
  }
}

std::optional<std::string_view> PeekedLineSource::next() {
  if (replayed_ < head_.size()) return std::string_view(head_[replayed_++]);
  if (head_is_all_) return std::nullopt;
  return inner_->next();
}

size_t PeekedLineSource::line_no() const {
  return replayed_ < head_.size() ? replayed_ : std::max(replayed_, inner_->line_no());
}

}  // namespace fabdiag
