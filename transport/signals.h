#pragma once
// Signal names as ssh reports them ("KILL", RFC 4254 6.10) and numbers as wait(2) does.
#include <string>

namespace pdx {

/// Signal number for a name such as "KILL" or "SIGKILL" (0 if unknown), and back
/// (the decimal number when the signal has no common name).
int signal_number(const std::string& name);
std::string signal_name(int number);

}  // namespace pdx
