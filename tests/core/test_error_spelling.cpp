// An error is spelled in each front end's terms from what it carries (its subject, the settings
// its sentence names), never by reading the sentence: settings::message.
#include <catch2/catch.hpp>

#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"

using namespace llmv;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using settings::FrontEnd;

namespace {
Error caught(void (*thrower)()) {
    try {
        thrower();
    } catch (const Error& error) {
        return error;
    }
    FAIL("no error thrown");
    return Error(code::internal, "unreachable");
}
}  // namespace

TEST_CASE("a bad value carries its setting, the value received and what is allowed",
          "[errors][spelling]") {
    const Error error = caught([] {
        settings::check_value(settings::setting("alpha"), settings::Value{true, 0.9, {}});
    });
    CHECK(error.code() == code::invalid_argument);
    REQUIRE(error.has_subject());
    CHECK(error.subject().setting == "alpha");
    CHECK(error.subject().received == "0.9");
    CHECK_THAT(error.subject().allowed, Contains("0.5"));
    // The engine's sentence, and each front end's own name for the setting.
    CHECK_THAT(std::string(error.what()), StartsWith("`alpha` must be "));
    CHECK_THAT(settings::message(error, FrontEnd::cli), StartsWith("`--alpha` must be "));
    CHECK_THAT(settings::message(error, FrontEnd::r), StartsWith("`alpha` must be "));
    CHECK_THAT(settings::message(error, FrontEnd::stata), StartsWith("`alpha()` must be "));
    CHECK_THAT(settings::message(error, FrontEnd::stata), Contains("; received 0.9."));
}

TEST_CASE("fields outside the table are spelled per front end too", "[errors][spelling]") {
    const Error error = caught([] {
        throw_invalid(code::invalid_argument, "embedding_provider", "\"nope\"", "one of openai");
    });
    CHECK_THAT(settings::message(error, FrontEnd::cli), StartsWith("`--embedding-provider` "));
    CHECK_THAT(settings::message(error, FrontEnd::r), StartsWith("`embedding` "));
    CHECK_THAT(settings::message(error, FrontEnd::stata), StartsWith("`embedding()` "));
    // A keyed name: the simulated DGP's setting by the table's spelling.
    const Error keyed = caught([] {
        throw_invalid(code::invalid_argument, "simulated.follow_probability", "2",
                      "a number in [0, 1]");
    });
    CHECK(keyed.subject().setting == "simulated");
    CHECK(keyed.subject().key == "follow_probability");
    CHECK_THAT(settings::message(keyed, FrontEnd::stata), StartsWith("`follow()` must be"));
    CHECK_THAT(settings::message(keyed, FrontEnd::cli), StartsWith("`--follow` must be"));
    // A name no front end spells otherwise stays the engine's.
    const Error pools = caught(
        [] { throw_invalid(code::pool_too_small, "pools.Neutral", "1 row", "at least 2 rows"); });
    CHECK_THAT(settings::message(pools, FrontEnd::r), StartsWith("`pools.Neutral` must be"));
}

TEST_CASE("a sentence names its settings, and each front end writes its own name there",
          "[errors][spelling]") {
    const Error error(code::provider_config,
                      "provider `openai` needs an API key: set `api_key` or OPENAI_API_KEY (or "
                      "set `base_url` to a local server that needs none)",
                      {"api_key", "base_url"});
    const std::string stata = settings::message(error, FrontEnd::stata);
    CHECK_THAT(stata, Contains("set `keyenv()` or OPENAI_API_KEY"));
    CHECK_THAT(stata, Contains("set `baseurl()` to a local server"));
    // `openai` is not a setting the error names: left as it is.
    CHECK_THAT(stata, StartsWith("provider `openai` needs"));
    const std::string cli = settings::message(error, FrontEnd::cli);
    CHECK_THAT(cli, Contains("set `LLMV_API_KEY` or OPENAI_API_KEY"));
    CHECK_THAT(cli, Contains("`--base-url`"));
    CHECK(settings::message(error, FrontEnd::engine) == error.what());
}

TEST_CASE("a row and a column are carried as numbers", "[errors][spelling]") {
    const Error error = caught([] {
        throw_invalid_at(code::invalid_embedding, "pools.Positive", 3, 2, "NaN",
                         "embeddings of finite numbers");
    });
    CHECK(error.subject().row == 3);
    CHECK(error.subject().column == 2);
    CHECK(error.subject().received_value == "NaN");
    CHECK(error.subject().received == "row 3 with NaN in column 2");
    CHECK_THAT(std::string(error.what()), Contains("received row 3 with NaN in column 2."));
    const Error zero = caught([] {
        throw_invalid_at(code::invalid_embedding, "passage", 0, 0, "a zero vector", "non-zero");
    });
    CHECK(zero.subject().received == "a zero vector");
}

TEST_CASE("an error with a context keeps its body apart", "[errors][spelling]") {
    const Error error =
        Error::in_context(code::task_invalid, "task topic", "the simulation prompt is empty.");
    CHECK(std::string(error.what()) == "task topic: the simulation prompt is empty.");
    CHECK(error.context() == "task topic");
    CHECK(error.body() == "the simulation prompt is empty.");
    const Error plain(code::task_invalid, "no context here");
    CHECK(plain.body() == "no context here");
}
