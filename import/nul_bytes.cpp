#include "import/nul_bytes.h"

#include <algorithm>

#include "import/common.h"

namespace fabdiag {

void NulTally::see(std::string_view line, size_t line_no) {
  const auto n = static_cast<uint64_t>(std::count(line.begin(), line.end(), '\0'));
  if (n == 0) return;
  bytes += n;
  if (lines++ == 0) first_line = line_no;
}

void add_nul_gap(std::vector<Error>& gaps, const std::string& source, const NulTally& nuls) {
  if (nuls.bytes == 0) return;
  gaps.push_back(make_error(ErrorCode::kParse,
                            std::to_string(nuls.bytes) + " NUL byte(s) on " + std::to_string(nuls.lines) +
                                " line(s) (binary data inside the text), the first here; those lines are not text and "
                                "were not understood, the rest was read",
                            line_source(source, nuls.first_line)));
}

}  // namespace fabdiag
