// llmvalidate models --provider P [--base-url URL] [--price-table PATH] [--cache PATH] [--json]
// Lists the vendor's own models from its API with their lifecycle (status, retirement date,
// replacement), marks the engine's defaults and says which the price table prices.
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/models.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/text.hpp"
#include "terminal.hpp"

namespace llmv::cli {

namespace {

CommandSpec models_spec() {
    return {
        "models",
        "--provider " + text::join_list(pipeline::model_list_vendors(), "|", "|") +
            " [--base-url URL] [--price-table PATH] [--cache PATH] [--json]",
        "Lists the models the vendor serves to your credentials, read from its API (OpenAI and\n"
        "Anthropic GET /v1/models; Bedrock ListFoundationModels and inference profiles), with\n"
        "each model's lifecycle: deprecated models show the date they retire and the vendor's\n"
        "replacement (the vendor's own date; the shipped table's when it gives none). The\n"
        "engine's default models are marked, and each row says whether the price table has it.\n"
        "Example: llmvalidate models --provider anthropic",
        "",
        {
            {"--provider", "-p", "NAME",
             "The vendor: " + pipeline::model_list_vendors_text() + "."},
            {"--base-url", "", "URL",
             "The vendor's base URL, when not its default (or its environment variable)."},
            {"--price-table", "", "PATH",
             "The price table (default: LLMV_PRICE_TABLE, else the shipped prompts/prices.csv)."},
            {"--cache", "", "PATH",
             "A cache file: a list read from the vendor less than a day ago is shown from it, "
             "and a list read now is kept there for runs on that cache (default: ask the vendor)."},
            {"--json", "", "", "Print JSON."},
        },
        0,
    };
}

}  // namespace

int command_models(const std::vector<std::string>& args) {
    const CommandSpec spec = models_spec();
    const ParsedArgs parsed = parse_args(args, spec);
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    if (!parsed.has("--provider")) {
        throw_usage(spec.name, "option `--provider` is required: " +
                                   pipeline::model_list_vendors_text() + ".");
    }
    ProviderConfig config;
    config.base_url = parsed.value("--base-url");
    // An error names `provider`, which main() spells `--provider`.
    const std::atomic<bool>* interrupt = install_interrupt_flag();
    const pipeline::ModelList list = pipeline::list_models(
        parsed.value("--provider"), config, parsed.value("--price-table"),
        [interrupt]() { return interrupt->load(); }, parsed.value("--cache"));
    if (parsed.has("--json")) {
        std::cout << records::to_json(list).dump(2) << "\n";
        return exit_ok;
    }
    std::ostringstream out;
    out << "Models of " << list.provider << " (" << list.models.size() << ", from its API, read "
        << list.fetched << (list.from_cache ? " and kept in the cache" : "") << "; "
        << (list.price_table.empty() ? "no price table found" : "prices: " + list.price_table)
        << "):\n";
    for (const auto& model : list.models) {
        out << "  " << model.id;
        if (!model.name.empty() && model.name != model.id) out << "  (" << model.name << ")";
        if (model.kind != "model") out << "  [" << model.kind << "]";
        if (model.lifecycle == "retired") {
            out << "  RETIRED" << (model.retires.empty() ? "" : " " + model.retires);
        } else if (model.lifecycle == "deprecated") {
            out << "  deprecated" << (model.retires.empty() ? "" : ", retires " + model.retires);
            if (!model.replacement.empty()) out << " (replacement " << model.replacement << ")";
        } else if (!model.status.empty()) {
            out << "  " << model.status;
        }
        if (!model.default_for.empty()) out << "  DEFAULT " << model.default_for;
        out << (model.priced ? "  priced" : "  no price") << "\n";
    }
    std::cout << out.str();
    return exit_ok;
}

}  // namespace llmv::cli
