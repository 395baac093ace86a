// How the readers of saved tool outputs get their text: by name through a function the caller
// gives (cmd/ reads files and "-" as stdin; tests give strings), so import/ opens nothing itself.
// Readers take lines (core/line_source.h): they stream, holding one record at a time.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/line_source.h"
#include "core/repeats.h"
#include "core/result.h"

namespace fabdiag {

/// Gives the whole text of one named input (a file name, or "-" for stdin where the caller
/// allows it). Errors name the input (kNotFound, kPermission, kIo, ...).
using InputTextReader = std::function<Result<std::string>(const std::string& name)>;

/// Opens one named input as lines, read as they are needed. Errors as InputTextReader.
using InputLineReader = std::function<Result<std::unique_ptr<LineSource>>(const std::string& name)>;

/// An InputLineReader over an InputTextReader (tests: texts held in memory).
inline InputLineReader line_reader_of(InputTextReader read) {
  return [read = std::move(read)](const std::string& name) -> Result<std::unique_ptr<LineSource>> {
    auto text = read(name);
    if (!text) return text.error();
    return text_line_source(std::move(*text));
  };
}

/// How much of a huge input a reader lists: at most `max_listed` entries of each kind of
/// repeat (gaps of one kind, nccl-tests result tables, findings of one code); the others are
/// counted and summarised ("... and 12345 more like this"). 0 = no limit.
/// `fabdiag import --max-findings N` (default core/repeats.h kDefaultMaxListed = 200).
struct ReadLimits {
  size_t max_listed = kDefaultMaxListed;
};

}  // namespace fabdiag
