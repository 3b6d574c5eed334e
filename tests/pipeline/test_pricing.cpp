// The price table and the dollars of the dry run and of a run: the table's parsing and its
// errors, the model lookup, the dry run's token estimate against what the fake server counts,
// and the price as the table's arithmetic, for two providers' models.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/accounting.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/pricing.hpp"
#include "llmvalidate/resolution.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;

namespace {

std::string temp_path(const std::string& name) {
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    fs::path dir = fs::temp_directory_path() /
                   ("llmv-pricing-" + std::to_string(stamp) + "-" + std::to_string(++counter));
    fs::create_directories(dir);
    return (dir / name).string();
}

const char* header = "provider,model,input,cached_input,output,embedding,batch_discount,checked\n";

// Sentences in the style of financial news (written for this test).
std::vector<PassageInput> news_sentences() {
    return {
        {"1", "The company said quarterly operating profit rose to EUR 14.2 million from EUR 9.8 million a year earlier.", "", {}, ""},
        {"2", "Net sales for the period decreased by 6 percent as demand for paper products weakened in Europe.", "", {}, ""},
        {"3", "The board will propose a dividend of EUR 0.45 per share at the annual general meeting in March.", "", {}, ""},
        {"4", "Shares of the retailer fell sharply after it warned that full-year earnings would miss analysts' forecasts.", "", {}, ""},
    };
}

// A run of `task` on the fake server: chat by `provider` (openai or anthropic) and embeddings
// by OpenAI, at models the shipped price table lists, with a cache of its own.
ValidationConfig priced_config(const fake::FakeServer& server, const std::string& task,
                               const std::string& provider) {
    ValidationConfig config;
    config.task_path = task;
    config.provider = provider;
    config.model = provider == "openai" ? "gpt-4.1-mini" : "claude-haiku-4-5";
    config.base_url = server.base_url() + (provider == "openai" ? "/v1" : "");
    config.api_key = "test-key";
    config.embedding_provider = "openai";
    config.embedding_model = "text-embedding-3-small";
    config.embedding_base_url = server.base_url() + "/v1";
    config.embedding_api_key = "test-key";
    config.cache_path = temp_path("cache.sqlite");
    config.m = 20;
    config.n = 5;
    config.tests.permutations = 99;
    return config;
}

struct ServerTokens {
    std::int64_t chat_input = 0, chat_output = 0, embedding = 0;
    std::int64_t cached_input = 0;  // of chat_input, read from the prompt cache
    std::int64_t cache_written = 0;  // of chat_input, written to the prompt cache
};

// What the fake server reported in the usage of every answer it served.
ServerTokens counted_tokens(const fake::FakeServer& server) {
    ServerTokens tokens;
    for (const auto& served : server.served()) {
        const auto body = nlohmann::json::parse(served.response_body);
        const auto& usage = body.at("usage");
        if (served.endpoint == "openai.embeddings") {
            tokens.embedding += usage.at("prompt_tokens").get<std::int64_t>();
        } else if (served.endpoint == "openai.chat") {
            tokens.chat_input += usage.at("prompt_tokens").get<std::int64_t>();
            tokens.chat_output += usage.at("completion_tokens").get<std::int64_t>();
        } else if (served.endpoint == "anthropic.messages") {
            // input_tokens counts what follows the cache breakpoint only.
            tokens.chat_input += usage.at("input_tokens").get<std::int64_t>() +
                                 usage.value("cache_read_input_tokens", std::int64_t{0}) +
                                 usage.value("cache_creation_input_tokens", std::int64_t{0});
            tokens.cached_input += usage.value("cache_read_input_tokens", std::int64_t{0});
            tokens.cache_written += usage.value("cache_creation_input_tokens", std::int64_t{0});
            tokens.chat_output += usage.at("output_tokens").get<std::int64_t>();
        }
    }
    return tokens;
}

double relative_gap(std::int64_t estimate, std::int64_t counted) {
    return std::abs(static_cast<double>(estimate - counted)) / static_cast<double>(counted);
}

}  // namespace

TEST_CASE("the price table reads its rows and finds a model by its exact or dated name") {
    const PriceTable table = parse_price_table(
        std::string("# a comment\n") + header +
            "openai,gpt-4o,2.5,1.25,10,,0.5,2026-01-01\n"
            "openai,gpt-4o-mini,0.15,,0.6,,0.5,2026-01-01\n"
            "openai,text-embedding-3-small,,,,0.02,,2026-01-02\n",
        "inline");
    REQUIRE(table.rows.size() == 3);
    CHECK(table.find("openai", "gpt-4o")->input == 2.5);
    // A dated snapshot takes its own row: a dated gpt-4o-mini is not gpt-4o.
    CHECK(table.find("openai", "gpt-4o-mini-2024-07-18")->model == "gpt-4o-mini");
    CHECK(table.find("openai", "gpt-4o-2024-08-06")->model == "gpt-4o");
    CHECK(table.find("openai", "gpt-4olike") == nullptr);
    CHECK(table.find("anthropic", "gpt-4o") == nullptr);
    // An empty cached_input price is the input price; no batch discount: none.
    CHECK(table.find("openai", "gpt-4o-mini")->cached_input == 0.15);
    CHECK_FALSE(table.find("openai", "text-embedding-3-small")->has_batch);
    CHECK(table.find("openai", "text-embedding-3-small")->has_embedding);
}

TEST_CASE("a bad price table names the line, the column and the value") {
    CHECK_THROWS_WITH(parse_price_table(std::string(header) + "openai,gpt-4o,cheap,,10,,0.5,x\n", "t.csv"),
                      Catch::Matchers::Contains("input (t.csv, line 2)") &&
                          Catch::Matchers::Contains("received cheap"));
    CHECK_THROWS_WITH(parse_price_table(std::string(header) + "openai,gpt-4o,1,,,,0.5,x\n", "t.csv"),
                      Catch::Matchers::Contains("both prices of a chat model"));
    CHECK_THROWS_WITH(parse_price_table(std::string(header) + "openai,gpt-4o,1,,2,,1.5,x\n", "t.csv"),
                      Catch::Matchers::Contains("batch_discount"));
    CHECK_THROWS_WITH(parse_price_table("provider,model\nopenai,gpt-4o\n", "t.csv"),
                      Catch::Matchers::Contains("the price table's header"));
    // Issue 25: a price no model has (1e308 made every cost "$inf") and non-finite ones.
    for (const char* price : {"1e308", "1000001", "inf", "nan"}) {
        INFO(price);
        CHECK_THROWS_WITH(parse_price_table(std::string(header) + "openai,gpt-4o," + price + ",,10,,0.5,2026-01-01\n",
                                            "t.csv"),
                          Catch::Matchers::Contains("input (t.csv, line 2)") &&
                              Catch::Matchers::Contains("a number from 0 to 1000000") &&
                              Catch::Matchers::Contains(std::string("received ") + price));
    }
    // A second row for a model would win silently.
    CHECK_THROWS_WITH(parse_price_table(std::string(header) + "openai,gpt-4o,1,,2,,0.5,2026-01-01\n"
                                                              "openai,gpt-4o,3,,4,,0.5,2026-01-01\n",
                                        "t.csv"),
                      Catch::Matchers::Contains("provider and model (t.csv, line 3)") &&
                          Catch::Matchers::Contains("openai gpt-4o is on line 2 already"));
    // `checked` is a date.
    for (const char* date : {"yesterday", "2026-02-30", "2026-13-01", "26-01-01", ""}) {
        INFO(date);
        CHECK_THROWS_WITH(parse_price_table(std::string(header) + "openai,gpt-4o,1,,2,,0.5," + date + "\n", "t.csv"),
                          Catch::Matchers::Contains("checked (t.csv, line 2)") &&
                              Catch::Matchers::Contains("as YYYY-MM-DD"));
    }
    CHECK_NOTHROW(parse_price_table(std::string(header) + "openai,gpt-4o,1,,2,,0.5,2024-02-29\n", "t.csv"));
    try {
        load_price_table("/nonexistent/prices.csv");
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.code() == code::invalid_argument);
        CHECK_THAT(error.what(), Catch::Matchers::Contains("price_table") &&
                                     Catch::Matchers::Contains("/nonexistent/prices.csv"));
    }
}

TEST_CASE("the shipped price table loads and prices the default models") {
    const auto table = price_table_for("");
    REQUIRE(table);
    CHECK(table->find("openai", "gpt-4o-mini"));
    CHECK(table->find("openai", "text-embedding-3-small"));
    CHECK(table->find("anthropic", "claude-haiku-4-5"));
    for (const ModelPrice& row : table->rows) CHECK_FALSE(row.checked.empty());
}

TEST_CASE("the dry run's tokens are within 10% of the fake server's count and its price is the table's arithmetic") {
    // Two providers' models, each with the shipped table's prices; embeddings from OpenAI.
    const std::string provider = GENERATE(as<std::string>{}, "openai", "anthropic");
    fake::FakeServerOptions options;
    options.follow_length = true;  // passages as long as the prompt asks, as a model writes
    fake::FakeServer server(options);
    server.start();
    const ValidationConfig config = priced_config(server, "financial_phrasebank", provider);
    const std::vector<PassageInput> passages = news_sentences();

    const DryRunReport plan = dry_run(config, passages);
    CHECK(server.total_count() == 0);
    const BatchResult batch = validate_batch(config, passages);
    for (const PassageResult& result : batch.passages) CHECK(result.ok);
    const ServerTokens counted = counted_tokens(server);
    INFO(provider << ": estimated " << plan.estimated_input_tokens << " in, "
                  << plan.estimated_output_tokens << " out, " << plan.estimated_embedding_tokens
                  << " embedded; the server counted " << counted.chat_input << ", "
                  << counted.chat_output << ", " << counted.embedding);
    const std::int64_t estimated_total =
        plan.estimated_input_tokens + plan.estimated_output_tokens + plan.estimated_embedding_tokens;
    const std::int64_t counted_total = counted.chat_input + counted.chat_output + counted.embedding;
    CHECK(relative_gap(estimated_total, counted_total) <= 0.10);
    CHECK(relative_gap(plan.estimated_input_tokens, counted.chat_input) <= 0.10);

    // The price: the table's rows times the estimated tokens (nothing is cached before the run).
    const auto table = price_table_for("");
    REQUIRE(table);
    const ModelPrice* chat = table->find(provider, config.model);
    const ModelPrice* embedding = table->find("openai", "text-embedding-3-small");
    REQUIRE(chat);
    REQUIRE(embedding);
    const double chat_dollars = (static_cast<double>(plan.estimated_input_tokens) * chat->input +
                                 static_cast<double>(plan.estimated_output_tokens) * chat->output) /
                                1e6;
    const double embedding_dollars =
        static_cast<double>(plan.estimated_embedding_tokens) * embedding->embedding / 1e6;
    CHECK(plan.cost.complete);
    CHECK(plan.cost.dollars == Approx(chat_dollars + embedding_dollars).epsilon(1e-12));
    CHECK(plan.cost.batch_dollars ==
          Approx(chat_dollars * (1 - chat->batch_discount) +
                 embedding_dollars * (1 - embedding->batch_discount))
              .epsilon(1e-12));
    CHECK(plan.cost.batch_dollars < plan.cost.dollars);

    // After the run: the tokens the server reported, at the same prices.
    const double actual_chat = (static_cast<double>(counted.chat_input - counted.cached_input -
                                                    counted.cache_written) *
                                    chat->input +
                                static_cast<double>(counted.cached_input) * chat->cached_input +
                                static_cast<double>(counted.cache_written) * chat->cache_write +
                                static_cast<double>(counted.chat_output) * chat->output) /
                               1e6;
    const double actual_embedding = static_cast<double>(counted.embedding) * embedding->embedding / 1e6;
    CHECK(batch.cost.complete);
    CHECK(batch.cost.dollars == Approx(actual_chat + actual_embedding).epsilon(1e-12));

    // A second dry run finds everything in the cache: nothing left to pay.
    const DryRunReport after = dry_run(config, passages);
    CHECK(after.chat_calls_to_make == 0);
    CHECK(after.cost.dollars == 0);
}

TEST_CASE("a model the table does not list is left unpriced, not guessed") {
    const std::string path = temp_path("prices.csv");
    std::ofstream(path) << header << "openai,text-embedding-3-small,,,,0.02,0.5,2026-01-01\n";
    const PriceTable table = load_price_table(path);
    const CostEstimate cost = cost_of(&table, "openai", "unlisted-model", 1000, 0, 100, "openai",
                                      "text-embedding-3-small", 5000);
    CHECK_FALSE(cost.complete);
    CHECK(cost.dollars == Approx(5000 * 0.02 / 1e6));
    CHECK_THAT(cost.note, Catch::Matchers::Contains("openai unlisted-model") &&
                              Catch::Matchers::Contains(path));
}

TEST_CASE("Anthropic requests mark the shared prefix for prompt caching and the accounting counts cached tokens") {
    fake::FakeServer server;
    server.start();
    const ValidationConfig config = priced_config(server, "simple_sentiment", "anthropic");
    const PassageInput passage{"p1", "Revenue grew strongly this quarter, and the outlook was raised.", "", {}, ""};
    const BatchResult batch = validate_batch(config, {passage});
    REQUIRE(batch.passages.size() == 1);
    INFO(batch.passages[0].error_message);
    REQUIRE(batch.passages[0].ok);

    std::size_t simulation_marked = 0, backtranslation_marked = 0, unmarked = 0;
    for (const auto& request : server.recorded(1000)) {
        if (request.endpoint != "anthropic.messages") continue;
        const auto body = nlohmann::json::parse(request.body);
        const auto& content = body["messages"][0]["content"];
        if (!content.is_array()) {
            ++unmarked;  // the single annotation of y (R = 1) shares nothing
            continue;
        }
        REQUIRE(content[0].contains("cache_control"));
        CHECK(content[0]["cache_control"]["type"] == "ephemeral");
        if (content.size() == 1) {
            ++simulation_marked;  // the whole prompt is shared by the pool's calls
        } else {
            ++backtranslation_marked;  // the template before the quoted text
            const std::string quoted = content[1]["text"].get<std::string>();
            CHECK(quoted.size() > 0);
        }
    }
    CHECK(unmarked == 1);
    CHECK(simulation_marked == 3 * 4);
    CHECK(backtranslation_marked == 20);

    // The server read every repeated prefix from its cache; the run counts those tokens apart.
    const ModelUsage& usage = batch.usage.at("claude-haiku-4-5");
    CHECK(usage.cached_input_tokens > 0);
    CHECK(usage.cached_input_tokens < usage.input_tokens);
    std::int64_t read = 0, written = 0, input = 0;
    for (const auto& served : server.served()) {
        if (served.endpoint != "anthropic.messages") continue;
        const auto body = nlohmann::json::parse(served.response_body);
        read += body["usage"].value("cache_read_input_tokens", 0);
        written += body["usage"].value("cache_creation_input_tokens", 0);
        input += body["usage"].value("input_tokens", 0) + body["usage"].value("cache_read_input_tokens", 0) +
                 body["usage"].value("cache_creation_input_tokens", 0);
    }
    CHECK(static_cast<std::int64_t>(usage.cached_input_tokens) == read);
    CHECK(static_cast<std::int64_t>(usage.input_tokens) == input);
    // Priced apart: cached input at its own price.
    const CostLine& chat = batch.cost.lines.at(0);
    CHECK(chat.cached_input_tokens == read);
    CHECK(written > 0);
    CHECK(static_cast<std::int64_t>(usage.cache_write_input_tokens) == written);
    CHECK(chat.cache_write_input_tokens == written);
    CHECK(chat.input_tokens == input - read - written);
    const auto table = price_table_for("");
    const ModelPrice* price = table->find("anthropic", config.model);
    REQUIRE(price);
    // Anthropic bills cache writes at 1.25x input (the shipped table's cache_write column).
    CHECK(price->cache_write == Approx(1.25 * price->input));
    CHECK(chat.dollars == Approx((static_cast<double>(input - read - written) * price->input +
                                  static_cast<double>(read) * price->cached_input +
                                  static_cast<double>(written) * price->cache_write +
                                  static_cast<double>(usage.output_tokens) * price->output) /
                                 1e6)
                              .epsilon(1e-12));
}

TEST_CASE("a version suffix finds its row, and cache writes have a price of their own") {
    const PriceTable table = parse_price_table(
        "provider,model,input,cached_input,cache_write,output,embedding,batch_discount,checked,source\n"
        "bedrock-titan,amazon.titan-embed-text-v2,,,,,0.02,,2026-12-04,AWS\n"
        "anthropic,claude-haiku-4-5,1,0.1,1.25,5,,0.5,2026-12-04,Anthropic\n",
        "inline");
    // amazon.titan-embed-text-v2:0, the paper's embedding model, was never priced before.
    REQUIRE(table.find("bedrock-titan", "amazon.titan-embed-text-v2:0"));
    CHECK(table.find("bedrock-titan", "amazon.titan-embed-text-v2:0")->embedding == 0.02);
    const CostEstimate cost = cost_of(&table, "anthropic", "claude-haiku-4-5", 1000000, 2000000, 100000,
                                      "bedrock-titan", "amazon.titan-embed-text-v2:0", 1000000, 4000000);
    CHECK(cost.complete);
    // 1M uncached at $1, 2M cache reads at $0.10, 4M cache writes at $1.25, 0.1M output at $5.
    CHECK(cost.lines.at(0).dollars == Approx(1 + 0.2 + 5 + 0.5));
    CHECK(cost.lines.at(1).dollars == Approx(0.02));
    // A table without the cache_write column (the columns of earlier tables): writes at input.
    const PriceTable old_columns =
        parse_price_table(std::string(header) + "anthropic,claude-haiku-4-5,1,0.1,5,,0.5,2026-01-01\n", "old");
    CHECK(old_columns.find("anthropic", "claude-haiku-4-5")->cache_write == 1);
}

TEST_CASE("the shipped table prices every default model and the paper's Table 8 models, with a date and a source") {
    const auto table = price_table_for("");
    REQUIRE(table);
    for (const pipeline::ProviderDefaults& row : pipeline::provider_defaults()) {
        if (row.provider != "openai" && row.provider != "anthropic" && row.provider != "bedrock" &&
            row.provider != "bedrock-titan")
            continue;
        INFO(row.provider << " " << row.model);
        CHECK(table->find(row.provider, row.model));
    }
    for (const char* model : {"anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic.claude-3-haiku-20240307-v1:0",
                              "meta.llama3-70b-instruct-v1:0", "meta.llama3-8b-instruct-v1:0"}) {
        INFO(model);
        CHECK(table->find("bedrock", model));
    }
    for (const ModelPrice& row : table->rows) CHECK(row.checked.size() == 10);
}

namespace {

// A table in the shipped columns, with aliases and a tier (written for these tests).
PriceTable exact_id_table() {
    return parse_price_table(
        "provider,model,aliases,input,cached_input,cache_write,output,tier_threshold,tier_input,"
        "tier_cached_input,tier_cache_write,tier_output,embedding,batch_discount,checked,source\n"
        "openai,gpt-4.1,,2.00,0.50,,8.00,,,,,,,0.5,2026-12-07,test\n"
        "openai,gpt-4.1-mini,,0.40,0.10,,1.60,,,,,,,0.5,2026-12-07,test\n"
        "openai,gpt-5.6-sol,gpt-5.6,4.00,0.40,5.00,20.00,272000,8.00,,,30.00,,0.5,2026-12-07,test\n"
        "anthropic,claude-sonnet-5,,2.00,0.20,2.50,10.00,,,,,,,0.5,2026-12-07,test\n"
        "anthropic,claude-haiku-4-5,,1.00,0.10,1.25,5.00,,,,,,,0.5,2026-12-07,test\n"
        "anthropic,claude-haiku-5-5,,0.10,0.01,0.125,0.50,100000,0.50,0.05,0.625,2.50,,0.5,2026-12-07,test\n"
        "bedrock,us.anthropic.claude-sonnet-4-6,eu.anthropic.claude-sonnet-4-6|anthropic.claude-sonnet-4-6,"
        "3.30,0.33,4.125,16.50,,,,,,,,2026-12-07,test\n"
        "bedrock,global.anthropic.claude-sonnet-4-6,,3.00,0.30,3.75,15.00,,,,,,,,2026-12-07,test\n"
        "bedrock,meta.llama3-70b-instruct,,2.65,,,3.50,,,,,,,,2026-12-07,test\n"
        "bedrock-titan,amazon.titan-embed-text-v2,,,,,,,,,,,0.02,,2026-12-07,test\n",
        "exact.csv");
}

}  // namespace

TEST_CASE("a model takes only its own row: gpt-4.1-nano and a typo have no price, and the hint names the nearest row") {
    const PriceTable table = exact_id_table();
    // Issue 39: the longest listed prefix gave gpt-4.1-nano gpt-4.1's price (20x too high),
    // claude-sonnet-5-5 Sonnet 5's and a typo gpt-4.1's.
    CHECK(table.find("openai", "gpt-4.1-nano") == nullptr);
    CHECK(table.find("openai", "gpt-4.1-mnii") == nullptr);
    CHECK(table.find("anthropic", "claude-sonnet-5-5") == nullptr);
    CHECK(table.find("openai", "gpt-4.1-turbo-2025-04-14") == nullptr);
    CHECK(table.nearest("openai", "gpt-4.1-mnii") == "gpt-4.1-mini");
    CHECK(table.nearest("openai", "gpt-4.1-nano") == "gpt-4.1-mini");
    CHECK(table.nearest("anthropic", "claude-sonnet-5-5") == "claude-sonnet-5");
    CHECK(table.nearest("mistral", "anything").empty());

    for (const char* model : {"gpt-4.1-nano", "gpt-4.1-mnii"}) {
        INFO(model);
        const CostEstimate cost = cost_of(&table, "openai", model, 1000000, 0, 100000, "", "", 0);
        CHECK_FALSE(cost.complete);
        REQUIRE(cost.lines.size() == 1);
        CHECK_FALSE(cost.lines[0].priced);
        CHECK(cost.lines[0].dollars == 0);
        CHECK(cost.dollars == 0);  // not gpt-4.1's $3.60
        CHECK(cost.lines[0].nearest == "gpt-4.1-mini");
        CHECK_THAT(cost.note, Catch::Matchers::Contains(std::string("No price for openai ") + model +
                                                        "; did you mean gpt-4.1-mini?") &&
                                  Catch::Matchers::Contains("no other model's price stands in"));
    }
}

TEST_CASE("a dated snapshot, a version suffix, an alias and an inference profile take their row by the table's rule") {
    const PriceTable table = exact_id_table();
    const auto row_of = [&](const std::string& provider, const std::string& model) {
        const ModelPrice* row = table.find(provider, model);
        return row ? row->model : std::string("(none)");
    };
    // OpenAI's -YYYY-MM-DD and Anthropic's -YYYYMMDD snapshots.
    CHECK(row_of("openai", "gpt-4.1-mini-2025-04-14") == "gpt-4.1-mini");
    CHECK(row_of("openai", "gpt-4.1-2025-04-14") == "gpt-4.1");
    CHECK(row_of("anthropic", "claude-haiku-4-5-20251001") == "claude-haiku-4-5");
    // Not a date, or a date and more: another model.
    CHECK(row_of("anthropic", "claude-haiku-4-5-20251301") == "(none)");
    CHECK(row_of("openai", "gpt-4.1-mini-2025-04-14-preview") == "(none)");
    CHECK(row_of("openai", "gpt-4.1-mini-20250414x") == "(none)");
    // An alias, with its own snapshot.
    CHECK(row_of("openai", "gpt-5.6") == "gpt-5.6-sol");
    CHECK(row_of("openai", "gpt-5.6-2026-07-09") == "gpt-5.6-sol");
    // Bedrock: version suffixes, and the inference profiles the table lists, each at its price.
    CHECK(row_of("bedrock", "us.anthropic.claude-sonnet-4-6") == "us.anthropic.claude-sonnet-4-6");
    CHECK(row_of("bedrock", "eu.anthropic.claude-sonnet-4-6") == "us.anthropic.claude-sonnet-4-6");
    CHECK(row_of("bedrock", "anthropic.claude-sonnet-4-6-20260217-v1:0") == "us.anthropic.claude-sonnet-4-6");
    CHECK(row_of("bedrock", "global.anthropic.claude-sonnet-4-6") == "global.anthropic.claude-sonnet-4-6");
    CHECK(table.find("bedrock", "global.anthropic.claude-sonnet-4-6")->input == 3.00);
    CHECK(table.find("bedrock", "eu.anthropic.claude-sonnet-4-6")->input == 3.30);
    CHECK(row_of("bedrock", "apac.anthropic.claude-sonnet-4-6") == "(none)");  // not listed
    CHECK(row_of("bedrock", "meta.llama3-70b-instruct-v1:0") == "meta.llama3-70b-instruct");
    CHECK(row_of("bedrock-titan", "amazon.titan-embed-text-v2:0") == "amazon.titan-embed-text-v2");
    CHECK(row_of("bedrock-titan", "amazon.titan-embed-text-v2:x") == "(none)");
    // An alias may not name a model another row has.
    CHECK_THROWS_WITH(parse_price_table("provider,model,aliases,input,cached_input,output,embedding,"
                                        "batch_discount,checked\n"
                                        "openai,gpt-4.1,,2,,8,,0.5,2026-12-07\n"
                                        "openai,gpt-5,gpt-4.1,1,,4,,0.5,2026-12-07\n",
                                        "t.csv"),
                      Catch::Matchers::Contains("openai gpt-4.1 is on line 2 already"));
}

TEST_CASE("a tiered price: a request over the threshold pays the tier's rates for all its tokens") {
    const PriceTable table = exact_id_table();
    const ModelPrice* haiku = table.find("anthropic", "claude-haiku-5-5");
    REQUIRE(haiku);
    CHECK(haiku->tier.threshold == 100000);
    // At the threshold: the base rates; one token over: the tier's, output included.
    CHECK(request_dollars(*haiku, 100000, 0, 0, 1000) == Approx((100000 * 0.10 + 1000 * 0.50) / 1e6));
    CHECK(request_dollars(*haiku, 100001, 0, 0, 1000) == Approx((100001 * 0.50 + 1000 * 2.50) / 1e6));
    // Cache reads and writes count toward the prompt's size, and are at the tier's rates.
    CHECK(request_dollars(*haiku, 50000, 40000, 20000, 0) ==
          Approx((50000 * 0.50 + 40000 * 0.05 + 20000 * 0.625) / 1e6));
    CHECK(request_dollars(*haiku, 50000, 40000, 0, 0) == Approx((50000 * 0.10 + 40000 * 0.01) / 1e6));
    // Empty tier_cached_input and tier_cache_write keep the row's ratios to input.
    const ModelPrice* sol = table.find("openai", "gpt-5.6-sol");
    REQUIRE(sol);
    CHECK(sol->tier.cached_input == Approx(0.80));
    CHECK(sol->tier.cache_write == Approx(10.00));

    // A run's tokens: three requests below and one above, through the accounting.
    Accounting accounting;
    accounting.set_tier_threshold("claude-haiku-5-5", static_cast<std::uint64_t>(haiku->tier.threshold));
    for (int i = 0; i < 3; ++i) accounting.add_tokens("claude-haiku-5-5", 2000, 100);
    accounting.add_tokens("claude-haiku-5-5", 150000, 400, 30000, 0);
    const ModelUsage usage = accounting.by_model().at("claude-haiku-5-5");
    CHECK(usage.input_tokens == 156000);
    CHECK(usage.tier_input_tokens == 150000);
    CHECK(usage.tier_cached_input_tokens == 30000);
    CHECK(usage.tier_output_tokens == 400);
    TierTokens above;
    above.input = 120000;
    above.cached_input = 30000;
    above.output = 400;
    const CostEstimate cost =
        cost_of(&table, "anthropic", "claude-haiku-5-5", 126000, 30000, 700, "", "", 0, 0, above);
    REQUIRE(cost.complete);
    const double below_dollars = (6000 * 0.10 + 300 * 0.50) / 1e6;
    const double above_dollars = (120000 * 0.50 + 30000 * 0.05 + 400 * 2.50) / 1e6;
    CHECK(cost.lines.at(0).dollars == Approx(below_dollars + above_dollars));
    CHECK(cost.lines.at(0).batch_dollars == Approx(0.5 * (below_dollars + above_dollars)));
    // Without the tier the same tokens cost a fifth as much: the tier is in the arithmetic.
    CHECK(cost.lines.at(0).dollars > 3 * (126000 * 0.10 + 30000 * 0.01 + 700 * 0.50) / 1e6);
    // A row without a tier ignores the split.
    const CostEstimate flat =
        cost_of(&table, "anthropic", "claude-haiku-4-5", 126000, 30000, 700, "", "", 0, 0, above);
    CHECK(flat.lines.at(0).dollars == Approx((126000 * 1.00 + 30000 * 0.10 + 700 * 5.00) / 1e6));
    // A tier needs its threshold and its prices.
    CHECK_THROWS_WITH(parse_price_table("provider,model,input,cached_input,output,tier_threshold,tier_input,"
                                        "tier_output,embedding,batch_discount,checked\n"
                                        "anthropic,x,1,,5,100k,2,10,,0.5,2026-12-07\n",
                                        "t.csv"),
                      Catch::Matchers::Contains("tier_threshold (t.csv, line 2)"));
}

TEST_CASE("the shipped table prices the current line-up at the vendors' numbers, and no retired id by a neighbour") {
    const auto table = price_table_for("");
    REQUIRE(table);
    // gpt-6-luna (OpenAI's model page): $0.10 in, $0.01 cached, $0.50 out, batch 50%.
    const ModelPrice* luna = table->find("openai", "gpt-6-luna");
    REQUIRE(luna);
    CHECK(luna->input == 0.10);
    CHECK(luna->cached_input == 0.01);
    CHECK(luna->output == 0.50);
    CHECK(luna->batch_discount == 0.5);
    CHECK(luna->tier.threshold == 272000);
    // gpt-4.1-nano at its own price, not gpt-4.1's.
    REQUIRE(table->find("openai", "gpt-4.1-nano"));
    CHECK(table->find("openai", "gpt-4.1-nano")->model == "gpt-4.1-nano");
    CHECK(table->find("openai", "gpt-4.1-nano")->input == 0.10);
    // Claude Haiku 5.5's tier above 100,000 prompt tokens (Anthropic's Haiku 5.5 overview).
    const ModelPrice* haiku = table->find("anthropic", "claude-haiku-5-5");
    REQUIRE(haiku);
    CHECK(haiku->tier.threshold == 100000);
    CHECK(haiku->tier.input == 0.50);
    CHECK(haiku->tier.output == 2.50);
    // Sonnet 5.5 is not Sonnet 5 (its cache reads differ).
    REQUIRE(table->find("anthropic", "claude-sonnet-5-5"));
    CHECK(table->find("anthropic", "claude-sonnet-5-5")->model == "claude-sonnet-5-5");
    // The OpenAI SDK's newest ChatModel ids and the Anthropic SDK's Model ids this table prices.
    for (const char* model : {"gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-5.6", "gpt-5.4",
                              "gpt-5.4-mini", "gpt-5.4-nano", "gpt-5.4-mini-2026-03-17",
                              "gpt-4.1-nano-2025-04-14", "text-embedding-3-small", "text-embedding-3-large"}) {
        INFO(model);
        CHECK(table->find("openai", model));
    }
    for (const char* model : {"claude-haiku-5-5", "claude-sonnet-5-5", "claude-fable-5-1", "claude-opus-5-5",
                              "claude-mythos-5-1", "claude-sonnet-5", "claude-fable-5", "claude-mythos-5",
                              "claude-opus-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6",
                              "claude-sonnet-4-6", "claude-haiku-4-5", "claude-haiku-4-5-20251001",
                              "claude-opus-4-5", "claude-opus-4-5-20251101"}) {
        INFO(model);
        CHECK(table->find("anthropic", model));
    }
    // Only third-party figures: left unpriced rather than guessed.
    CHECK_FALSE(table->find("anthropic", "claude-fable-5-2"));
    // Bedrock's profiles for the default model, from every geography.
    for (const char* model : {"global.anthropic.claude-sonnet-4-6", "us.anthropic.claude-sonnet-4-6",
                              "eu.anthropic.claude-sonnet-4-6", "apac.anthropic.claude-sonnet-4-6"}) {
        INFO(model);
        CHECK(table->find("bedrock", model));
    }
    CHECK(table->find("bedrock", "global.anthropic.claude-sonnet-4-6")->input <
          table->find("bedrock", "eu.anthropic.claude-sonnet-4-6")->input);
    for (const ModelPrice& row : table->rows) {
        INFO(row.provider << " " << row.model);
        CHECK_FALSE(row.source.empty());
    }
}

// gpt-5.4-nano shares its prefix with gpt-5.4 (the longest-prefix rule priced gpt-4.1-nano as
// gpt-4.1, 20 times too high); gpt-4.1-nano itself is retired, so a run refuses it before pricing.
TEST_CASE("the CLI's dry run says no price for a typo, names the nearest row, and prices gpt-5.4-nano at its own row") {
    const std::string dir = test::scratch_dir("llmv-pricing", "cli");
    const test::ScopedEnv key("OPENAI_API_KEY", "sk-test");
    const auto dry_run_of = [&](const std::string& model) {
        const test::Spawned cli = test::spawn_cli(
            {"run", "--task", "financial_phrasebank", "--provider", "openai", "--model", model, "--dry-run",
             "--text", "Operating profit rose to EUR 14.2 million from EUR 9.8 million."},
            dir);
        REQUIRE(test::wait_cli(cli) == 0);
        return test::slurp(cli.out);
    };
    const std::string typo = dry_run_of("gpt-4.1-mnii");
    CHECK_THAT(typo, Catch::Matchers::Contains("chat openai gpt-4.1-mnii: ") &&
                         Catch::Matchers::Contains("no price (did you mean gpt-4.1-mini?)") &&
                         Catch::Matchers::Contains("unknown, not every model is priced"));
    const std::string nano = dry_run_of("gpt-5.4-nano");
    CHECK_THAT(nano, !Catch::Matchers::Contains("no price") &&
                         Catch::Matchers::Contains("chat openai gpt-5.4-nano: ") &&
                         Catch::Matchers::Contains("prices of 2026-12-07"));
}
