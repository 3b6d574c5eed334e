// The methods the statistics' registry runs are the choices the settings table offers for
// validation_method and separation_method (the table names them; the registry binds each to
// its function), so that a method added to one and not the other fails here.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "llmvalidate/settings.hpp"
#include "llmvalidate/stats.hpp"

using namespace llmv;

namespace {

template <typename Registry>
std::set<std::string> registered(const Registry& registry) {
    std::set<std::string> names;
    for (const auto& entry : registry) names.insert(entry.first);
    return names;
}

std::set<std::string> choices(const std::string& setting) {
    const auto& offered = settings::setting(setting).choices;
    return {offered.begin(), offered.end()};
}

}  // namespace

TEST_CASE("the registry's test methods are the settings table's choices", "[stats][settings]") {
    CHECK(registered(stats::validation_methods()) == choices("validation_method"));
    CHECK(registered(stats::separation_methods()) == choices("separation_method"));
}
