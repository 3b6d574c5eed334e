// Provider, model, key and cache resolution (resolution.hpp): the one copy of these rules.
#include "llmvalidate/resolution.hpp"

#include <sys/stat.h>
#include <sys/types.h>
#include <algorithm>
#include <cstdlib>
#include <mutex>
#ifdef _WIN32
#include <direct.h>
#endif

#include "llm/model_rules.hpp"
#include "llm/provider_spec.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/text.hpp"
#include "pipeline/simulated.hpp"

namespace llmv::pipeline {

namespace {

using Environment = std::optional<std::map<std::string, std::string>>;

std::string env_value(const Environment& environment, const std::string& name) {
    if (environment) {
        const auto found = environment->find(name);
        return found == environment->end() ? std::string() : found->second;
    }
    const char* value = std::getenv(name.c_str());
    return value ? std::string(value) : std::string();
}

const ProviderDefaults* find_defaults(const std::string& kind, const std::string& provider) {
    for (const ProviderDefaults& row : provider_defaults()) {
        if (row.kind == kind && row.provider == provider) return &row;
    }
    return nullptr;
}

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// One of the row's auto_variables is set ("A+B": both are).
bool auto_picks(const ProviderDefaults& row, const Environment& environment) {
    for (const std::string& variables : row.auto_variables) {
        bool all_set = true;
        std::size_t start = 0;
        while (all_set) {
            const std::size_t plus = variables.find('+', start);
            all_set = !env_value(environment, variables.substr(start, plus - start)).empty();
            if (plus == std::string::npos) break;
            start = plus + 1;
        }
        if (all_set) return true;
    }
    return false;
}

// The first row of `kind` whose protocol servers of one's own speak too (serves_own_base_url):
// what a base URL of one's own is run with.
const ProviderDefaults* own_server_row(const std::string& kind) {
    for (const ProviderDefaults& row : provider_defaults()) {
        if (row.kind == kind && row.serves_own_base_url) return &row;
    }
    return nullptr;
}

// A provider of `row` at `base_url` is a server of one's own: a base URL that is not the
// vendor's own host.
bool own_server(const ProviderDefaults* row, const std::string& base_url) {
    return row && row->serves_own_base_url && !base_url.empty() &&
           (row->vendor_host.empty() || base_url.find(row->vendor_host) == std::string::npos);
}

// The embedding row picked for a chat vendor without embeddings: the first whose
// fallback_variable is set.
const ProviderDefaults* embedding_fallback(const Environment& environment) {
    for (const ProviderDefaults& row : provider_defaults()) {
        if (row.kind == "embedding" && !row.fallback_variable.empty() &&
            !env_value(environment, row.fallback_variable).empty())
            return &row;
    }
    return nullptr;
}

// The chat rows "auto" may pick, by auto_rank.
std::vector<const ProviderDefaults*> auto_rows() {
    std::vector<const ProviderDefaults*> rows;
    for (const ProviderDefaults& row : provider_defaults()) {
        if (row.kind == "chat" && row.auto_rank > 0) rows.push_back(&row);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto* a, const auto* b) { return a->auto_rank < b->auto_rank; });
    return rows;
}

}  // namespace

namespace {

// The table: the rows of the providers' specs (cpp/llm/provider_spec.hpp, one file per vendor,
// where each default model is dated with its source), chat then embedding, each kind followed
// by its synthetic stand-in. Rebuilt when the registry changes (register_provider_defaults(),
// a provider of one's own).
// Model defaults: small, current models of each vendor, for trying the package; a study
// should name its model (the paper's point is that validity is a property of one model).
// Re-check them against the vendors' lists (GET /v1/models, ListFoundationModels:
// `llmvalidate models --provider P`) when a vendor retires a model.
const std::vector<ProviderDefaults>& provider_table() {
    static std::vector<ProviderDefaults> table;
    static std::uint64_t built = 0;
    // Two threads reading the table first at once build it once; a registration while a run
    // reads it is not supported (resolution.hpp).
    static std::mutex mutex;
    const std::lock_guard<std::mutex> lock(mutex);
    const std::uint64_t version = provider_specs_version();
    if (built == version) return table;
    const std::vector<ProviderSpec> specs = provider_specs();
    std::vector<ProviderDefaults> rows;
    for (const char* kind : {"chat", "embedding"}) {
        for (const ProviderSpec& spec : specs) {
            if (!spec.listed || spec.defaults.kind != kind) continue;
            ProviderDefaults row = spec.defaults;
            row.batch_api = row.batch_api || static_cast<bool>(spec.batch_api);
            rows.push_back(std::move(row));
        }
        if (std::string(kind) == "chat") {
            ProviderDefaults simulated{"chat",
                                       simulated_provider_name,
                                       simulated_model_name,
                                       hashed_embedding_name,
                                       "none: a synthetic data-generating process, not an LLM",
                                       "",
                                       ""};
            simulated.free_local = true;
            rows.push_back(std::move(simulated));
        } else {
            ProviderDefaults hashed{"embedding",
                                    hashed_embedding_name,
                                    hashed_embedding_model,
                                    "",
                                    "none: a hashed bag of words, not a language model",
                                    "",
                                    ""};
            hashed.free_local = true;
            rows.push_back(std::move(hashed));
        }
    }
    table = std::move(rows);
    built = version;
    return table;
}

}  // namespace

const std::vector<ProviderDefaults>& provider_defaults() { return provider_table(); }

void register_provider_defaults(const ProviderDefaults& row) { set_provider_row(row); }

void remove_provider_defaults(const std::string& kind, const std::string& provider) {
    unlist_provider_row(kind, provider);
}

std::string provider_names(const std::string& kind, const std::string& separator,
                           const std::string& quote) {
    std::string names;
    for (const ProviderDefaults& row : provider_defaults()) {
        if (row.kind != kind) continue;
        names += (names.empty() ? "" : separator) + quote + row.provider + quote;
    }
    return names;
}

std::string auto_sources(const std::string& separator, const std::string& last) {
    std::vector<std::string> labels = {"LLMV_BASE_URL"};
    for (const ProviderDefaults* row : auto_rows()) labels.push_back(row->auto_label);
    return text::join_list(labels, separator, last);
}

std::vector<std::string> secret_variables() {
    std::vector<std::string> names;
    for (const ProviderDefaults& row : provider_defaults()) {
        for (const std::string& name : row.key_variables) {
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    }
    return names;
}

std::string batch_api_provider_names(const std::string& separator) {
    std::string names;
    for (const ProviderDefaults& row : provider_defaults()) {
        if (row.kind == "chat" && row.batch_api)
            names += (names.empty() ? "" : separator) + row.provider;
    }
    return names;
}

bool has_batch_api(const std::string& chat_provider) {
    const ProviderDefaults* row = find_defaults("chat", chat_provider);
    return row && row->batch_api;
}

std::string default_embedding_provider(const std::string& chat_provider) {
    const ProviderDefaults* row = find_defaults("chat", chat_provider);
    return row ? row->embedding_family : std::string();
}

std::string ResolvedProviders::description() const {
    if (synthetic_chat) {
        return "Provider: simulated (a synthetic data-generating process, docs/simulated.md; not "
               "an LLM).";
    }
    std::string line = "Provider: " + chat_provider + " (model " + chat_model + ")";
    if (!chosen_from.empty())
        line += ", chosen from " + text::without_url_credentials(chosen_from);
    line += ". Embeddings: " + embedding_provider + " (model " + embedding_model + ").";
    if (!synthetic_embedding_reason.empty()) {
        line += " SYNTHETIC EMBEDDINGS: " + synthetic_embedding_reason;
    }
    return line;
}

ResolvedProviders resolve_providers(const ValidationConfig& config, const ResolveOptions& options) {
    const Environment& environment = options.environment;
    ResolvedProviders resolved;
    resolved.chat_provider = config.provider.empty() ? auto_provider_name : config.provider;
    resolved.chat.base_url = config.base_url;
    bool server_of_your_own_from_environment = false;
    if (resolved.chat_provider == auto_provider_name) {
        const std::string llmv_base_url = env_value(environment, "LLMV_BASE_URL");
        const ProviderDefaults* own = own_server_row("chat");
        if (own && (!config.base_url.empty() || !llmv_base_url.empty())) {
            resolved.chat_provider = own->provider;
            if (resolved.chat.base_url.empty()) {
                resolved.chat.base_url = llmv_base_url;
                server_of_your_own_from_environment = true;
                resolved.chosen_from = "LLMV_BASE_URL (" + llmv_base_url + ")";
            } else {
                resolved.chosen_from = "the base URL (" + config.base_url + ")";
            }
        } else {
            for (const ProviderDefaults* row : auto_rows()) {
                if (!auto_picks(*row, environment)) continue;
                resolved.chat_provider = row->provider;
                resolved.chosen_from = row->auto_label;
                break;
            }
        }
    }
    if (resolved.chat_provider == auto_provider_name) {  // nothing in the environment
        if (options.allow_synthetic_fallback) {
            resolved.chat_provider = simulated_provider_name;
            resolved.chosen_from = "no provider configured";
        } else {
            throw_invalid(code::invalid_argument, "provider",
                          "\"auto\", with no provider configured in the environment",
                          "a provider named explicitly (" + provider_names("chat", ", ", "\"") +
                              "), or one of " + auto_sources(", ", " or ") +
                              " set; the simulated provider (a synthetic "
                              "data-generating process) runs only when named");
        }
    }
    const ProviderDefaults* chat_row = find_defaults("chat", resolved.chat_provider);
    if (chat_row && chat_row->serves_own_base_url && resolved.chat.base_url.empty()) {
        // LLMV_BASE_URL is the base URL's environment variable for such a provider named
        // explicitly too (R's llm_provider_openai(), the CLI's --provider openai), not only for
        // "auto".
        resolved.chat.base_url = env_value(environment, "LLMV_BASE_URL");
        server_of_your_own_from_environment = !resolved.chat.base_url.empty();
    }
    if (!chat_row) {
        throw_invalid(code::invalid_argument, "provider", quoted(resolved.chat_provider),
                      "one of " + provider_names("chat", ", ", "\"") + ", or \"auto\"");
    }
    resolved.synthetic_chat = resolved.chat_provider == simulated_provider_name;
    if (resolved.synthetic_chat) {
        resolved.chat_model = simulated_model_name;
    } else {
        resolved.chat_model = config.model;
        if (resolved.chat_model.empty()) resolved.chat_model = env_value(environment, "LLMV_MODEL");
        if (resolved.chat_model.empty()) {
            if (server_of_your_own_from_environment) {
                resolved.chat_model = "default";  // one loaded model; such a server ignores the name
            } else if (chat_row->serves_own_base_url && !resolved.chat.base_url.empty()) {
                throw_invalid(code::invalid_argument, "model", "none",
                              "the name of the model the server at " + resolved.chat.base_url +
                                  " serves (a server of your own has no default model)");
            } else {
                const ProviderDefaults* row = chat_row;
                resolved.chat_model = row->model;
                if (row->default_model_for) {
                    ProviderConfig where;
                    where.environment = environment;
                    resolved.chat_model = row->default_model_for(row->model, where);
                }
            }
        }
        // Before any call: a retired model, or a sampling value the model refuses, is an error
        // naming the setting (model_rules.hpp), not a failed request per passage. A server of
        // your own (an OpenAI-compatible base URL) keeps its own rules.
        if (!own_server(chat_row, resolved.chat.base_url)) {
            check_model_settings(resolved.chat_provider, resolved.chat_model, config.temperature,
                                 config.top_p, config.max_tokens, config.reasoning_effort);
        }
        resolved.chat.api_key = config.api_key;
        resolved.chat.options = config.provider_options;
        resolved.chat.connect_timeout_ms = config.connect_timeout_ms;
        resolved.chat.total_timeout_ms = config.total_timeout_ms;
        resolved.chat.environment = environment;
    }

    const std::string family = default_embedding_provider(resolved.chat_provider);
    std::string embedding = config.embedding_provider;
    if (embedding == simulated_provider_name) embedding = hashed_embedding_name;
    if (embedding.empty()) {
        if (!family.empty()) {
            embedding = family;
        } else if (const ProviderDefaults* fallback = embedding_fallback(environment)) {
            embedding = fallback->provider;  // the vendor has no embeddings; another's key is there
        } else if (options.allow_synthetic_fallback) {
            embedding = hashed_embedding_name;
            resolved.synthetic_embedding_reason =
                "provider " + resolved.chat_provider +
                " offers no embedding model and none is configured, so texts are embedded by a "
                "hashed bag of words, not by a language model.";
        } else {
            throw_invalid(code::invalid_argument, "embedding_provider", "none",
                          "an embedding provider (" + provider_names("embedding", ", ", "\"") +
                              "): provider " + resolved.chat_provider +
                              " offers no embedding model");
        }
    }
    if (!find_defaults("embedding", embedding)) {
        throw_invalid(code::invalid_argument, "embedding_provider", quoted(embedding),
                      "one of " + provider_names("embedding", ", ", "\"") + ", or \"simulated\"");
    }
    resolved.embedding_provider = embedding;
    resolved.local_embedding = embedding == hashed_embedding_name;
    if (resolved.local_embedding) {
        resolved.embedding_model = hashed_embedding_model;
        return resolved;
    }
    // The chat provider's URL and key go to its own vendor's embedder only: an Anthropic key
    // must never reach OpenAI's endpoint.
    const bool same_vendor = !resolved.synthetic_chat && embedding == family;
    resolved.embedding.base_url = config.embedding_base_url;
    if (resolved.embedding.base_url.empty() && same_vendor) {
        resolved.embedding.base_url = resolved.chat.base_url;
    }
    // The chat server's key (given, or LLMV_API_KEY) reaches the embedder only when it is that
    // same server; another one reads its own (docs/providers.md, "Keys").
    const bool chat_server = same_vendor && resolved.embedding.base_url == resolved.chat.base_url;
    resolved.embedding.api_key = config.embedding_api_key;
    if (resolved.embedding.api_key.empty() && chat_server)
        resolved.embedding.api_key = config.api_key;
    if (!chat_server) resolved.embedding.server_key_env = "LLMV_EMBEDDING_API_KEY";
    resolved.embedding.connect_timeout_ms = config.connect_timeout_ms;
    resolved.embedding.total_timeout_ms = config.total_timeout_ms;
    resolved.embedding.environment = environment;
    resolved.embedding_model = config.embedding_model;
    if (resolved.embedding_model.empty()) {
        resolved.embedding_model = env_value(environment, "LLMV_EMBEDDING_MODEL");
    }
    if (resolved.embedding_model.empty()) {
        if (find_defaults("embedding", embedding)->serves_own_base_url &&
            !resolved.embedding.base_url.empty()) {
            // A server of your own has no default embedding model, and the chat model is no
            // stand-in: vLLM and OpenRouter refuse it, Ollama would embed with the chat LLM.
            throw_invalid(code::invalid_argument, "embedding_model", "none",
                          "the name of the embedding model the server at " +
                              resolved.embedding.base_url +
                              " serves, or LLMV_EMBEDDING_MODEL set (the chat model is never "
                              "used for embeddings)");
        } else {
            resolved.embedding_model = find_defaults("embedding", embedding)->model;
        }
    }
    return resolved;
}

void apply_resolution(ValidationConfig& config, const ResolvedProviders& resolved) {
    config.provider = resolved.chat_provider;
    config.base_url = resolved.synthetic_chat ? config.base_url : resolved.chat.base_url;
    if (!resolved.synthetic_chat) config.model = resolved.chat_model;
    config.embedding_provider = resolved.embedding_provider;
    config.embedding_model = resolved.embedding_model;
}

std::string default_cache_path(const Environment& environment) {
    const std::string explicit_path = env_value(environment, "LLMV_CACHE");
    if (!explicit_path.empty()) return explicit_path;
    std::string root = env_value(environment, "R_USER_CACHE_DIR");
    if (root.empty()) root = env_value(environment, "XDG_CACHE_HOME");
#ifdef _WIN32
    if (root.empty()) root = env_value(environment, "LOCALAPPDATA") + "/R/cache";
#elif defined(__APPLE__)
    if (root.empty()) root = env_value(environment, "HOME") + "/Library/Caches/org.R-project.R";
#else
    if (root.empty()) root = env_value(environment, "HOME") + "/.cache";
#endif
    return root + "/R/llmvalidate/cache.sqlite";
}

void prepare_cache_directory(const std::string& path) {
    if (path.empty() || path == ":memory:" || path != default_cache_path()) return;
    const auto slash = path.find_last_of("/\\");
    if (slash == std::string::npos) return;
    const std::string directory = path.substr(0, slash);
    // Each parent in turn; failures on the way (a drive letter, a directory that exists) are
    // harmless, only the end result counts.
    for (std::size_t at = 1; at <= directory.size(); ++at) {
        if (at != directory.size() && directory[at] != '/' && directory[at] != '\\') continue;
        const std::string prefix = directory.substr(0, at);
#ifdef _WIN32
        (void)_mkdir(prefix.c_str());
#else
        (void)mkdir(prefix.c_str(), 0700);
#endif
    }
    struct stat status {};
    if (stat(directory.c_str(), &status) != 0 || !(status.st_mode & S_IFDIR)) {
        throw_invalid(code::cache, "cache", quoted(path),
                      "a file in a directory that exists or can be created (" + directory +
                          " could not be created)");
    }
}

}  // namespace llmv::pipeline
