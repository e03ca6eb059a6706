#pragma once
// `-R exec`: runs each host's command on this machine through /bin/sh -c, as pdsh's exec module.
#include <memory>

namespace pdx {

class Transport;

std::unique_ptr<Transport> make_local_transport();

}  // namespace pdx
