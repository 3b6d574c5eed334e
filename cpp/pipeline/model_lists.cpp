// Reading a vendor's model list through the day cache (model_lists.hpp).
#include "pipeline/model_lists.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "cache/model_lists.hpp"
#include "llm/provider_spec.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

namespace {

std::int64_t now_unix() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string identity_of(const std::string& vendor, const ModelLister& lister) {
    std::string url = lister.requests().front().url;
    const auto query = url.find('?');
    if (query != std::string::npos) url.erase(query);
    return vendor + " " + text::without_url_credentials(url);  // a key of the cache file
}

std::vector<CatalogueModel> fetch(const ModelLister& catalogue, const std::string& vendor,
                                  const ListReading& how) {
    std::vector<CatalogueModel> found;
    std::atomic<bool> cancel{false};
    TransportOptions options;
    options.max_concurrency = 1;
    options.cancel = &cancel;
    if (how.max_retries >= 0) options.retry.max_retries = how.max_retries;
    options.tick = [&]() {
        if (how.interrupted && how.interrupted()) cancel = true;
    };
    Transport transport(options);
    for (HttpRequest request : catalogue.requests()) {
        // Pages follow one another: each answer names the next.
        for (int page = 0; page < 1000; ++page) {
            if (how.total_timeout_ms > 0) {
                request.total_timeout_ms =
                    request.total_timeout_ms > 0
                        ? std::min(request.total_timeout_ms, how.total_timeout_ms)
                        : how.total_timeout_ms;
                request.connect_timeout_ms =
                    request.connect_timeout_ms > 0
                        ? std::min(request.connect_timeout_ms, how.total_timeout_ms)
                        : how.total_timeout_ms;
            }
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
            const std::optional<HttpRequest> next = catalogue.read(request, result.response, found);
            if (!next) break;
            request = *next;
        }
    }
    return found;
}

}  // namespace

std::string model_list_identity(const std::string& vendor, const ProviderConfig& config) {
    return identity_of(vendor, *model_lister_of(vendor, config));
}

std::optional<VendorList> read_vendor_list(const std::string& vendor, const ProviderConfig& config,
                                           const ListReading& how) {
    // The vendor's spec says how its list is read (provider_spec.hpp).
    const std::unique_ptr<ModelLister> lister = model_lister_of(vendor, config);
    const ModelLister& catalogue = *lister;
    const std::string key = identity_of(vendor, catalogue);
    if (const auto stored = read_model_list(how.cache_path, key)) {
        const std::int64_t age = now_unix() - stored->fetched_unix;
        if (age >= 0 && age < model_list_max_age_seconds) {
            VendorList list;
            list.models = catalogue_from_json(stored->body);
            list.fetched_unix = stored->fetched_unix;
            list.from_cache = true;
            return list;
        }
    }
    if (!how.may_fetch) return std::nullopt;
    VendorList list;
    list.models = fetch(catalogue, vendor, how);
    list.fetched_unix = now_unix();
    write_model_list(how.cache_path, key, {catalogue_to_json(list.models), list.fetched_unix});
    return list;
}

}  // namespace llmv::pipeline
