// The run document (llmvalidate/report.hpp): what a run's report is rendered from.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include "core/utf8.hpp"
#include "llm/model_lifecycle.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/report.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/stats.hpp"

#ifndef LLMV_VERSION
#define LLMV_VERSION "0.1.0"  // the R package's build: DESCRIPTION's Version, the same number
#endif

namespace llmv::report {

namespace {

// A passage's text as the document shows it. The document is JSON, so UTF-8; a front end may
// give the text as the user wrote it (the engine's own copy is decoded already): decoded as
// the run decodes its input (input_encoding latin1), else a passage the run refused as not
// UTF-8 shown with its bad bytes replaced.
std::string as_utf8(const std::string& text, const std::string& input_encoding) {
    if (first_invalid_utf8(text) == std::string::npos) return text;
    return input_encoding == "latin1" ? latin1_to_utf8(text) : utf8_replace_invalid(text);
}

using json = nlohmann::ordered_json;

std::string now_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
#ifdef _WIN32
    gmtime_s(&tm, &now);
#else
    gmtime_r(&now, &tm);
#endif
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

// The binned null distribution of a statistic: `bins` equal bins over its finite values (and
// the statistic and critical value, so that both fall inside the drawn range).
json histogram(const Eigen::VectorXd& values, double statistic, double critical, int bins = 30) {
    double lo = INFINITY, hi = -INFINITY;
    for (Eigen::Index i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values(i))) continue;
        lo = std::min(lo, values(i));
        hi = std::max(hi, values(i));
    }
    if (!std::isfinite(lo)) return nullptr;
    for (double x : {statistic, critical}) {
        if (!std::isfinite(x)) continue;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    if (hi <= lo) hi = lo + 1e-9;
    std::vector<int> counts(static_cast<std::size_t>(bins), 0);
    for (Eigen::Index i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values(i))) continue;
        auto bin = static_cast<int>((values(i) - lo) / (hi - lo) * bins);
        counts[static_cast<std::size_t>(std::clamp(bin, 0, bins - 1))]++;
    }
    json out = json::object();
    out["lo"] = lo;
    out["hi"] = hi;
    out["counts"] = counts;
    return out;
}

// The exact two-sided (1 - alpha) Clopper-Pearson interval of k successes in n.
std::pair<double, double> share_interval(std::size_t k, std::size_t n, double alpha) {
    if (n == 0) return {NAN, NAN};
    const int ki = static_cast<int>(k), ni = static_cast<int>(n);
    const double low = stats::clopper_pearson_lower(ki, ni, alpha / 2);
    const double high = 1 - stats::clopper_pearson_lower(ni - ki, ni, alpha / 2);
    return {low, high};
}

void add_share(json& out, std::size_t valid, std::size_t decided, double alpha) {
    const auto [low, high] = share_interval(valid, decided, alpha);
    out["share_valid"] = records::json_number(decided ? double(valid) / double(decided) : NAN);
    out["ci_level"] = 1 - alpha;
    out["ci_low"] = records::json_number(low);
    out["ci_high"] = records::json_number(high);
}

json settings_of(const pipeline::ValidationConfig& config) {
    json out = json::object();
    for (const settings::Setting& setting : settings::table()) {
        if (setting.name == "api_key" || !settings::binds(config, setting.name)) continue;
        const settings::Value value = settings::get(config, setting);
        out[setting.name] = value.present ? settings::format_value(setting, value) : "(default)";
    }
    return out;
}

std::string lifecycle_of(const std::string& provider, const std::string& model,
                         const std::vector<pipeline::RunWarning>& warnings) {
    for (const auto& warning : warnings)
        if (warning.kind == "model_retiring" && warning.text.find(model) != std::string::npos)
            return "retiring: " + warning.text;
    if (provider == "simulated") return "synthetic (the simulated provider, not a vendor's model)";
    if (const LifecycleRow* row = find_shipped_lifecycle(provider, model)) {
        if (!row->retires.empty())
            return "retires " + row->retires +
                   (row->replacement.empty() ? "" : " (replacement: " + row->replacement + ")") +
                   "; " + row->source;
        return "active; " + row->source;
    }
    return "no retirement announced (shipped lifecycle table)";
}

}  // namespace

RunDocument::RunDocument(const pipeline::ValidationConfig& config, RunContext context) {
    doc_["format"] = document_format;
    doc_["llmvalidate_version"] = LLMV_VERSION;
    doc_["created"] = context.created.empty() ? now_utc() : context.created;
    doc_["synthetic"] = context.synthetic;
    doc_["banner"] = context.synthetic ? "the simulated provider ran: a synthetic "
                                         "data-generating process, not an LLM (docs/simulated.md)"
                                       : "";
    const bool paper =
        config.tests.validation_method == "paper" || config.tests.separation_method == "paper";
    doc_["paper"] = paper;
    doc_["method"] = paper ? "the paper's method (Hansen 2026, --paper: its bootstrap tests, the "
                             "prompt alone with no structured-output feature)"
                           : "llmvalidate's defaults: exact (rank) validation test, permutation "
                             "separation test (docs/method.md)";
    doc_["human_label_column"] = context.human_label_column;
    doc_["settings"] = settings_of(config);
    doc_["settings"]["cache"] = config.cache_path.empty() ? "(none)" : config.cache_path;
    json warnings = json::array();
    for (const auto& warning : context.warnings)
        warnings.push_back(json{{"kind", warning.kind}, {"text", warning.text}});
    doc_["warnings"] = warnings;
    doc_["models"] = json::array();
    doc_["columns"] = json::array();
}

void RunDocument::begin_column(const pipeline::ValidationConfig& config, ColumnInfo info) {
    info_ = std::move(info);
    for (auto* strings : {&info_.texts, &info_.titles})
        for (std::string& text : *strings) text = as_utf8(text, config.input_encoding);
    detail_kept_ = 0;
    json column = json::object();
    column["header"] = info_.header;
    column["task"] = config.task_path;
    column["provider"] = config.provider;
    column["model"] = config.model;
    column["embedding_provider"] = config.embedding_provider;
    column["embedding_model"] = config.embedding_model;
    column["variables"] = config.variables;
    column["passages"] = json::array();
    doc_["columns"].push_back(std::move(column));
}

void RunDocument::add_passage(const pipeline::PassageResult& result) {
    json entry = records::to_json(result);
    entry.erase("pool_texts");
    entry.erase("backtranslation_answers");
    const std::size_t i = result.index;
    entry["title"] = i < info_.titles.size() ? info_.titles[i] : std::string();
    entry["text"] = as_utf8(!result.passage_text.empty() ? result.passage_text
                            : i < info_.texts.size()     ? info_.texts[i]
                                                         : std::string(),
                            doc_["settings"].value("input_encoding", std::string("utf-8")));
    if (result.ok) {
        const stats::TestOutput& tests = result.tests;
        json hist = json::object();
        hist["validation"] = histogram(tests.validation.null_distribution,
                                       tests.validation.statistic, tests.validation.critical_value);
        json separation = json::array();
        for (const auto& test : tests.separation)
            separation.push_back(
                histogram(test.null_distribution, test.statistic, test.critical_value));
        hist["separation"] = separation;
        entry["histograms"] = hist;
    }
    // A sample of what the model wrote: every passage of a small run, the others only when
    // not valid (the report shows their detail).
    if (!result.pool_texts.empty() && (result.verdict_name != "valid" || i < all_detail_up_to)) {
        json samples = json::object();
        for (const auto& [label, texts] : result.pool_texts) {
            json some = json::array();
            for (std::size_t k = 0; k < texts.size() && k < 2; ++k)
                some.push_back(texts[k].size() > 400 ? texts[k].substr(0, 400) + "..." : texts[k]);
            samples[label] = some;
        }
        entry["samples"] = samples;
    }
    doc_["columns"].back()["passages"].push_back(std::move(entry));
    ++detail_kept_;
}

void RunDocument::end_column(const pipeline::RunOutcome& outcome) {
    json& column = doc_["columns"].back();
    json& passages = column["passages"];
    std::stable_sort(passages.begin(), passages.end(), [](const json& a, const json& b) {
        return a["index"].get<std::size_t>() < b["index"].get<std::size_t>();
    });
    // What the column takes from its passages, read before any key is added to the column (an
    // ordered_json object is a vector: a new key moves its members).
    json first = nullptr;
    for (const json& passage : passages)
        if (!passage.value("task", "").empty()) {
            first = passage;
            break;
        }
    double alpha = 0.05;
    if (first.is_object() && first.contains("tests") && first["tests"].is_object())
        alpha = first["tests"].value("alpha", 0.05);
    const pipeline::BatchResult& batch = outcome.result;
    column["status"] = pipeline::status_name(outcome.status);
    column["route"] = outcome.batch_report ? "batch API" : "synchronous";
    if (first.is_object()) {
        for (const char* key :
             {"task", "provider", "model", "embedding_provider", "embedding_model"})
            column[key] = first[key];
        column["prompt_hashes"] = first["prompt_hashes"];
    }
    json summary = records::to_json(batch.summary);
    summary.erase("benjamini_hochberg");
    const std::size_t decided =
        batch.summary.n_valid + batch.summary.n_invalid + batch.summary.n_inconclusive;
    add_share(summary, batch.summary.n_valid, decided, alpha);
    column["summary"] = summary;
    column["calls"] = records::to_json(batch.calls);
    json cost = json::object();
    cost["paid_through"] = batch.cost.paid_through;
    cost["dollars"] = batch.cost.paid_dollars();
    cost["complete"] = batch.cost.complete;
    cost["table"] = batch.cost.table;
    cost["note"] = batch.cost.note;
    json lines = json::array();
    for (const auto& line : batch.cost.lines)
        lines.push_back(json{{"role", line.role},
                             {"provider", line.provider},
                             {"model", line.model},
                             {"input_tokens", line.input_tokens},
                             {"output_tokens", line.output_tokens},
                             {"priced", line.priced},
                             {"dollars", batch.cost.paid_dollars(line)}});
    cost["lines"] = lines;
    column["cost"] = cost;
    json changes = json::array();
    for (const auto& change : batch.setting_changes)
        changes.push_back(json{{"setting", change.setting},
                               {"from", change.from},
                               {"to", change.to},
                               {"reason", change.reason}});
    column["setting_changes"] = changes;
    if (outcome.first_failure)
        column["first_failure"] = json{{"id", outcome.first_failure->id},
                                       {"code", outcome.first_failure->code},
                                       {"message", outcome.first_failure->message}};
}

const nlohmann::ordered_json& RunDocument::document() {
    std::size_t n = 0, valid = 0, invalid = 0, inconclusive = 0, failed = 0;
    double dollars = 0, alpha = 0.05;
    std::set<std::string> seen;
    nlohmann::ordered_json models = nlohmann::ordered_json::array();
    std::vector<pipeline::RunWarning> warnings;
    for (const auto& w : doc_["warnings"])
        warnings.push_back({w["kind"].get<std::string>(), w["text"].get<std::string>()});
    for (const auto& column : doc_["columns"]) {
        if (!column.contains("summary")) continue;
        const auto& s = column["summary"];
        n += s["passages"].get<std::size_t>();
        failed += s["failed"].get<std::size_t>();
        valid += s["valid"].get<std::size_t>();
        invalid += s["invalid"].get<std::size_t>();
        inconclusive += s["inconclusive"].get<std::size_t>();
        alpha = 1 - s["ci_level"].get<double>();
        dollars += column["cost"]["dollars"].get<double>();
        for (const char* role : {"chat", "embedding"}) {
            const std::string p =
                column[role == std::string("chat") ? "provider" : "embedding_provider"];
            const std::string m = column[role == std::string("chat") ? "model" : "embedding_model"];
            if (!seen.insert(std::string(role) + "\n" + p + "\n" + m).second) continue;
            models.push_back(nlohmann::ordered_json{{"role", role},
                                                    {"provider", p},
                                                    {"model", m},
                                                    {"lifecycle", lifecycle_of(p, m, warnings)}});
        }
    }
    doc_["models"] = models;
    nlohmann::ordered_json totals = nlohmann::ordered_json::object();
    totals["passages"] = n;
    totals["valid"] = valid;
    totals["invalid"] = invalid;
    totals["inconclusive"] = inconclusive;
    totals["failed"] = failed;
    add_share(totals, valid, valid + invalid + inconclusive, alpha);
    totals["dollars"] = dollars;
    doc_["totals"] = totals;
    return doc_;
}

std::string RunDocument::text() { return document().dump(2) + "\n"; }

nlohmann::ordered_json parse_document(const std::string& text, const std::string& source) {
    nlohmann::ordered_json doc;
    try {
        doc = nlohmann::ordered_json::parse(text);
    } catch (const std::exception& e) {
        throw Error(code::invalid_argument, "`" + source + "` is not JSON: " + e.what());
    }
    if (!doc.is_object() || doc.value("format", "") != document_format || !doc.contains("columns"))
        throw Error(code::invalid_argument,
                    "`" + source + "` is not a run document (" + document_format +
                        "): write one with `--run-json FILE` on `run` or `batch`");
    return doc;
}

}  // namespace llmv::report
