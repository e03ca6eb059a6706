#include "transport/input_source.h"

namespace pdx {

InputPiece BytesInput::next() {
  if (taken_ >= bytes_.size()) return {InputPiece::State::end, {}, {}};
  return {InputPiece::State::data, std::string_view(bytes_).substr(taken_), {}};
}

}  // namespace pdx
