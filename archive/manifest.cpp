#include "archive/manifest.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "archive/part_reader.h"
#include "archive/temp_file.h"
#include "hash/sha256.h"

namespace pdx {

namespace {

constexpr std::string_view kMagic = "# pdx manifest 1";

// The SHA-256 and size of a file, read once.
Result<Manifest::Part> hash_file(const std::string& path) {
  PartReader reader({path});
  TRY(reader.check_files());
  Sha256 hash;
  std::vector<char> buffer(1 << 20);
  std::uint64_t size = 0;
  for (;;) {
    auto n = TRY(reader.read(buffer.data(), buffer.size()));
    if (n == 0) break;
    hash.update(buffer.data(), n);
    size += n;
  }
  return Manifest::Part{path, size, hash.hex_digest()};
}

}  // namespace

Result<void> write_manifest(const std::string& path, const Manifest& manifest) {
  std::ostringstream text;
  text << kMagic << "\n# format " << manifest.format << "\n# files " << manifest.files
       << "\n# bytes " << manifest.bytes << "\n";
  for (const auto& part : manifest.parts)
    text << "# part " << part.size << " " << part.name << "\n";
  for (const auto& part : manifest.parts) text << part.sha256 << "  " << part.name << "\n";
  auto file = TRY(TempFile::create(path));
  std::string data = text.str();
  TRY(file.write(data.data(), data.size()));
  return file.commit();
}

Result<Manifest> read_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{path + ": cannot read the manifest"};
  std::string line;
  if (!std::getline(in, line) || line != kMagic) {
    return Error{path + ": not a pdx manifest (the first line is not '" + std::string(kMagic) +
                 "')"};
  }
  Manifest manifest;
  std::map<std::string, std::uint64_t> sizes;
  for (int number = 2; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string key;
    bool ok = true;
    if (line.rfind("# ", 0) == 0) {
      fields.ignore(2);
      fields >> key;
      if (key == "format") {
        ok = static_cast<bool>(fields >> manifest.format);
      } else if (key == "files") {
        ok = static_cast<bool>(fields >> manifest.files);
      } else if (key == "bytes") {
        ok = static_cast<bool>(fields >> manifest.bytes);
      } else if (key == "part") {
        std::uint64_t size;
        ok = static_cast<bool>(fields >> size) && fields.get() == ' ';
        if (ok) sizes[line.substr(static_cast<std::size_t>(fields.tellg()))] = size;
      }
    } else if (line.size() > 66 && line.substr(64, 2) == "  ") {
      std::string name = line.substr(66);
      ok = sizes.count(name) == 1;
      if (ok) manifest.parts.push_back({name, sizes[name], line.substr(0, 64)});
    } else {
      ok = line.empty();
    }
    if (!ok) return Error{path + ":" + std::to_string(number) + ": malformed manifest line"};
  }
  if (manifest.parts.empty()) return Error{path + ": the manifest lists no parts"};
  return manifest;
}

Result<void> verify_parts(const Manifest& manifest, const std::vector<std::string>& parts) {
  for (std::size_t i = 0; i < manifest.parts.size(); ++i) {
    const auto& want = manifest.parts[i];
    if (i >= parts.size())
      return Error{"missing part " + want.name + " (listed in the manifest)", ErrorKind::bad_input};
    std::string name = std::filesystem::path(parts[i]).filename().string();
    if (name != want.name) {
      return Error{parts[i] + ": the manifest lists " + want.name + " as part " + std::to_string(i),
                   ErrorKind::bad_input};
    }
    auto got = TRY(hash_file(parts[i]));
    if (got.size != want.size) {
      return Error{parts[i] + ": " + std::to_string(got.size) + " bytes, the manifest says " +
                       std::to_string(want.size) + ": the part is truncated or not the one packed",
                   ErrorKind::bad_input};
    }
    if (got.sha256 != want.sha256) {
      return Error{parts[i] + ": SHA-256 differs from the manifest's: the part is corrupt",
                   ErrorKind::bad_input};
    }
  }
  if (parts.size() > manifest.parts.size()) {
    return Error{parts[manifest.parts.size()] + ": not listed in the manifest",
                 ErrorKind::bad_input};
  }
  return {};
}

}  // namespace pdx
