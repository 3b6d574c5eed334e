// `llmvalidate models, provider(P)`: the models the vendor serves to the user's credentials,
// read from its API by the engine (llmv::pipeline::list_models, as the CLI's `llmvalidate
// models` and R's llm_models()), with the engine's defaults marked and whether the price table
// has each. The ado-file passes
//
//   locals:   llmv_provider, llmv_base_url (optional), llmv_apikey and llmv_keyenv (keyenv()),
//             llmv_price_table (the table net install put on the ado-path)
//   words:    quiet=0|1 (1: no listing on screen)
//
// r(): N, N_priced, N_deprecated, N_retired; r(provider), r(ids) (the ids in the vendor's
// order), r(retires) (each id's retirement date, YYYY-MM-DD, or "." when none is announced, in
// the order of r(ids)), r(deprecated) and r(retired) (the ids in those lifecycle states),
// r(chat_default) and r(embedding_default) (the engine's defaults, when the vendor lists them),
// r(priced) (the ids the price table has), r(price_table), r(fetched) (when the vendor
// answered); the matrix r(catalogue), a row per id (model1, model2, ...: ids do not fit Stata's
// row names) with columns default (1 chat, 2 embedding, 0 neither), priced (0/1), profile (1
// for a Bedrock inference profile), lifecycle (0 active, 1 deprecated, 2 retired) and retires
// (the retirement date as a Stata date, days since 01jan1960; missing when none).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/models.hpp"
#include "record_stata.hpp"
#include "results.hpp"
#include "return_codes.hpp"

namespace llmv::stata {

int command_models(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"quiet"});
    forget_pending();
    const std::string provider = api.local("llmv_provider").value_or("");
    if (provider.empty())
        throw StataFailure(kRcSyntax, "llmvalidate models: option provider() is required: " +
                                          pipeline::model_list_vendors_text());
    ProviderConfig config;
    config.base_url = api.local("llmv_base_url").value_or("");
    config.api_key = chat_key(api);
    // The price table net install put on the ado-path, unless LLMV_PRICE_TABLE chooses one.
    std::string price_table;
    if (const char* chosen = std::getenv("LLMV_PRICE_TABLE"); !(chosen && *chosen))
        price_table = api.local("llmv_price_table").value_or("");
    const pipeline::ModelList list =
        pipeline::list_models(provider, config, price_table, [&api] { return api.poll(); });

    Results results;
    // r(catalogue): a row per model, the columns of its field list that Stata names
    // (models.hpp): default, priced, profile, lifecycle, retires.
    ResultMatrix catalogue;
    catalogue.key = "catalogue";
    std::vector<std::string> ids, priced, retires, deprecated, retired;
    std::string chat_default, embedding_default;
    for (const pipeline::ListedModel& model : list.models) {
        ids.push_back(model.id);
        if (model.priced) priced.push_back(model.id);
        if (model.default_for == "chat") chat_default = model.id;
        if (model.default_for == "embedding") embedding_default = model.id;
        catalogue.row_names.push_back("model" + std::to_string(ids.size()));
        const records::StataRow row = records::stata_row(model);
        catalogue.col_names = row.names;
        catalogue.values.insert(catalogue.values.end(), row.values.begin(), row.values.end());
        retires.push_back(model.retires.empty() ? "." : model.retires);
        if (model.lifecycle == "deprecated") deprecated.push_back(model.id);
        if (model.lifecycle == "retired") retired.push_back(model.id);
    }
    catalogue.cols = static_cast<int>(catalogue.col_names.size());
    catalogue.rows = static_cast<int>(ids.size());
    results.scalar("N", static_cast<double>(ids.size()));
    results.scalar("N_priced", static_cast<double>(priced.size()));
    results.scalar("N_deprecated", static_cast<double>(deprecated.size()));
    results.scalar("N_retired", static_cast<double>(retired.size()));
    std::string dates;  // plain words: a date or "." has no space
    for (const std::string& date : retires) dates += (dates.empty() ? "" : " ") + date;
    results.macro("retires", dates);
    results.macro("deprecated", join_stata_list(deprecated));
    results.macro("retired", join_stata_list(retired));
    results.macro("fetched", list.fetched);
    results.macro("provider", list.provider);
    results.macro("ids", join_stata_list(ids));
    results.macro("chat_default", chat_default);
    results.macro("embedding_default", embedding_default);
    results.macro("priced", join_stata_list(priced));
    results.macro("price_table", list.price_table);
    if (catalogue.rows > 0) results.matrices.push_back(std::move(catalogue));

    if (args.integer("quiet", 0) == 0) {
        std::string table = "{txt}Models of {res}" + list.provider + "{txt} (" +
                            std::to_string(ids.size()) + ", from its API, read " + list.fetched +
                            "; " +
                            (list.price_table.empty() ? std::string("no price table found")
                                                      : "prices: " + list.price_table) +
                            ")\n";
        for (const pipeline::ListedModel& model : list.models) {
            table += "  {res}" + model.id + "{txt}";
            if (!model.name.empty() && model.name != model.id) table += "  (" + model.name + ")";
            if (model.kind != "model") table += "  [" + model.kind + "]";
            if (model.lifecycle == "retired") {
                table +=
                    "  {err}retired" + (model.retires.empty() ? "" : " " + model.retires) + "{txt}";
            } else if (model.lifecycle == "deprecated") {
                table += "  {res}deprecated" +
                         (model.retires.empty() ? "" : ", retires " + model.retires) + "{txt}";
                if (!model.replacement.empty()) table += " (replacement " + model.replacement + ")";
            } else if (!model.status.empty()) {
                table += "  " + model.status;
            }
            if (!model.default_for.empty())
                table += "  {res}default " + model.default_for + "{txt}";
            table += model.priced ? "  priced\n" : "  no price\n";
        }
        api.display(table);
    }
    announce(api, std::move(results));
    return 0;
}

}  // namespace llmv::stata
