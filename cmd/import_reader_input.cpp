#include "cmd/import_reader_input.h"

#include "cmd/input.h"

namespace fabdiag::cmd {

Result<std::unique_ptr<PeekedLineSource>> open_reader_input(const std::string& file, ToolText tool) {
  auto opened = open_input_lines(file);
  if (!opened) return opened.error();
  auto lines = std::make_unique<PeekedLineSource>(std::move(*opened), 256);
  if (auto st = check_named_tool(tool, lines->head(), file); !st) return st.error();
  return lines;
}

}  // namespace fabdiag::cmd
