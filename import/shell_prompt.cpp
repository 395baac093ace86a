#include "import/shell_prompt.h"

#include "core/text.h"

namespace fabdiag {

std::optional<ShellPrompt> parse_shell_prompt(std::string_view line) {
  std::string t = trim(line);
  size_t end = t.find_first_of(" \t");
  std::string word = t.substr(0, end);
  if (word.size() < 4 || (word.back() != '$' && word.back() != '#')) return std::nullopt;
  size_t at = word.find('@');
  if (at == std::string::npos || at == 0 || word.find('@', at + 1) != std::string::npos) return std::nullopt;
  size_t host_end = word.find(':', at);
  if (host_end == std::string::npos) host_end = word.size() - 1;
  ShellPrompt p;
  p.user = word.substr(0, at);
  p.host = word.substr(at + 1, host_end - at - 1);
  if (p.host.empty() || p.host.find_first_of("/~") != std::string::npos) return std::nullopt;
  p.command = end == std::string::npos ? "" : trim(t.substr(end));
  return p;
}

std::string command_word_after(const std::string& command, std::string_view after) {
  auto w = split_ws(command);
  for (size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i] == after) return w[i + 1];
  return "";
}

}  // namespace fabdiag
