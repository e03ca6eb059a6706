#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/hostset.h"

namespace pdx {
namespace {

using Names = std::vector<std::string>;

std::string fold(const Names& names) {
  return fold_names(names);
}

TEST(FoldNames, RangesAndLists) {
  EXPECT_EQ(fold({"node01", "node02", "node04"}), "node[01-02,04]");
  EXPECT_EQ(fold(expand_names("node[01-16,18-64]")), "node[01-16,18-64]");
  EXPECT_EQ(fold({"n3", "n1", "n2", "n10", "n7"}), "n[1-3,7,10]");
}

TEST(FoldNames, SingleNamesStayPlain) {
  EXPECT_EQ(fold({"node07"}), "node07");
  EXPECT_EQ(fold({"a", "b"}), "a,b");
  EXPECT_EQ(fold({}), "");
}

TEST(FoldNames, SortedAndDeduplicated) {
  EXPECT_EQ(fold({"n2", "n1", "n2", "n1"}), "n[1-2]");
  EXPECT_EQ(fold({"b1", "a2", "a1"}), "a[1-2],b1");
  EXPECT_EQ(fold({"x10y", "x2z", "x9y"}), "x2z,x[9-10]y");
}

TEST(FoldNames, PaddingWidthsKeptApartAndCorrect) {
  EXPECT_EQ(fold({"n9", "n10"}), "n[9-10]");
  EXPECT_EQ(fold({"n09", "n10"}), "n[09-10]");
  EXPECT_EQ(fold({"n1", "n01"}), "n[1,01]");
  EXPECT_EQ(fold({"n8", "n09"}), "n[8,09]");
  EXPECT_EQ(fold({"n098", "n099", "n100", "n101"}), "n[098-101]");
  EXPECT_EQ(fold({"n0", "n00", "n1", "n01"}), "n[0-1,00-01]");
}

TEST(FoldNames, AroundTheLastNumber) {
  EXPECT_EQ(fold({"a1b2", "a1b3"}), "a1b[2-3]");
  EXPECT_EQ(fold({"n1-ib", "n2-ib", "n1"}), "n1,n[1-2]-ib");
}

TEST(FoldNames, SeveralDimensions) {
  EXPECT_EQ(fold(expand_names("rack[1-2]-node[01-04]")), "rack[1-2]-node[01-04]");
  EXPECT_EQ(fold({"a1b1", "a2b1"}), "a[1-2]b1");
  EXPECT_EQ(fold(expand_names("10.0.[0-3].[1-254]")), "10.0.[0-3].[1-254]");
}

TEST(FoldNames, NamesWithoutDigits) {
  EXPECT_EQ(fold({"login", "gpu1", "gpu2", "head"}), "gpu[1-2],head,login");
}

TEST(FoldNames, PortsStayOutsideTheBrackets) {
  EXPECT_EQ(fold({"127.0.0.1:2222", "127.0.0.2:2222", "127.0.0.3:2223"}),
            "127.0.0.[1-2]:2222,127.0.0.3:2223");
}

TEST(FoldNames, Ipv6IsLeftAsIs) {
  EXPECT_EQ(fold({"fe80::2", "fe80::1", "[::1]:22", "[::1]:23"}),
            "[::1]:22,[::1]:23,fe80::1,fe80::2");
}

TEST(FoldNames, HugeNumbersStayText) {
  EXPECT_EQ(fold({"n1234567890123456789", "n1234567890123456790"}),
            "n1234567890123456789,n1234567890123456790");
}

TEST(FoldNames, NoStepsUnlessAsked) {
  EXPECT_EQ(fold(expand_names("n[1-9/2]")), "n[1,3,5,7,9]");
}

TEST(FoldNames, AutostepFoldsEvenSteps) {
  EXPECT_EQ(fold_names(expand_names("n[1-9/2]"), 3), "n[1-9/2]");
  EXPECT_EQ(fold_names({"n1", "n3"}, 3), "n[1,3]");
  EXPECT_EQ(fold_names({"n1", "n3"}, 2), "n[1-3/2]");
  EXPECT_EQ(fold_names({"n1", "n3", "n5"}, 4), "n[1,3,5]");
  EXPECT_EQ(fold_names(expand_names("n[1-10/3,20]"), 3), "n[1-10/3,20]");
  EXPECT_EQ(fold_names(expand_names("n[01-10/2]"), 3), "n[01-09/2]");
  EXPECT_EQ(fold_names(expand_names("n[1-5,7,9,11]"), 3), "n[1-5,7-11/2]");
  // The fewest pieces: a progression's last number may go to the next one; ties go to singles.
  EXPECT_EQ(fold_names(expand_names("n[1,3,6,9,12]"), 3), "n[1,3-12/3]");
  EXPECT_EQ(fold_names(expand_names("n[1,3,5,10,15,20]"), 3), "n[1-5/2,10-20/5]");
  EXPECT_EQ(fold_names(expand_names("n[1,3,5,7,14,21,28]"), 2), "n[1-7/2,14-28/7]");
  EXPECT_EQ(fold_names(expand_names("n[1,15-99/7]"), 2), "n[1,15-99/7]");
  EXPECT_EQ(fold_names(expand_names("n[1,3,5,7,14,21,28]"), 5), "n[1,3,5,7,14,21,28]");
  // Padding is kept apart: a step range has one width.
  EXPECT_EQ(fold_names({"n1", "n3", "n5", "n02", "n04", "n06"}, 3), "n[1-5/2,02-06/2]");
  EXPECT_EQ(fold_names(expand_names("rack[1-5/2]-node[1-7/3]"), 3), "rack[1-5/2]-node[1-7/3]");
  EXPECT_EQ(fold_names({"10.0.0.1:22", "10.0.0.3:22", "10.0.0.5:22"}, 3), "10.0.0.[1-5/2]:22");
}

TEST(FoldNames, HundredThousandNames) {
  Names names = expand_names("gpu[000001-100000]");
  std::shuffle(names.begin(), names.end(), std::mt19937(1));
  EXPECT_EQ(fold(names), "gpu[000001-100000]");
}

/// A random name of a shape hostnames have: letters, digits (sometimes padded), '-', '.', ports.
std::string random_name(std::mt19937& rng) {
  static const std::vector<std::string> kPrefixes = {"n", "node", "gpu-", "rack", "a", "10.0.", ""};
  static const std::vector<std::string> kSuffixes = {"", "-ib", ".lan", "b", ":22", ":2222"};
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto number = [&] {
    int value = pick(3) == 0 ? pick(1200) : pick(30);
    std::string digits = std::to_string(value);
    int pad = pick(4) == 0 ? 1 + pick(4) : 0;
    if (static_cast<int>(digits.size()) < pad) digits.insert(0, pad - digits.size(), '0');
    return digits;
  };
  std::string name = kPrefixes[pick(kPrefixes.size())];
  if (pick(5) == 0) name += number() + "-x";
  if (pick(8) != 0) name += number();
  if (name.empty()) name = "h";
  std::string suffix = kSuffixes[pick(kSuffixes.size())];
  if (pick(10) == 0) return pick(2) ? "fe80::" + number() : "[::" + number() + "]" + ":22";
  return name + suffix;
}

class FoldRoundTrip : public testing::TestWithParam<std::size_t> {};

TEST_P(FoldRoundTrip, RoundTripAndStabilityOnRandomSets) {
  const std::size_t autostep = GetParam();
  std::mt19937 rng(20261129);
  for (int round = 0; round < 400; ++round) {
    Names names;
    int n = 1 + static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) names.push_back(random_name(rng));
    Names canonical = names;
    std::sort(canonical.begin(), canonical.end());
    canonical.erase(std::unique(canonical.begin(), canonical.end()), canonical.end());

    std::string folded = fold_names(names, autostep);
    Names expanded = expand_names(folded);
    EXPECT_EQ(expanded.size(), canonical.size()) << folded;  // no duplicates
    std::sort(expanded.begin(), expanded.end());
    ASSERT_EQ(expanded, canonical) << folded;
    ASSERT_EQ(fold_names(expand_names(folded), autostep), folded);
    std::shuffle(names.begin(), names.end(), rng);
    ASSERT_EQ(fold_names(names, autostep), folded) << "order of input changed the result";
  }
}

// 0: no step ranges (the default); 2 and 3: nodeset --autostep 2 and 3.
INSTANTIATE_TEST_SUITE_P(Autostep, FoldRoundTrip, testing::Values(0, 2, 3));

}  // namespace
}  // namespace pdx
