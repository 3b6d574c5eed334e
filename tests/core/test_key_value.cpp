// The typed key=value reader (core/key_value.hpp) behind the Stata plugin's words and the CLI's
// NAME=VALUE lists and whole-number options. The front ends' messages are tested with them
// (stata/tests/host, tests/cli).
#include <catch2/catch.hpp>

#include <limits>

#include "llmvalidate/key_value.hpp"

using namespace llmv;

TEST_CASE("key_value::split: at the first '=', a key is needed, a value may be empty") {
    const auto pair = key_value::split("alpha=0.05");
    REQUIRE(pair);
    CHECK(pair->first == "alpha");
    CHECK(pair->second == "0.05");
    const auto nested = key_value::split("where=a=b");
    REQUIRE(nested);
    CHECK(nested->first == "where");
    CHECK(nested->second == "a=b");
    const auto empty_value = key_value::split("labels=");
    REQUIRE(empty_value);
    CHECK(empty_value->second.empty());
    CHECK_FALSE(key_value::split("alpha"));
    CHECK_FALSE(key_value::split("=0.05"));
    CHECK_FALSE(key_value::split(""));
}

TEST_CASE("key_value::real: the whole text, finite") {
    CHECK(key_value::real("0.05") == 0.05);
    CHECK(key_value::real("-1e3") == -1000.0);
    CHECK(key_value::real(" 2") == 2.0);  // strtod skips leading space
    CHECK_FALSE(key_value::real(""));
    CHECK_FALSE(key_value::real("0.05x"));
    CHECK_FALSE(key_value::real("2 "));
    CHECK_FALSE(key_value::real("1e999"));
    CHECK_FALSE(key_value::real("inf"));
    CHECK_FALSE(key_value::real("nan"));
}

TEST_CASE("key_value::integer: base 10, within int") {
    CHECK(key_value::integer("999") == 999);
    CHECK(key_value::integer("-3") == -3);
    CHECK(key_value::integer("2147483647") == std::numeric_limits<int>::max());
    CHECK_FALSE(key_value::integer("2147483648"));
    CHECK_FALSE(key_value::integer("-2147483649"));
    CHECK_FALSE(key_value::integer("1.5"));
    CHECK_FALSE(key_value::integer("0x10"));
    CHECK_FALSE(key_value::integer(""));
}

TEST_CASE("key_value::whole_number: digits only, up to 2^64 - 1") {
    CHECK(key_value::whole_number("0") == 0u);
    CHECK(key_value::whole_number("18446744073709551615") ==
          std::numeric_limits<std::uint64_t>::max());
    CHECK(key_value::whole_number("00000000000000000001") == 1u);  // 20 digits
    CHECK_FALSE(key_value::whole_number("18446744073709551616"));
    CHECK_FALSE(key_value::whole_number("000000000000000000001"));  // 21 digits
    CHECK_FALSE(key_value::whole_number("+1"));
    CHECK_FALSE(key_value::whole_number("-1"));
    CHECK_FALSE(key_value::whole_number(" 1"));
    CHECK_FALSE(key_value::whole_number("1.0"));
    CHECK_FALSE(key_value::whole_number(""));
}
