// The side file of answers a run could not write to its cache (llmvalidate/cache.hpp):
// side_file_line() writes one, Cache::import_side_file() adds a file's answers to a cache.
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache/cache_impl.hpp"
#include "core/float32.hpp"
#include "core/http.hpp"

namespace llmv {

using namespace cache_detail;

std::string side_file_line(const CacheKey& key, const CacheEntry& entry,
                           const std::vector<std::string>& secrets) {
    nlohmann::json line;
    line["key"] = {{"provider", key.provider}, {"endpoint", key.endpoint},
                   {"model", key.model},       {"parameters", key.parameters},
                   {"prompt", key.prompt},     {"draw_index", key.draw_index},
                   {"attempt", key.attempt}};
    line["entry"] = {{"status", entry.status},
                     {"body", redact(entry.body, secrets)},
                     {"text", redact(entry.text, secrets)},
                     {"response_model", entry.response_model},
                     {"input_tokens", entry.input_tokens},
                     {"output_tokens", entry.output_tokens}};
    // The float32 bytes as they are stored, so that an import restores the same numbers.
    if (!entry.vector.empty()) line["entry"]["vector"] = base64_encode(float32_bytes(entry.vector));
    return line.dump();
}

std::uint64_t Cache::import_side_file(const std::string& side_file, const std::string& argument,
                                      ImportReport* report) {
    std::ifstream in(side_file, std::ios::binary);
    if (!in) throw_invalid(code::io, argument, side_file, "a readable side file of answers");
    ImportReport counts;
    std::vector<std::pair<CacheKey, CacheEntry>> entries;
    std::string text;
    std::size_t line_number = 0;
    while (std::getline(in, text)) {
        ++line_number;
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        // getline() stopped at the end of the file, not at a line end: the writer was cut off.
        const bool last_without_end = in.eof();
        try {
            const nlohmann::json line = nlohmann::json::parse(text);
            const nlohmann::json& key_json = line.at("key");
            const nlohmann::json& entry_json = line.at("entry");
            CacheKey key;
            key.provider = key_json.at("provider").get<std::string>();
            key.endpoint = key_json.at("endpoint").get<std::string>();
            key.model = key_json.at("model").get<std::string>();
            key.parameters = key_json.at("parameters");
            key.prompt = key_json.at("prompt").get<std::string>();
            key.draw_index = key_json.at("draw_index").get<std::uint64_t>();
            key.attempt = key_json.at("attempt").get<std::uint32_t>();
            CacheEntry entry;
            entry.status = entry_json.at("status").get<std::string>();
            entry.body = entry_json.at("body").get<std::string>();
            entry.text = entry_json.at("text").get<std::string>();
            entry.response_model = entry_json.at("response_model").get<std::string>();
            entry.input_tokens = entry_json.at("input_tokens").get<std::uint64_t>();
            entry.output_tokens = entry_json.at("output_tokens").get<std::uint64_t>();
            if (entry_json.contains("vector")) {
                const auto bytes = base64_decode(entry_json.at("vector").get<std::string>());
                const auto vector =
                    bytes ? from_float32_bytes(bytes->data(), bytes->size()) : std::nullopt;
                if (!vector) throw std::invalid_argument("\"vector\" is not base64 float32");
                entry.vector = *vector;
            } else if (entry.status == cache_status::ok && entry.body.empty() &&
                       entry.text.rfind('[', 0) == 0) {
                // A side file of format 1: its embeddings as JSON text, converted as on opening.
                if (auto vector = float32_of_json(entry.text)) {
                    entry.vector = std::move(*vector);
                    entry.text.clear();
                }
            }
            entries.emplace_back(std::move(key), std::move(entry));
        } catch (const std::exception& error) {
            if (last_without_end) {
                counts.cut_last_line = true;
                break;
            }
            throw_invalid(
                code::invalid_argument, argument,
                side_file + ", line " + std::to_string(line_number) + " (" + error.what() + ")",
                "lines {\"key\": {...}, \"entry\": {...}} as a run writes them");
        }
    }
    std::vector<std::string> hashes;
    hashes.reserve(entries.size());
    std::set<std::string> seen;
    for (const auto& [key, entry] : entries) {
        hashes.push_back(key.hash());
        // A key given twice in the file, or already in the cache, is not new.
        if (!seen.insert(hashes.back()).second || get(hashes.back()))
            ++counts.already_present;
        else
            ++counts.added;
    }
    put_many(entries, {}, hashes);
    if (report) *report = counts;
    return counts.added;
}

}  // namespace llmv
