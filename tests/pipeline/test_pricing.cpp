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

#include "fake_server/fake_server.hpp"
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
    // The longest listed prefix: a dated gpt-4o-mini is not gpt-4o.
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
