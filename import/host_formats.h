// Saved tool outputs -> HostFacts, for `fabdiag check --from FILE...` and `fabdiag import`:
// format detection, case files in "### <what>" sections, the NCCL WARN completion errors, and
// dispatch to the lspci / ibstat / ibstatus / ibv_devinfo importers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "probes/check/check_model.h"
#include "import/format_detect.h"
#include "import/input_reader.h"
#include "import/text_sections.h"

namespace fabdiag {

/// Formats `check --from` understands.
enum class InputFormat { kAuto, kLspci, kIbstat, kIbstatus, kIbvDevinfo, kNcclLog };
/// "auto", "lspci", "ibstat", "ibstatus", "ibv-devinfo", "nccl-log".
const char* to_string(InputFormat f);
/// Parses the names above; nullopt for anything else.
std::optional<InputFormat> parse_input_format(const std::string& name);

/// The tool of a format (import/format_detect.h); kUnknown for kAuto.
ToolText tool_of(InputFormat f);

/// Recognizes a text by the markers of import/format_detect.h (marker_of_line()): "hca_id:" -> ibv_devinfo; "CA '<name>'" -> ibstat; "Infiniband device
/// '<name>' port <n> status:" -> ibstatus; a "17:00.0 <class>: ..." header or an ACSCtl/LnkSta
/// line -> lspci; "NCCL WARN" / "NCCL INFO" -> NCCL log. kAuto when none matches.
InputFormat detect_format(std::string_view text);

/// Work-completion errors in NCCL log lines: "Got completion ... with error <n>, opcode <o>,
/// len <l>, vendor err <v>" (older NCCL) and "... with status=<NAME>(<n>) opcode=<NAME>(<o>) ...
/// vendor_err=<v> ... hca <dev>" (newer). Sources are "SOURCE line N".
/// One such line: the error with `line` = the trimmed line and `source` empty; nullopt for a
/// line that is not a completion error (no "Got completion", no status, a status past 255).
std::optional<WcError> parse_nccl_wc_error_line(std::string_view line);

std::vector<WcError> parse_nccl_wc_errors(std::string_view text, const std::string& source, int first_line = 1);

/// Imports one input, streamed a "###" section at a time (memory: the largest section and the
/// distinct facts): every section is parsed as `format` (or as what detect_format says when
/// kAuto) and the facts are merged (import/host_facts_merge.h: a link, port or counter read again
/// replaces the earlier record in its place; origin lists the distinct origins). A section that
/// cannot be recognized or parsed becomes a gap; gaps past limits.max_listed of one kind are
/// summarised. As ibstat, ibstatus or ibv_devinfo, a section is also read in parts of about
/// 1 MiB cut before a CA, port or hca_id (SectionReader::cut_at_records()), so a file of repeated
/// captures without "###" lines is not held whole; an lspci section is (its functions refer to
/// each other), as is a kAuto one. With `lspci_listings` (an array), the listing of each lspci section
/// (parse_lspci()) is appended to it, a listing of the same functions read again replacing the
/// earlier one (import/lspci_listings.h).
/// Errors: kParse naming `source` when no section gives any fact (nothing recognized); the read
/// error of `lines`.
Result<HostFacts> import_host_facts(LineSource& lines, const std::string& source, InputFormat format,
                                    const ReadLimits& limits, nlohmann::json* lspci_listings);

/// The same over a text held in memory, every gap listed.
Result<HostFacts> import_host_facts(std::string_view text, const std::string& source, InputFormat format);

/// The data of the fabdiag.hostfacts/1 document of one imported file: `facts` as JSON and, for
/// kLspci, "lspci": the listing of every "###" section of `text` that parses (every function,
/// not only the facts the rules read; parse_lspci()), a repeated listing kept once, as
/// import_host_facts() keeps it.
nlohmann::json host_facts_data(const HostFacts& facts, std::string_view text, const std::string& source,
                               InputFormat format);

/// The same with the lspci listings already read (import_host_facts(lines, ..., &listings)).
nlohmann::json host_facts_data(const HostFacts& facts, nlohmann::json lspci_listings, InputFormat format);

/// `fabdiag check --from FILE...`: each file's text through `read`, imported
/// (import_host_facts()) and merged in order (import/host_facts_merge.h: a link, port or counter
/// of the same key in a later file replaces the earlier one; different ones are all kept).
/// Errors, at the first file that fails: those of `read` and of import_host_facts().
Result<HostFacts> import_host_files(const std::vector<std::string>& files, const InputTextReader& read,
                                    InputFormat format);

}  // namespace fabdiag
