// How the readers of saved tool outputs get their text: by name through a function the caller
// gives (cmd/ reads files and "-" as stdin; tests give strings), so import/ opens nothing itself.
#pragma once

#include <functional>
#include <string>

#include "core/result.h"

namespace fabdiag {

/// Gives the whole text of one named input (a file name, or "-" for stdin where the caller
/// allows it). Errors name the input (kNotFound, kPermission, kIo, ...).
using InputTextReader = std::function<Result<std::string>(const std::string& name)>;

}  // namespace fabdiag
