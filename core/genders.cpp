#include "core/genders.h"

#include <genders.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "base/error.h"
#include "base/strings.h"

namespace pdx {

namespace {

constexpr const char* kAltname = "altname";  // pdsh's GENDERS_ALTNAME_ATTRIBUTE
constexpr const char* kRcmdType = "pdsh_rcmd_type";

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

// pdsh's list_split_append: the comma-separated terms, empty ones dropped.
void append_terms(std::vector<std::string>& to, std::string_view arg) {
  for (std::size_t start = 0; start <= arg.size();) {
    std::size_t end = std::min(arg.find(',', start), arg.size());
    if (end > start) to.emplace_back(arg.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

struct Genders::Handle {
  genders_t gh = nullptr;
  // node -> altname and altname -> node, made on first use: one lookup each, not a query.
  std::optional<std::unordered_map<std::string, std::string>> alt_of, canonical_of;
  ~Handle() {
    if (gh) genders_handle_destroy(gh);
  }
  std::string message() const { return genders_errormsg(gh); }
};

Genders::Genders(std::unique_ptr<Handle> handle) : handle_(std::move(handle)) {}
Genders::Genders(Genders&&) noexcept = default;
Genders& Genders::operator=(Genders&&) noexcept = default;
Genders::~Genders() = default;

Result<Genders> Genders::load(const std::string& path) {
  auto handle = std::make_unique<Handle>();
  handle->gh = genders_handle_create();
  if (!handle->gh) return Error{"cannot create a genders handle (out of memory)"};
  if (genders_load_data(handle->gh, path.c_str()) < 0)
    return Error{path + ": " + handle->message() +
                 "; name the genders database with -F FILE (pdsh), --genders FILE (pdx) or "
                 "$PDSH_GENDERS_FILE"};
  return Genders(std::move(handle));
}

Result<std::vector<std::string>> Genders::query(const std::string& query) const {
  char** nodes = nullptr;
  int len = genders_nodelist_create(handle_->gh, &nodes);
  if (len < 0) return Error{"genders: " + handle_->message()};
  int n = genders_query(handle_->gh, nodes, len, query.empty() ? nullptr : query.c_str());
  std::vector<std::string> found;
  if (n >= 0) found.assign(nodes, nodes + n);
  std::string message = n < 0 ? handle_->message() : "";
  // libgenders 1.22's lexer keeps the rest of a query it could not parse, and the next query
  // (on any handle) matches nothing: one throwaway query takes it.
  if (n < 0 && genders_errnum(handle_->gh) == GENDERS_ERR_SYNTAX)
    genders_query(handle_->gh, nodes, len, "pdx_flush");
  genders_nodelist_destroy(handle_->gh, nodes);
  if (n < 0) return Error{"genders query '" + query + "': " + message, ErrorKind::bad_input};
  std::sort(found.begin(), found.end());
  return found;
}

std::optional<std::string> Genders::value(const std::string& node, const std::string& attr) const {
  genders_t gh = handle_->gh;
  int max = std::max(genders_getmaxvallen(gh), genders_getmaxnodelen(gh));
  if (max < 0) return std::nullopt;
  std::string val(std::size_t(max) + 1, '\0');
  int rc = genders_testattr(gh, node.c_str(), attr.c_str(), val.data(), int(val.size()));
  if (rc < 0 && genders_errnum(gh) == GENDERS_ERR_NOTFOUND && attr != kAltname) {
    // node may be an altname: ask the node it stands for.
    index_altnames();
    auto canonical = handle_->canonical_of->find(node);
    if (canonical == handle_->canonical_of->end()) return std::nullopt;
    rc = genders_testattr(gh, canonical->second.c_str(), attr.c_str(), val.data(), int(val.size()));
  }
  if (rc <= 0) return std::nullopt;
  val.resize(val.find('\0'));
  return val;
}

void Genders::index_altnames() const {
  if (handle_->alt_of) return;
  handle_->alt_of.emplace();
  handle_->canonical_of.emplace();
  auto nodes = query(kAltname);
  if (!nodes) return;
  for (const auto& node : *nodes) {
    auto alt = value(node, kAltname);
    if (!alt || alt->empty()) continue;
    handle_->alt_of->emplace(node, *alt);
    handle_->canonical_of->emplace(*alt, node);  // the first node (sorted), as pdsh's lookup
  }
}

std::string Genders::other_name(const std::string& name) const {
  index_altnames();
  if (auto alt = handle_->alt_of->find(name); alt != handle_->alt_of->end()) return alt->second;
  auto canonical = handle_->canonical_of->find(name);
  return canonical != handle_->canonical_of->end() ? canonical->second : name;
}

std::string genders_path(std::string_view file) {
  if (file.starts_with('/') || file.starts_with('.')) return std::string(file);
  const char* dir = env("PDSH_GENDERS_DIR");
  return std::string(dir ? dir : "/etc") + "/" + std::string(file);
}

bool GendersOptions::apply(char c, std::string_view arg) {
  switch (c) {
    case 'g':
      append_terms(queries, arg);
      break;
    case 'X':
      append_terms(excludes, arg);
      break;
    case 'a':
      excludes.emplace_back("pdsh_all_skip");
      all = true;
      break;
    case 'A':
      all = true;
      break;
    case 'i':
      alternate = true;
      break;
    case 'F':
      file = arg;
      break;
    default:
      return false;
  }
  given = true;
  return true;
}

namespace {

// The nodes matching any of the queries, with their alternate names when `with_altnames`.
std::set<std::string> matching(const Genders& g, const std::vector<std::string>& queries,
                               bool with_altnames) {
  std::set<std::string> names;
  for (const auto& q : queries) {
    auto found = g.query(q);
    if (!found) throw UsageError(found.error());
    for (const auto& name : *found) {
      names.insert(name);
      if (with_altnames) names.insert(g.other_name(name));
    }
  }
  return names;
}

std::string database_file(const GendersOptions& o) {
  if (!o.file.empty()) return genders_path(o.file);
  const char* file = env("PDSH_GENDERS_FILE");
  return genders_path(file ? file : "genders");
}

// pdsh_rcmd_type = [user@][rcmd]: the user for hosts -w named none; the rcmd kept by module.
void apply_rcmd_types(const Genders& g, GendersHosts& run) {
  for (auto& host : run.hosts) {
    auto type = g.value(host.name, kRcmdType);
    if (!type) continue;
    std::size_t at = type->find('@');
    if (at != std::string::npos && host.user.empty()) host.user = type->substr(0, at);
    std::string module = at == std::string::npos ? *type : type->substr(at + 1);
    if (!module.empty()) run.rcmd_types[module].push_back(host.label());
  }
}

}  // namespace

std::vector<std::string> GendersHosts::warnings(std::string_view rcmd) const {
  std::vector<std::string> lines;
  for (const auto& [module, labels] : rcmd_types)
    if (module != rcmd)
      lines.push_back("genders pdsh_rcmd_type gives " + fold_names(labels) + " rcmd " + module +
                      "; pdx reaches every host of a run with " + std::string(rcmd) + " (-R)");
  return lines;
}

GendersHosts genders_hosts(const GendersOptions& o, const std::vector<std::string>& include,
                           const HostResolver& resolve) {
  if (o.all && !o.queries.empty()) throw UsageError("do not give -a or -A with -g");
  GendersHosts run;
  std::optional<Genders> g;
  auto loaded = Genders::load(database_file(o));
  if (loaded)
    g.emplace(std::move(*loaded));
  else if (o.given)
    throw FatalError(loaded.error());

  // Filled from the database: -g or -a/-A without -w (pdsh: before $WCOLL).
  bool filled = g && include.empty() && (o.all || !o.queries.empty());
  if (filled) {
    std::set<std::string> names =
        matching(*g, o.all ? std::vector<std::string>{""} : o.queries, false);
    if (names.empty())
      throw UsageError(o.all ? "no hosts in the genders database " + database_file(o)
                             : "no hosts in the genders database match -g " + join(o.queries, ","));
    run.hosts = resolve({join({names.begin(), names.end()}, ",")});
  } else {
    run.hosts = resolve(include);
  }
  if (!g) return run;

  auto keep = [&run](auto&& keep_host) {
    std::erase_if(run.hosts, [&](const Host& h) { return !keep_host(h); });
  };
  if (!filled && !o.queries.empty()) {
    std::set<std::string> wanted = matching(*g, o.queries, true);
    keep([&](const Host& h) { return wanted.contains(h.name); });
  }
  if (!o.excludes.empty()) {
    std::set<std::string> unwanted = matching(*g, o.excludes, true);
    keep([&](const Host& h) { return !unwanted.contains(h.name); });
  }
  if (filled != o.alternate)
    for (auto& host : run.hosts) host.name = g->other_name(host.name);
  if (run.hosts.empty()) throw UsageError("no hosts left after the genders options -g and -X");
  apply_rcmd_types(*g, run);
  return run;
}

}  // namespace pdx
