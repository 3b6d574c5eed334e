// The pending batch's handle (llmvalidate/pending.hpp): made from a run, written to and read
// from its JSON file. Collecting it is pipeline::collect() (run.cpp).
#include "llmvalidate/pending.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>

#include "cache/batch_ledger.hpp"
#include "core/sha256.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"

namespace llmv::pipeline {

using nlohmann::json;

namespace {

constexpr const char* format_name = "llmvalidate pending batch";

// A field of the settings table, as JSON and back, without loss (a double as its shortest
// round-trip text, a 64-bit seed as decimal text, an unset optional as null).
json to_json_field(const std::string& value) { return value; }
json to_json_field(bool value) { return value; }
json to_json_field(std::uint64_t value) { return std::to_string(value); }
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>, json> to_json_field(T value) {
    return value;
}
template <typename T>
json to_json_field(const std::optional<T>& value) {
    return value ? to_json_field(*value) : json(nullptr);
}

void from_json_field(const json& value, std::string& field) { field = value.get<std::string>(); }
void from_json_field(const json& value, bool& field) { field = value.get<bool>(); }
void from_json_field(const json& value, std::uint64_t& field) {
    field = std::stoull(value.get<std::string>());
}
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>> from_json_field(const json& value, T& field) {
    field = value.get<T>();
}
template <typename T>
void from_json_field(const json& value, std::optional<T>& field) {
    if (value.is_null()) return field.reset();
    T read{};
    from_json_field(value, read);
    field = read;
}

json config_json(const ValidationConfig& config) {
    json settings = json::object();
    visit_settings(config, [&](const char* name, const auto& field, double = 1) {
        settings[name] = to_json_field(field);
    });
    json out = {
        {"settings", settings},
        {"task_path", config.task_path},
        {"task_source", config.task_source},
        {"variables", config.variables},
        {"model", config.model},
        {"base_url", config.base_url},
        {"provider_options", config.provider_options},
        {"embedding_provider", config.embedding_provider},
        {"embedding_model", config.embedding_model},
        {"embedding_base_url", config.embedding_base_url},
        {"cache_path", config.cache_path},
        {"price_table", config.price_table},
        {"keep_texts", config.keep_texts},
        {"simulated_topic", config.simulated.topic},
        {"simulated_confusion", config.simulated.confusion},
    };
    return out;
}

ValidationConfig config_of(const json& in) {
    ValidationConfig config;
    const json& settings = in.at("settings");
    visit_settings(config, [&](const char* name, auto& field, double = 1) {
        if (settings.contains(name)) from_json_field(settings.at(name), field);
    });
    config.task_path = in.at("task_path").get<std::string>();
    config.task_source = in.at("task_source").get<std::string>();
    config.variables = in.at("variables").get<std::map<std::string, std::string>>();
    config.model = in.at("model").get<std::string>();
    config.base_url = in.at("base_url").get<std::string>();
    config.provider_options = in.at("provider_options").get<std::map<std::string, std::string>>();
    config.embedding_provider = in.at("embedding_provider").get<std::string>();
    config.embedding_model = in.at("embedding_model").get<std::string>();
    config.embedding_base_url = in.at("embedding_base_url").get<std::string>();
    config.cache_path = in.at("cache_path").get<std::string>();
    config.price_table = in.at("price_table").get<std::string>();
    config.keep_texts = in.at("keep_texts").get<bool>();
    config.simulated.topic = in.at("simulated_topic").get<std::string>();
    config.simulated.confusion =
        in.at("simulated_confusion").get<std::vector<std::vector<double>>>();
    return config;
}

json passage_json(const PassageInput& passage) {
    json out = {{"id", passage.id}, {"text", passage.text}};
    if (!passage.human_label.empty()) out["human"] = passage.human_label;
    if (!passage.variables.empty()) out["variables"] = passage.variables;
    if (!passage.simulation_template.empty()) out["simulation"] = passage.simulation_template;
    if (!passage.input_error.empty()) {
        out["input_error"] = passage.input_error;
        out["input_error_code"] = passage.input_error_code;
    }
    return out;
}

PassageInput passage_of(const json& in) {
    PassageInput passage;
    passage.id = in.at("id").get<std::string>();
    passage.text = in.at("text").get<std::string>();
    passage.human_label = in.value("human", std::string());
    if (in.contains("variables"))
        passage.variables = in.at("variables").get<std::map<std::string, std::string>>();
    passage.simulation_template = in.value("simulation", std::string());
    passage.input_error = in.value("input_error", std::string());
    passage.input_error_code = in.value("input_error_code", std::string());
    return passage;
}

// The run's identity: its settings and passages, as the file writes them.
std::string key_of(const json& config, const json& passages) {
    return sha256_hex(json{{"config", config}, {"passages", passages}}.dump());
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
#ifdef _WIN32
    gmtime_s(&utc, &now);
#else
    gmtime_r(&now, &utc);
#endif
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

[[noreturn]] void not_a_handle(const std::string& received, const std::string& why) {
    throw_invalid(code::invalid_argument, "pending", received,
                  "a pending batch's handle as a run with `wait` off saved it (" + why + ")");
}

}  // namespace

namespace {

// A file the run named relative to its working directory, as a path that another directory
// (where the handle is collected) reads too.
std::string absolute_file(const std::string& path) {
    std::error_code error;
    if (path.empty() || path == ":memory:" || !std::filesystem::exists(path, error)) return path;
    const std::filesystem::path absolute = std::filesystem::absolute(path, error);
    return error ? path : absolute.lexically_normal().string();
}

// The settings a handle keeps: the run's, without its keys, as a batch-API run with `wait` off,
// its files (cache, task, price table) by absolute paths.
ValidationConfig handle_config(const ValidationConfig& config) {
    ValidationConfig kept = config;
    kept.cache_path = absolute_file(kept.cache_path);
    kept.task_path = absolute_file(kept.task_path);
    kept.price_table = absolute_file(kept.price_table);
    kept.api_key.clear();
    kept.embedding_api_key.clear();
    kept.dry_run = false;
    kept.batch_api = true;
    kept.wait = false;
    return kept;
}

std::string key_of_run(const ValidationConfig& kept, const std::vector<PassageInput>& passages) {
    json passages_json = json::array();
    for (const PassageInput& passage : passages) passages_json.push_back(passage_json(passage));
    return key_of(config_json(kept), passages_json);
}

}  // namespace

std::string pending_key(const ValidationConfig& config, const std::vector<PassageInput>& passages) {
    return key_of_run(handle_config(config), passages);
}

PendingBatch pending_batch(const ValidationConfig& config,
                           const std::vector<PassageInput>& passages) {
    PendingBatch handle;
    handle.config = handle_config(config);
    handle.passages = passages;
    handle.created = utc_now();
    handle.key = key_of_run(handle.config, passages);
    if (!config.cache_path.empty() && config.cache_path != ":memory:") {
        Cache cache(config.cache_path, config.cache_busy_timeout_ms);
        BatchLedger ledger(cache);
        handle.batch_ids = ledger.provider_batch_ids("submitted");
    }
    return handle;
}

std::string pending_to_json(const PendingBatch& handle) {
    json passages = json::array();
    for (const PassageInput& passage : handle.passages) passages.push_back(passage_json(passage));
    const json out = {
        {"format", format_name},
        {"version", PendingBatch::format_version},
        {"created", handle.created},
        {"key", handle.key},
        {"cache", handle.config.cache_path},
        {"batch_ids", handle.batch_ids},
        {"config", config_json(handle.config)},
        {"passages", passages},
    };
    return out.dump(1) + "\n";
}

PendingBatch pending_from_json(const std::string& text) {
    const json in = json::parse(text, nullptr, false);
    if (in.is_discarded() || !in.is_object() || in.value("format", std::string()) != format_name)
        not_a_handle(abbreviate(text), "not one");
    if (in.value("version", 0) != PendingBatch::format_version)
        not_a_handle("version " + in.value("version", json()).dump(),
                     "version " + std::to_string(PendingBatch::format_version));
    PendingBatch handle;
    try {
        handle.created = in.at("created").get<std::string>();
        handle.key = in.at("key").get<std::string>();
        handle.batch_ids = in.at("batch_ids").get<std::vector<std::string>>();
        handle.config = config_of(in.at("config"));
        for (const json& passage : in.at("passages"))
            handle.passages.push_back(passage_of(passage));
    } catch (const json::exception& error) {
        not_a_handle(abbreviate(text),
                     std::string("a field is missing or mistyped: ") + error.what());
    }
    if (key_of_run(handle.config, handle.passages) != handle.key)
        not_a_handle("a handle whose settings or passages were changed",
                     "its key must match its settings and passages");
    return handle;
}

void save_pending(const PendingBatch& handle, const std::string& path) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << pending_to_json(handle);
        out.close();
        if (!out) throw Error(code::io, "could not write the pending batch's handle to " + path);
    }
    std::remove(path.c_str());  // Windows' rename does not replace a file
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw Error(code::io, "could not write the pending batch's handle to " + path);
    }
}

PendingBatch load_pending(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(code::io, "could not read the pending batch's handle " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return pending_from_json(text.str());
}

}  // namespace llmv::pipeline
