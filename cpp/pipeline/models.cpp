// The vendors' model lists with the engine's defaults and prices (models.hpp).
#include "llmvalidate/models.hpp"

#include <atomic>

#include "llm/model_catalogue.hpp"
#include "llm/provider_spec.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pricing.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/text.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

namespace {

// The price table's provider of a listed id: Bedrock's embedding models are priced under the
// embedding provider's name.
std::string priced_as(const std::string& provider, const std::string& id) {
    if (provider == "bedrock" && id.find("amazon.titan-embed") != std::string::npos)
        return "bedrock-titan";
    return provider;
}

}  // namespace

const std::vector<std::string>& model_list_vendors() { return catalogue_vendors(); }

std::string model_list_vendors_text() { return text::join_list(model_list_vendors()); }

ModelList list_models(const std::string& provider, const ProviderConfig& config,
                      const std::string& price_table_path,
                      const std::function<bool()>& interrupted) {
    const std::string vendor = provider == "bedrock-titan" ? "bedrock" : provider;
    const std::unique_ptr<ModelLister> catalogue = model_lister_of(vendor, config);  // its spec
    std::vector<CatalogueModel> found;
    std::atomic<bool> cancel{false};
    TransportOptions options;
    options.max_concurrency = 1;
    options.cancel = &cancel;
    options.tick = [&]() {
        if (interrupted && interrupted()) cancel = true;
    };
    Transport transport(options);
    for (HttpRequest request : catalogue->requests()) {
        // Pages follow one another: each answer names the next.
        for (int page = 0; page < 1000; ++page) {
            Job job;
            job.request = request;
            std::vector<Job> jobs;
            jobs.push_back(std::move(job));
            const std::vector<JobResult> results = transport.run_all(std::move(jobs));
            const JobResult& result = results.front();
            if (result.error_code == code::cancelled)
                throw Error(code::cancelled, "cancelled while listing models");
            if (result.response.status == 0) {
                throw Error(result.error_code.empty() ? code::transport : result.error_code,
                            "listing the models of " + vendor + " failed: " + result.error_message);
            }
            const std::optional<HttpRequest> next = catalogue->read(request, result.response, found);
            if (!next) break;
            request = *next;
        }
    }
    ModelList list;
    list.provider = vendor;
    const std::unique_ptr<PriceTable> table = price_table_for(price_table_path);
    if (table) list.price_table = table->source;
    for (const CatalogueModel& model : found) {
        ListedModel listed;
        listed.id = model.id;
        listed.name = model.name;
        listed.kind = model.kind;
        listed.status = model.status;
        for (const ProviderDefaults& row : provider_defaults()) {
            const bool same_vendor =
                row.provider == vendor || (vendor == "bedrock" && row.provider == "bedrock-titan");
            if (same_vendor && row.model == model.id) listed.default_for = row.kind;
        }
        const std::string price_provider = priced_as(vendor, model.id);
        if (table) {
            const ModelPrice* row = table->find(price_provider, model.id);
            listed.priced = row != nullptr;
        }
        list.models.push_back(std::move(listed));
    }
    return list;
}

}  // namespace llmv::pipeline
