// A vendor's model list, read from its API or from the day cache (cache/model_lists.hpp): what
// `llmvalidate models` (models.cpp) and the lifecycle check before a run
// (model_lifecycle_check.cpp) both read.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llm/model_catalogue.hpp"

namespace llmv::pipeline {

// A list younger than this is read from the day cache instead of the vendor's API.
inline constexpr std::int64_t model_list_max_age_seconds = 24 * 60 * 60;

struct VendorList {
    std::vector<CatalogueModel> models;
    std::int64_t fetched_unix = 0;  // when the vendor answered (UTC seconds)
    bool from_cache = false;
};

struct ListReading {
    std::string cache_path;     // the day cache's file ("": none, every reading asks the vendor)
    bool may_fetch = true;      // false: the day cache only (the dry run sends nothing)
    long total_timeout_ms = 0;  // > 0: caps the config's timeout for each request
    int max_retries = -1;       // >= 0: retries of a failed request (-1: the transport's own)
    std::function<bool()> interrupted = {};
};

// Where the list of `vendor` at `config` is read ("vendor url", without its query): the day
// cache's key. Throws llmv::Error like the vendor's lister (missing credentials, no list).
std::string model_list_identity(const std::string& vendor, const ProviderConfig& config);

// The list of `vendor` (a provider whose spec declares a model list: provider_spec.hpp's
// model_lister_of) at the base URL and region of `config`. Throws llmv::Error when it has to ask the vendor and cannot (its message names the
// vendor and the HTTP status); nullopt when it may not ask and nothing fresh is stored.
std::optional<VendorList> read_vendor_list(const std::string& vendor, const ProviderConfig& config,
                                           const ListReading& how);

}  // namespace llmv::pipeline
