// The shell prompt an operator's paste keeps in front of a switch command
// ("admin@leaf01:~$ show interfaces counters detailed Ethernet4",
// "cumulus@leaf01:mgmt:~$ nv show interface swp1 counters", "root@sonic:/home/admin# portstat -l").
// Switch outputs often name neither the switch nor the port they are about (SONiC's detailed
// counters, NVUE's per-interface tables): the prompt line before them does. Used by the SONiC
// interface counters and the Cumulus NVUE interface readers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fabdiag {

/// One prompt line split up.
struct ShellPrompt {
  std::string user;     ///< "admin".
  std::string host;     ///< "leaf01": between '@' and the first ':' (or the '$'/'#').
  std::string command;  ///< "show interfaces counters detailed Ethernet4" (trimmed; may be empty).
};

/// Reads "USER@HOST:PATH$ COMMAND" or "USER@HOST:PATH# COMMAND" (PATH may hold ':' as in
/// Cumulus' "mgmt:~"; "USER@HOST$" without a path too). nullopt for any other line: the first
/// word must hold one '@' with a non-empty user and host, and end in '$' or '#'.
std::optional<ShellPrompt> parse_shell_prompt(std::string_view line);

/// The word of `command` after the words `after` ("show interfaces counters detailed Ethernet4",
/// {"detailed"} -> "Ethernet4"); "" when absent.
std::string command_word_after(const std::string& command, std::string_view after);

}  // namespace fabdiag
