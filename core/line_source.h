// Lines of an input, one at a time, in bounded memory: the readers of saved tool outputs
// (import/) stream their input through this instead of holding the whole file, so a 1 GB
// capture costs what its largest record costs, not what the file costs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// The longest line kept, in bytes (4 MiB). A longer line (a binary file without newlines, a
/// runaway log line) is cut there and the rest of it skipped: LineSource::cut_lines() counts them.
inline constexpr size_t kMaxLineBytes = size_t{4} << 20;

/// A sequence of lines. next() returns each line without its '\n' (and without a trailing '\r'),
/// valid until the next call; nullopt at the end of the input or after a read error (error()).
class LineSource {
 public:
  virtual ~LineSource() = default;
  /// The next line, or nullopt at the end (or after a read error: see error()).
  virtual std::optional<std::string_view> next() = 0;
  /// 1-based number of the line next() returned last (0 before the first).
  virtual size_t line_no() const = 0;
  /// Lines cut at kMaxLineBytes so far.
  virtual size_t cut_lines() const = 0;
  /// NUL bytes seen so far (text tools never print one: a binary input).
  virtual uint64_t nul_bytes() const = 0;
  /// Bytes consumed so far.
  virtual uint64_t bytes_read() const = 0;
  /// The read error that ended the input early (kIo naming the input), if any.
  virtual const std::optional<Error>& error() const = 0;
  /// True when the line next() returned last ended without a '\n': read once next() gave
  /// nullopt, it says the input's last line was cut (a log copied while being written).
  virtual bool unterminated() const { return false; }
};

/// Gives up to `size` bytes of the input into `buf`: the count (0 = end of input), or an error.
using ChunkReader = std::function<Result<size_t>(char* buf, size_t size)>;

/// Splits what a ChunkReader gives into lines (64 KiB reads; lines up to `max_line` bytes).
class ChunkLineSource final : public LineSource {
 public:
  explicit ChunkLineSource(ChunkReader read, size_t max_line = kMaxLineBytes);
  std::optional<std::string_view> next() override;
  size_t line_no() const override { return line_no_; }
  size_t cut_lines() const override { return cut_lines_; }
  uint64_t nul_bytes() const override { return nul_bytes_; }
  uint64_t bytes_read() const override { return bytes_read_; }
  const std::optional<Error>& error() const override { return error_; }
  bool unterminated() const override { return unterminated_; }

 private:
  bool refill();
  ChunkReader read_;
  size_t max_line_;
  std::string buf_;
  size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  std::string line_;
  size_t line_no_ = 0, cut_lines_ = 0;
  uint64_t nul_bytes_ = 0, bytes_read_ = 0;
  bool unterminated_ = false;
  std::optional<Error> error_;
};

/// Lines of a text held in memory (tests, small inputs). The text is copied.
std::unique_ptr<LineSource> text_line_source(std::string text);

/// Lines of the regular file `path`, read as they are needed.
/// Errors: kInvalidArgument for a directory, kNotFound, kPermission, kIo naming `path`.
Result<std::unique_ptr<LineSource>> open_line_source(const std::string& path);

/// Lines of an open descriptor (stdin: 0), not closed at the end; read errors name `name`.
std::unique_ptr<LineSource> fd_line_source(int fd, const std::string& name);

/// The first lines of a source kept for a look (format detection), then handed out again:
/// next() replays them before reading on. Memory: at most `max_lines` lines, and reading ahead
/// stops once they hold `max_bytes` (the line that crosses it is kept whole).
class PeekedLineSource final : public LineSource {
 public:
  /// Reads up to `max_lines` lines (about `max_bytes`) of `inner` now.
  PeekedLineSource(std::unique_ptr<LineSource> inner, size_t max_lines, size_t max_bytes = size_t{1} << 20);
  /// The lines read ahead (line i has number i + 1).
  const std::vector<std::string>& head() const { return head_; }
  /// True when the whole input fit in head().
  bool head_is_all() const { return head_is_all_; }
  std::optional<std::string_view> next() override;
  size_t line_no() const override;
  size_t cut_lines() const override { return inner_->cut_lines(); }
  uint64_t nul_bytes() const override { return inner_->nul_bytes(); }
  uint64_t bytes_read() const override { return inner_->bytes_read(); }
  const std::optional<Error>& error() const override { return inner_->error(); }
  bool unterminated() const override { return inner_->unterminated(); }

 private:
  std::unique_ptr<LineSource> inner_;
  std::vector<std::string> head_;
  size_t replayed_ = 0;
  bool head_is_all_ = false;
};

}  // namespace fabdiag
