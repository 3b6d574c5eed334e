// Issue 39: the shipped lifecycle table (dated rows with sources), the lifecycle rules, and the
// vendors' own lifecycle fields read from their model lists.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "llm/model_catalogue.hpp"
#include "llm/model_lifecycle.hpp"

using nlohmann::json;
using namespace llmv;

namespace {

ProviderConfig isolated(std::map<std::string, std::string> environment) {
    ProviderConfig config;
    config.environment = std::move(environment);
    return config;
}

HttpResponse ok(const json& body) {
    HttpResponse response;
    response.status = 200;
    response.body = body.dump();
    return response;
}

}  // namespace

TEST_CASE("the shipped table: OpenAI's 2026 and 2027 shutdowns, with the replacements",
          "[lifecycle]") {
    const auto retires = [](const std::string& provider, const std::string& model) {
        const LifecycleRow* row = find_shipped_lifecycle(provider, model);
        return row ? row->retires + " " + row->replacement : std::string("none");
    };
    // 2026-10-23 (OpenAI's 2026-04-22 entry); a dated snapshot and a more specific row.
    CHECK(retires("openai", "gpt-4") == "2026-10-23 gpt-5.6-sol");
    CHECK(retires("openai", "gpt-4-0613") == "2026-10-23 gpt-5.6-sol");
    CHECK(retires("openai", "gpt-4-turbo-2024-04-09") == "2026-10-23 gpt-5.6-sol");
    CHECK(retires("openai", "gpt-3.5-turbo") == "2026-10-23 gpt-5.6-terra");
    CHECK(retires("openai", "o1-pro") == "2026-10-23 gpt-5.6-sol");
    CHECK(retires("openai", "o3-mini-2025-01-31") == "2026-10-23 gpt-5.6-sol");
    CHECK(retires("openai", "o4-mini") == "2026-10-23 gpt-5.6-terra");
    CHECK(retires("openai", "gpt-4.1-nano") == "2026-10-23 gpt-5.6-luna");
    CHECK(retires("openai", "gpt-4o-2024-05-13") == "2026-10-23 gpt-5.6-sol");
    // 2026-12-11 (the 2026-06-11 entry).
    CHECK(retires("openai", "gpt-5") == "2026-12-11 gpt-6.1-sol");
    CHECK(retires("openai", "gpt-5-2025-08-07") == "2026-12-11 gpt-6.1-sol");
    CHECK(retires("openai", "gpt-5-mini") == "2026-12-11 gpt-6.1-terra");
    CHECK(retires("openai", "gpt-5-nano") == "2026-12-11 ");
    CHECK(retires("openai", "o3") == "2026-12-11 gpt-6.1-sol");
    CHECK(retires("openai", "o3-pro-2025-06-10") == "2026-12-11 gpt-6.1-sol");
    // 2027-01-14 (the 2026-10-14 entry).
    CHECK(retires("openai", "gpt-4o") == "2027-01-14 gpt-6-luna");
    CHECK(retires("openai", "gpt-4o-2024-11-20") == "2027-01-14 gpt-6-luna");
    CHECK(retires("openai", "gpt-4o-mini") == "2027-01-14 gpt-6-luna");
    CHECK(retires("openai", "gpt-4.1") == "2027-01-14 gpt-6-luna");
    CHECK(retires("openai", "gpt-4.1-mini-2025-04-14") == "2027-01-14 gpt-6-luna");
    // Not covered: newer models, and ids that only share a prefix.
    CHECK(retires("openai", "gpt-5.1") == "none");
    CHECK(retires("openai", "gpt-6-luna") == "none");
    CHECK(retires("openai", "o3-deep-research") == "none");
    CHECK(retires("openai", "text-embedding-3-small") == "none");
}

TEST_CASE("the shipped table: Claude 3 at Anthropic's retirement dates, Opus 4.5 in 2027",
          "[lifecycle]") {
    const auto retires = [](const std::string& model) {
        const LifecycleRow* row = find_shipped_lifecycle("anthropic", model);
        return row ? row->retires : std::string("none");
    };
    CHECK(retires("claude-3-opus-20240229") == "2026-01-05");
    CHECK(retires("claude-3-sonnet-20240229") == "2025-07-21");
    CHECK(retires("claude-3-5-sonnet-20241022") == "2025-10-22");
    CHECK(retires("claude-3-7-sonnet-20250219") == "2026-02-19");
    CHECK(retires("claude-3-5-haiku-latest") == "2026-02-19");
    CHECK(retires("claude-3-haiku-20240307") == "2026-04-19");
    CHECK(retires("claude-sonnet-4-20250514") == "2026-06-15");
    CHECK(retires("claude-sonnet-4-5-20250929") == "2026-11-30");
    CHECK(retires("claude-opus-4-5") == "2027-01-22");
    CHECK(retires("claude-opus-4-5-20251101") == "2027-01-22");
    CHECK(retires("claude-sonnet-4-6") == "none");
    CHECK(retires("claude-haiku-4-5") == "none");
    CHECK(retires("claude-opus-4-8") == "none");
    // Bedrock sets its own dates (AWS's model lifecycle page): its list speaks for it.
    CHECK_FALSE(find_shipped_lifecycle("bedrock", "anthropic.claude-3-haiku-20240307-v1:0"));
}

TEST_CASE("every row is dated, with its source", "[lifecycle]") {
    for (const LifecycleRow& row : shipped_lifecycle()) {
        INFO(row.provider << " " << row.model);
        CHECK(date_of_timestamp(row.retires) == row.retires);
        if (!row.deprecated.empty()) CHECK(row.deprecated < row.retires);
        CHECK(row.source.find("20") != std::string::npos);  // a date read
        CHECK(find_shipped_lifecycle(row.provider, row.model) == &row);
    }
}

TEST_CASE("lifecycle states: a past date retires OpenAI's and Bedrock's models, not Anthropic's",
          "[lifecycle]") {
    CHECK(lifecycle_state("", "2026-12-11", true, "2026-12-07") == "deprecated");
    CHECK(lifecycle_state("", "2026-12-11", true, "2026-12-11") == "retired");
    CHECK(lifecycle_state("", "", true, "2026-12-07") == "active");
    CHECK(lifecycle_state("LEGACY", "2027-03-01", true, "2026-12-07") == "deprecated");
    CHECK(lifecycle_state("ACTIVE", "", true, "2026-12-07") == "active");
    // Anthropic: "a past date on a deprecated model means retirement is overdue".
    CHECK(lifecycle_state("deprecated", "2026-11-01", false, "2026-12-07") == "deprecated");
    CHECK(lifecycle_state("retired", "", false, "2026-12-07") == "retired");
    CHECK(days_between("2026-12-07", "2026-12-11") == 4);
    CHECK(days_between("2026-12-07", "2027-01-14") == 38);
    CHECK(days_between("2026-12-07", "2026-11-30") == -7);
    CHECK(date_of_timestamp("2027-01-22T00:00:00Z") == "2027-01-22");
    CHECK(date_of_epoch_seconds(1798156800) == "2026-12-25");
    CHECK(today_utc().size() == 10);
}

TEST_CASE("lifecycle_of: the vendor's own date first, the table's when it gives none",
          "[lifecycle]") {
    CatalogueModel listed{"gpt-5", "", "model", ""};
    listed.retires = "2027-02-01";  // the vendor moved the date
    ModelLifecycle lifecycle = lifecycle_of("openai", "gpt-5", &listed, "2026-12-20");
    CHECK(lifecycle.state == "deprecated");
    CHECK(lifecycle.retires == "2027-02-01");
    CHECK(lifecycle.source == "vendor");
    CHECK(lifecycle.replacement == "gpt-6.1-sol");  // the list names none: the table's
    listed.retires.clear();
    lifecycle = lifecycle_of("openai", "gpt-5", &listed, "2026-12-20");
    CHECK(lifecycle.state == "retired");
    CHECK(lifecycle.retires == "2026-12-11");
    CHECK(lifecycle.source.find("OpenAI deprecations page") != std::string::npos);
    lifecycle = lifecycle_of("openai", "gpt-5.5", nullptr, "2026-12-20");
    CHECK(lifecycle.state == "active");
    CHECK(lifecycle.source.empty());
    // Anthropic's word decides over a table date past.
    CatalogueModel claude{"claude-opus-4-5", "", "model", "deprecated"};
    claude.date_decides = false;
    CHECK(lifecycle_of("anthropic", "claude-opus-4-5", &claude, "2027-02-01").state ==
          "deprecated");
    CHECK(lifecycle_of("anthropic", "claude-opus-4-5", nullptr, "2027-02-01").state == "retired");
}

TEST_CASE("the catalogue reads OpenAI's shutdown_date, Anthropic's lifecycle and Bedrock's",
          "[lifecycle][catalogue]") {
    const ModelCatalogue openai("openai", isolated({{"OPENAI_API_KEY", "k"}}));
    std::vector<CatalogueModel> models;
    const HttpRequest openai_request = openai.requests().front();
    CHECK_FALSE(
        openai.read(openai_request,
                    ok({{"object", "list"},
                        {"data",
                         {{{"id", "gpt-5"}, {"object", "model"}, {"shutdown_date", "2026-12-11"}},
                          {{"id", "gpt-5.5"}, {"object", "model"}, {"shutdown_date", nullptr}},
                          {{"id", "gpt-6-luna"}, {"object", "model"}}}}}),
                    models));
    REQUIRE(models.size() == 3);
    CHECK(models[0].retires == "2026-12-11");
    CHECK(models[0].date_decides);
    CHECK(models[1].retires.empty());
    CHECK(models[2].retires.empty());

    const ModelCatalogue anthropic("anthropic", isolated({{"ANTHROPIC_API_KEY", "k"}}));
    const HttpRequest anthropic_request = anthropic.requests().front();
    // Every lifecycle stage is asked for: the list holds retired models only when asked.
    CHECK(anthropic_request.url.find("lifecycle%5B%5D=retired") != std::string::npos);
    CHECK(anthropic_request.url.find("lifecycle%5B%5D=deprecated") != std::string::npos);
    models.clear();
    CHECK_FALSE(anthropic.read(anthropic_request,
                               ok({{"data",
                                    {{{"id", "claude-opus-4-5"},
                                      {"display_name", "Claude Opus 4.5"},
                                      {"lifecycle", "deprecated"},
                                      {"deprecated_at", "2026-10-22T00:00:00Z"},
                                      {"retires_at", "2027-01-22T00:00:00Z"},
                                      {"max_tokens", 64000}},
                                     {{"id", "claude-3-haiku-20240307"},
                                      {"lifecycle", "retired"},
                                      {"deprecated_at", "2026-02-18T00:00:00Z"},
                                      {"retires_at", "2026-04-19T00:00:00Z"},
                                      {"max_tokens", nullptr}}}},
                                   {"has_more", false}}),
                               models));
    REQUIRE(models.size() == 2);
    CHECK(models[0].status == "deprecated");
    CHECK(models[0].retires == "2027-01-22");
    CHECK(models[0].deprecated == "2026-10-22");
    CHECK(models[0].max_tokens == 64000);
    CHECK_FALSE(models[0].date_decides);
    CHECK(models[1].status == "retired");

    const ModelCatalogue bedrock(
        "bedrock", isolated({{"AWS_BEARER_TOKEN_BEDROCK", "k"}, {"AWS_REGION", "us-east-1"}}));
    models.clear();
    const HttpRequest bedrock_request = bedrock.requests().front();
    CHECK_FALSE(bedrock.read(
        bedrock_request,
        ok({{"modelSummaries",
             {{{"modelId", "anthropic.claude-3-haiku-20240307-v1:0"},
               {"modelLifecycle",
                {{"status", "LEGACY"}, {"legacyTime", 1767225600}, {"endOfLifeTime", 1798156800}}}},
              {{"modelId", "anthropic.claude-sonnet-4-6"},
               {"modelLifecycle", {{"status", "ACTIVE"}}}}}}}),
        models));
    REQUIRE(models.size() == 2);
    CHECK(models[0].status == "LEGACY");
    CHECK(models[0].retires == "2026-12-25");
    CHECK(models[0].deprecated == "2026-01-01");
    CHECK(models[1].retires.empty());
    // An inference profile is looked up as the foundation model inside it.
    const CatalogueModel* found =
        find_in_catalogue(models, "us.anthropic.claude-3-haiku-20240307-v1:0");
    REQUIRE(found);
    CHECK(found->id == "anthropic.claude-3-haiku-20240307-v1:0");
    CHECK_FALSE(find_in_catalogue(models, "meta.llama3-8b-instruct-v1:0"));

    // The day cache keeps every field.
    const std::vector<CatalogueModel> back = catalogue_from_json(catalogue_to_json(models));
    REQUIRE(back.size() == 2);
    CHECK(back[0].retires == "2026-12-25");
    CHECK(back[0].status == "LEGACY");
    CHECK(back[0].date_decides);
    // Its key names the list, not the credential.
    CHECK(anthropic.identity() == "anthropic https://api.anthropic.com/v1/models");
}
