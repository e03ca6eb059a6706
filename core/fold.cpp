// Folding: the inverse of expansion, node01,node02,node04 -> node[01-02,04].
//
// Each name is an item (head, tail): the literal text where the next number is looked for, and
// the already folded text after it. A pass takes the last number of every head, groups items that
// differ only in that number, and writes each group's numbers as one bracket in front of its
// tail. Passes repeat until no head holds a number, so rack1-node1..rack2-node4 first becomes
// rack1-node[1-4], rack2-node[1-4] and then rack[1-2]-node[1-4]. Every step only rewrites a set
// of names as a product that expands to exactly that set, which is what keeps the round trip.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <tuple>

#include "core/hostset.h"
#include "core/padded_number.h"

namespace pdx {
namespace {

// Longer numbers are left as text: their values would not fit in uint64_t (nor in a bracket).
constexpr std::size_t kMaxDigits = 18;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

struct Item {
  std::string head;
  std::string tail;
  bool frozen = false;  // head holds no number left to fold
};

/// One unfrozen item seen through its head's last number.
struct Entry {
  std::string_view prefix, suffix;  // head around the number
  std::string_view tail;
  std::uint64_t value = 0;
  std::size_t digits = 0;  // as written
  std::size_t pad = 0;     // digits when written with a leading zero, else 0
};

/// The first item of a name: IPv6 addresses and anything bracketed stay whole; in "name:port"
/// only the name folds.
Item first_item(const std::string& name) {
  auto colons = std::count(name.begin(), name.end(), ':');
  if (colons >= 2 || name.find_first_of("[],") != std::string::npos) return {name, "", true};
  auto colon = name.find(':');
  if (colon == std::string::npos) return {name, "", false};
  return {name.substr(0, colon), name.substr(colon), false};
}

/// Reads the last number of item's head into entry; false when there is none to fold.
bool last_number(const Item& item, Entry& entry) {
  std::string_view head = item.head;
  auto end = head.find_last_of("0123456789");
  if (end == std::string_view::npos) return false;
  auto begin = end;
  while (begin > 0 && is_digit(head[begin - 1])) --begin;
  std::string_view digits = head.substr(begin, end + 1 - begin);
  if (digits.size() > kMaxDigits) return false;
  entry.prefix = head.substr(0, begin);
  entry.suffix = head.substr(end + 1);
  entry.tail = item.tail;
  std::from_chars(digits.data(), digits.data() + digits.size(), entry.value);
  entry.digits = digits.size();
  entry.pad = digits.size() > 1 && digits[0] == '0' ? digits.size() : 0;
  return true;
}

bool same_group(const Entry& a, const Entry& b) {
  return a.prefix == b.prefix && a.suffix == b.suffix && a.tail == b.tail;
}

struct Run {
  std::uint64_t lo, hi;
  std::size_t width;       // 0: not padded
  std::uint64_t step = 1;  // lo, lo + step, ... hi
};

/// Consecutive numbers of one group (sorted by value, then padding) as ranges. A padded number
/// only continues a run of its own width; an unpadded one of n digits also continues a run
/// padded to at most n digits (n09,n10 -> n[09-10]), since padding leaves it unchanged. Expanding
/// a range pads every value to the run's width, so each run expands to exactly its names.
std::vector<Run> runs_of(const Entry* first, const Entry* last) {
  std::vector<Run> runs;
  std::array<std::size_t, kMaxDigits + 1> latest;  // latest run of each width
  latest.fill(kNone);
  auto continues = [&](std::size_t width, std::uint64_t value) {
    return latest[width] != kNone && runs[latest[width]].hi + 1 == value;
  };
  for (const Entry* e = first; e != last; ++e) {
    std::size_t pick = kNone;
    if (e->pad > 0) {
      if (continues(e->pad, e->value)) pick = latest[e->pad];
    } else {
      for (std::size_t w = e->digits; w >= 2 && pick == kNone; --w) {
        if (continues(w, e->value)) pick = latest[w];
      }
      if (pick == kNone && continues(0, e->value)) pick = latest[0];
    }
    if (pick != kNone) {
      runs[pick].hi = e->value;
    } else {
      latest[e->pad] = runs.size();
      runs.push_back(Run{e->value, e->value, e->pad});
    }
  }
  return runs;
}

/// Appends the numbers v (sorted, one width) to out in the fewest pieces, each a single number or
/// an even progression of at least `autostep` numbers (1,3,5 -> 1-5/2); a tie goes to a single
/// number, then to the longer piece. From the end: a piece from v[i] ends at i, at the end of the
/// longest progression from i, or one before it (leaving that number to the progression it starts);
/// any other end would leave the rest of that progression as a piece it could have joined.
void add_progressions(const std::vector<std::uint64_t>& v, std::size_t width, std::size_t autostep,
                      std::vector<Run>& out) {
  std::size_t n = v.size();
  std::vector<std::size_t> longest(n), piece_end(n), pieces(n + 1, 0);  // pieces from i to the end
  for (std::size_t i = n; i-- > 0;) {
    bool same_step = i + 2 < n && v[i + 2] - v[i + 1] == v[i + 1] - v[i];
    longest[i] = same_step ? longest[i + 1] : std::min(i + 1, n - 1);
    piece_end[i] = i;
    pieces[i] = 1 + pieces[i + 1];
    if (longest[i] == i) continue;
    for (std::size_t end : {longest[i], longest[i] - 1}) {
      if (end > i && end - i + 1 >= autostep && 1 + pieces[end + 1] < pieces[i]) {
        pieces[i] = 1 + pieces[end + 1];
        piece_end[i] = end;
      }
    }
  }
  for (std::size_t i = 0; i < n; i = piece_end[i] + 1) {
    std::size_t end = piece_end[i];
    out.push_back(Run{v[i], v[end], width, end > i ? v[i + 1] - v[i] : 1});
  }
}

/// The runs with their single numbers of each width folded into even progressions, as
/// ClusterShell's autostep does; runs of consecutive numbers stay as they are. Sorted by first
/// number, then width.
std::vector<Run> with_steps(const std::vector<Run>& runs, std::size_t autostep) {
  std::vector<Run> out;
  std::array<std::vector<std::uint64_t>, kMaxDigits + 1> singles;  // by width, in order
  for (const Run& run : runs) {
    if (run.lo == run.hi) {
      singles[run.width].push_back(run.lo);
    } else {
      out.push_back(run);
    }
  }
  for (std::size_t width = 0; width < singles.size(); ++width) {
    add_progressions(singles[width], width, autostep, out);
  }
  std::sort(out.begin(), out.end(), [](const Run& a, const Run& b) {
    return std::tie(a.lo, a.width) < std::tie(b.lo, b.width);
  });
  return out;
}

/// The group's numbers as written in a name: "7", "07" or "[01-04,07]" ("[1-9/2]" with autostep).
std::string render(const Entry* first, const Entry* last, std::size_t autostep) {
  std::string out;
  if (last - first == 1) {
    append_number(out, first->value, first->pad);
    return out;
  }
  std::vector<Run> runs = runs_of(first, last);
  if (autostep > 0) runs = with_steps(runs, autostep);
  out += '[';
  for (const Run& run : runs) {
    if (out.size() > 1) out += ',';
    append_range(out, run.lo, run.hi, run.step, run.width);
  }
  out += ']';
  return out;
}

/// One pass; returns false when every item was already frozen (nothing changed).
bool fold_pass(std::vector<Item>& items, std::size_t autostep) {
  std::vector<Item> next;
  std::vector<Entry> entries;
  for (Item& item : items) {
    Entry entry;
    if (item.frozen) {
      next.push_back(std::move(item));
    } else if (last_number(item, entry)) {
      entries.push_back(entry);
    } else {
      item.frozen = true;
      next.push_back(std::move(item));
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.prefix, a.suffix, a.tail, a.value, a.pad) <
           std::tie(b.prefix, b.suffix, b.tail, b.value, b.pad);
  });
  for (auto group = entries.begin(); group != entries.end();) {
    auto end = std::find_if_not(group, entries.end(),
                                [&](const Entry& e) { return same_group(*group, e); });
    std::string tail = render(&*group, &*group + (end - group), autostep);
    tail += group->suffix;
    tail += group->tail;
    next.push_back(Item{std::string(group->prefix), std::move(tail), false});
    group = end;
  }
  // entries view the old items' strings: replace them only now.
  items = std::move(next);
  return !entries.empty();
}

/// Orders numbers by value where both strings hold one at the same place (n2 before n10), a
/// bracket by its first number (n[1-2]:22 before n3:22), and breaks ties by plain comparison.
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == '[') ++i;
    if (b[j] == '[') ++j;
    if (i == a.size() || j == b.size()) break;
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::string_view x = a.substr(i, a.find_first_not_of("0123456789", i) - i);
      std::string_view y = b.substr(j, b.find_first_not_of("0123456789", j) - j);
      auto xs = std::min(x.find_first_not_of('0'), x.size());
      auto ys = std::min(y.find_first_not_of('0'), y.size());
      if (x.size() - xs != y.size() - ys) return x.size() - xs < y.size() - ys;
      if (x.substr(xs) != y.substr(ys)) return x.substr(xs) < y.substr(ys);
      if (x.size() != y.size()) return x.size() < y.size();
      i += x.size();
      j += y.size();
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

}  // namespace

std::string fold_names(const std::vector<std::string>& names, std::size_t autostep) {
  std::vector<std::string> unique(names);
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());

  std::vector<Item> items;
  items.reserve(unique.size());
  for (const auto& name : unique) items.push_back(first_item(name));
  while (fold_pass(items, autostep)) {
  }

  std::vector<std::string> folded;
  folded.reserve(items.size());
  for (Item& item : items) folded.push_back(std::move(item.head) + item.tail);
  std::sort(folded.begin(), folded.end(), natural_less);
  std::string out;
  for (const auto& term : folded) {
    if (!out.empty()) out += ',';
    out += term;
  }
  return out;
}

}  // namespace pdx
