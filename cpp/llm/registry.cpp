// The one provider registry: one line per vendor (its file's specs, provider_spec.hpp).
// Run-time additions (the `simulated` provider of the pipeline, a provider of one's own, test
// doubles) go through register_provider_spec() or register_*_provider().
#include <algorithm>
#include <mutex>

#include "llm/provider_spec.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

namespace {

std::vector<ProviderSpec> builtin_specs() {
    std::vector<ProviderSpec> specs;
    for (auto vendor : {
             openai_provider_specs,
             anthropic_provider_specs,
             bedrock_provider_specs,
             ollama_provider_specs,
         }) {
        for (ProviderSpec& spec : vendor()) specs.push_back(std::move(spec));
    }
    return specs;
}

struct Registry {
    std::mutex mutex;
    std::vector<ProviderSpec> specs = builtin_specs();
    std::uint64_t version = 1;

    ProviderSpec* find(const std::string& kind, const std::string& name) {
        for (ProviderSpec& spec : specs) {
            if (spec.defaults.kind == kind && spec.defaults.provider == name) return &spec;
        }
        return nullptr;
    }
    // The spec of `kind` and `name`, added unlisted and without a factory when there is none.
    ProviderSpec& entry(const std::string& kind, const std::string& name) {
        if (ProviderSpec* known = find(kind, name)) return *known;
        ProviderSpec spec;
        spec.defaults.kind = kind;
        spec.defaults.provider = name;
        spec.listed = false;
        specs.push_back(std::move(spec));
        return specs.back();
    }
};

Registry& registry() {
    static Registry instance;
    return instance;
}

bool has_factory(const ProviderSpec& spec) {
    return spec.defaults.kind == "chat" ? static_cast<bool>(spec.make_chat)
                                        : static_cast<bool>(spec.make_embedding);
}

[[noreturn]] void unknown(const std::string& name, const std::string& kind) {
    std::string names;
    for (const ProviderSpec& spec : registry().specs) {
        if (spec.defaults.kind == kind && has_factory(spec))
            names += (names.empty() ? "" : ", ") + ("\"" + spec.defaults.provider + "\"");
    }
    throw_invalid(code::invalid_argument, "provider", "\"" + name + "\"",
                  "one of the " + kind + " providers " + names);
}

}  // namespace

std::unique_ptr<ChatProvider> make_chat_provider(const std::string& name,
                                                 const ProviderConfig& config) {
    ChatProviderFactory factory;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        const ProviderSpec* spec = registry().find("chat", name);
        if (!spec || !spec->make_chat) unknown(name, "chat");
        factory = spec->make_chat;
    }
    return factory(config);
}

std::unique_ptr<EmbeddingProvider> make_embedding_provider(const std::string& name,
                                                           const ProviderConfig& config) {
    EmbeddingProviderFactory factory;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        const ProviderSpec* spec = registry().find("embedding", name);
        if (!spec || !spec->make_embedding) unknown(name, "embedding");
        factory = spec->make_embedding;
    }
    return factory(config);
}

namespace {

std::vector<std::string> names_of(const std::string& kind) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    std::vector<std::string> names;
    for (const ProviderSpec& spec : registry().specs) {
        if (spec.defaults.kind == kind && has_factory(spec))
            names.push_back(spec.defaults.provider);
    }
    return names;
}

}  // namespace

std::vector<std::string> chat_provider_names() { return names_of("chat"); }
std::vector<std::string> embedding_provider_names() { return names_of("embedding"); }

void register_chat_provider(const std::string& name, ChatProviderFactory factory) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().entry("chat", name).make_chat = std::move(factory);
    ++registry().version;
}

void register_embedding_provider(const std::string& name, EmbeddingProviderFactory factory) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().entry("embedding", name).make_embedding = std::move(factory);
    ++registry().version;
}

std::vector<ProviderSpec> provider_specs() {
    std::lock_guard<std::mutex> lock(registry().mutex);
    return registry().specs;
}

std::optional<ProviderSpec> find_provider_spec(const std::string& kind, const std::string& name) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    const ProviderSpec* spec = registry().find(kind, name);
    return spec ? std::optional<ProviderSpec>(*spec) : std::nullopt;
}

void register_provider_spec(ProviderSpec spec) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    ProviderSpec& entry = registry().entry(spec.defaults.kind, spec.defaults.provider);
    entry = std::move(spec);
    ++registry().version;
}

void remove_provider_spec(const std::string& kind, const std::string& name) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto& specs = registry().specs;
    specs.erase(std::remove_if(specs.begin(), specs.end(),
                               [&](const ProviderSpec& spec) {
                                   return spec.defaults.kind == kind &&
                                          spec.defaults.provider == name;
                               }),
                specs.end());
    ++registry().version;
}

void set_provider_row(const pipeline::ProviderDefaults& row) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    ProviderSpec& entry = registry().entry(row.kind, row.provider);
    entry.defaults = row;
    entry.listed = true;
    ++registry().version;
}

void unlist_provider_row(const std::string& kind, const std::string& name) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    if (ProviderSpec* spec = registry().find(kind, name)) spec->listed = false;
    ++registry().version;
}

std::uint64_t provider_specs_version() {
    std::lock_guard<std::mutex> lock(registry().mutex);
    return registry().version;
}

std::unique_ptr<ModelLister> model_lister_of(const std::string& name,
                                             const ProviderConfig& config) {
    ModelListerFactory factory;
    std::vector<std::string> names;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        for (const char* kind : {"chat", "embedding"}) {
            for (const ProviderSpec& spec : registry().specs) {
                if (spec.defaults.kind != kind || !spec.model_list) continue;
                if (!factory && spec.defaults.provider == name) factory = spec.model_list;
                if (std::find(names.begin(), names.end(), spec.defaults.provider) == names.end())
                    names.push_back(spec.defaults.provider);
            }
        }
    }
    if (!factory) {
        std::string allowed;
        for (std::size_t i = 0; i < names.size(); ++i)
            allowed += (i == 0                  ? ""
                        : i + 1 == names.size() ? " or "
                                                : ", ") +
                       ("\"" + names[i] + "\"");
        throw_invalid(code::invalid_argument, "provider", "\"" + name + "\"",
                      "a vendor with a model list: " + allowed);
    }
    return factory(config);
}

std::shared_ptr<const BatchApi> batch_api_of(const std::string& kind, const std::string& name,
                                             const HttpRequest& synchronous) {
    BatchApiChooser chooser;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        const ProviderSpec* spec = registry().find(kind, name);
        if (spec) chooser = spec->batch_api;
    }
    return chooser ? chooser(synchronous) : nullptr;
}

}  // namespace llmv
