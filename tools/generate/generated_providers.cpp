// What is written from the provider table (llmvalidate/resolution.hpp): the defaults table of
// docs/providers.md and the chat providers Stata's help names for provider().
#include <string>
#include <vector>

#include "generated.hpp"
#include "llmvalidate/resolution.hpp"

namespace llmv::generate {

std::string providers_markdown(std::string markdown) {
    std::string rows =
        "| kind | provider | default model | credential | checked | source |\n"
        "| --- | --- | --- | --- | --- | --- |\n";
    for (const pipeline::ProviderDefaults& entry : pipeline::provider_defaults()) {
        rows += "| " + entry.kind + " | `" + entry.provider + "` | " +
                (entry.model.empty() ? "none" : "`" + entry.model + "`") + " | " +
                entry.credential + " | " + entry.checked + " | " + entry.source + " |\n";
    }
    return with_region(markdown, "provider-defaults", rows);
}

std::string stata_help_providers(std::string help) {
    std::vector<std::string> chat;
    for (const pipeline::ProviderDefaults& entry : pipeline::provider_defaults())
        if (entry.kind == "chat") chat.push_back(entry.provider);
    std::string names;
    for (std::size_t i = 0; i < chat.size(); ++i)
        names += std::string(i == 0 ? "" : i + 1 == chat.size() ? " or " : ", ") + "{cmd:" +
                 chat[i] + "}";
    return with_region(help, "chat-providers",
                       "{synopt:{opt prov:ider(name)}}the chat provider: " + names +
                           " (docs/providers.md); default: the one the environment "
                           "configures{p_end}\n");
}

}  // namespace llmv::generate
