#pragma once
// Asio's awaitable, for every file that uses coroutines. Boost 1.74's awaitable.hpp uses
// std::exchange without including <utility>: include it through here, before other Asio headers.
#include <utility>

#include <boost/asio/awaitable.hpp>
