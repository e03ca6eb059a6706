#pragma once
// How a transport names a timeout in a host's error text: "10s", "1.5s".
#include <chrono>
#include <string>

namespace pdx {

std::string format_seconds(std::chrono::milliseconds d);

}  // namespace pdx
