// The batch-API run's read back (batch_runner.hpp): intents resolved against the vendor's
// list, batches polled until they end, their results downloaded until whole and read line by
// line into the work file.
#include "pipeline/batch_runner.hpp"

#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/http_status.hpp"  // parse_rfc3339
#include "llmvalidate/error.hpp"
#include "pipeline/debug_env.hpp"

namespace llmv::pipeline {

using nlohmann::json;

namespace {

constexpr int max_result_reads = 6;  // reads of one batch's results before taking them as they are
constexpr std::int64_t clock_skew_seconds = 600;  // between our clock and the vendor's

// When the vendor created a batch (Unix seconds; 0: unknown).
std::int64_t created_unix_of(const BatchStatus& status) {
    if (status.created_at.empty()) return 0;
    if (status.created_at.find('T') != std::string::npos) {
        const auto seconds = parse_rfc3339(status.created_at);
        return seconds ? static_cast<std::int64_t>(*seconds) : 0;
    }
    try {
        return std::stoll(status.created_at);
    } catch (const std::exception&) {
        return 0;
    }
}

}  // namespace

void BatchRunner::load_missing_before() {
    for (const ProviderBatchRecord& record : registry_->provider_batches("done")) {
        const json info = json::parse(record.request, nullptr, false);
        if (info.is_object() && info.contains("missing") && info["missing"].is_array())
            for (const json& id : info["missing"])
                if (id.is_string()) missing_before_.insert(id.get<std::string>());
    }
}

void BatchRunner::resolve_intents() {
    const std::vector<ProviderBatchRecord> intents = registry_->provider_batches("intent");
    if (intents.empty()) return;
    std::set<std::string> known_ids, recorded_intents;
    for (const ProviderBatchRecord& record : registry_->provider_batches()) {
        known_ids.insert(record.id);
        const json info = json::parse(record.request, nullptr, false);
        if (record.state != "intent" && info.is_object() && info.contains("intent") &&
            info["intent"].is_string())
            recorded_intents.insert(info["intent"].get<std::string>());
    }
    for (ProviderBatchRecord intent : intents) {
        const json info = json::parse(intent.request);
        bool found = recorded_intents.count(intent.id) > 0;
        if (!found) {
            const std::optional<BatchStatus> batch = find_unrecorded_batch(intent, info, known_ids);
            if (batch) {
                ProviderBatchRecord record = intent;
                record.id = batch->id;
                record.state = "submitted";
                registry_->put_provider_batch(record);
                known_ids.insert(batch->id);
                found = true;
                status("found " + intent.api + " batch " + batch->id +
                       ", created by a run that stopped before recording it: it is read back, "
                       "not submitted again");
            } else {
                status("the " + intent.kind +
                       " batch a stopped run was about to create was never created; its "
                       "requests are asked again");
            }
        }
        intent.state = found ? "resolved" : "abandoned";
        registry_->put_provider_batch(intent);
    }
}

std::optional<BatchStatus> BatchRunner::find_unrecorded_batch(
    const ProviderBatchRecord& intent, const json& info, const std::set<std::string>& known_ids) {
    const HttpRequest synchronous = template_request(intent.kind);
    const BatchApi& api = recorded_api(intent.kind, intent.api);
    const std::int64_t since = info.value("created_unix", std::int64_t{0}) - clock_skew_seconds;
    const std::string input_file = info.value("input_file", "");
    const std::size_t line_count = json::parse(intent.lines).size();
    std::vector<BatchStatus> candidates;  // newest first, as listed
    std::string after;
    for (int page = 0; page < 50; ++page) {
        const BatchList list = api.parse_list(
            send_one(api.list(synchronous, after), "listing the provider's batches"));
        bool older = false;
        for (const BatchStatus& batch : list.batches) {
            const std::int64_t created = created_unix_of(batch);
            if (created != 0 && created < since) {
                older = true;  // newest first: the rest are older still
                break;
            }
            if (known_ids.count(batch.id)) continue;
            // The API says how it knows its batch: by the uploaded file (ours alone) or the
            // intent in its metadata for sure, or only by its size (a candidate, whose
            // results must show it is this run's).
            const BatchApi::Match match = api.matches(batch, intent.id, input_file, line_count);
            if (match == BatchApi::Match::sure) return batch;
            if (match == BatchApi::Match::candidate) candidates.push_back(batch);
        }
        if (older || !list.has_more || list.last_id.empty()) break;
        after = list.last_id;
    }
    // Another run on the same account may have made a batch of the same size in the same
    // minutes (issue 41: adopting it paid for this run's lines again): oldest first, the first
    // whose result lines carry this intent's custom ids.
    const json lines = json::parse(intent.lines);
    for (auto candidate = candidates.rbegin(); candidate != candidates.rend(); ++candidate)
        if (holds_lines_of(api, synchronous, *candidate, lines)) return *candidate;
    return std::nullopt;
}

bool BatchRunner::holds_lines_of(const BatchApi& api, const HttpRequest& synchronous,
                                 const BatchStatus& listed, const json& lines) {
    // Its custom ids are in its results only: waited for as the run would wait for its own.
    BatchStatus state = listed;
    while (!state.ended) {
        status("batch " + listed.id + " has this run's size but no mark of whose it is: " +
               state.status + "; its results will tell");
        if (!interruptible_wait(config_.poll_interval_seconds, callbacks_.cancel))
            check_cancel("while waiting for batch " + listed.id);
        state = api.parse_status(send_one(api.poll(synchronous, listed.id),
                                          "polling batch " + listed.id));
    }
    if (state.failed) return false;  // refused as a whole: no line was paid for
    const Downloaded results = fetch_whole(api, synchronous, listed.id, state);
    std::size_t ours = 0, foreign = 0;
    each_downloaded_line(results, [&](const BatchLineRead& read) {
        if (read.result) ++(lines.contains(read.result->custom_id) ? ours : foreign);
    });
    remove_downloads(results);
    if (foreign > 0 || ours == 0) {
        status("batch " + listed.id + " is another run's (" + std::to_string(foreign) +
               " of its result lines are not this run's): it is left alone");
        return false;
    }
    return true;
}

std::string BatchRunner::download_path(const std::string& what) const {
    return config_.cache_path + ".download-" + run_token_ + "-" + what;
}

void BatchRunner::each_downloaded_line(const Downloaded& downloaded,
                                       const std::function<void(const BatchLineRead&)>& each) {
    for (const std::string& file : downloaded.files) {
        std::ifstream in(file, std::ios::binary);
        std::string line;
        while (std::getline(in, line)) each(downloaded.api->read_line(line));
    }
}

void BatchRunner::remove_downloads(const Downloaded& downloaded) const {
    for (const std::string& file : downloaded.files) std::remove(file.c_str());
}

BatchRunner::Downloaded BatchRunner::fetch_whole(const BatchApi& api,
                                                 const HttpRequest& synchronous,
                                                 const std::string& batch_id,
                                                 const BatchStatus& state) {
    const std::size_t expected = state.succeeded + state.failed_lines;
    std::string previous;
    for (int read = 1;; ++read) {
        debug_kill_point("downloading");
        Downloaded downloaded;
        downloaded.api = &api;
        const auto download = [&](HttpRequest request, const std::string& what,
                                  const std::string& description) {
            request.body_file = download_path(what);
            downloaded.files.push_back(request.body_file);
            send_one(request, description);
        };
        for (auto& [what, request] : api.result_downloads(synchronous, state)) {
            download(std::move(request), what, "reading the " + what + " of batch " + batch_id);
        }
        Sha256 digest;
        each_downloaded_line(downloaded, [&](const BatchLineRead& line) {
            if (line.unreadable) ++downloaded.unreadable;
            if (line.result) ++downloaded.readable;
            digest.update(line.result ? line.result->custom_id + '\n' : std::string("?\n"));
            if (line.result) digest.update(line.result->response.body + line.result->error);
        });
        downloaded.digest = digest.hex_digest();
        if (downloaded.unreadable == 0 && downloaded.readable >= expected) return downloaded;
        const std::string counts =
            std::to_string(downloaded.readable) + " readable lines of " + std::to_string(expected) +
            (downloaded.unreadable > 0 ? ", " + std::to_string(downloaded.unreadable) + " cut short"
                                       : "");
        if ((read > 1 && downloaded.digest == previous) || read >= max_result_reads) {
            status("batch " + batch_id + ": its results hold " + counts + ", the same at each of " +
                   std::to_string(read) + " reads; the requests missing from them are asked again");
            return downloaded;
        }
        previous = downloaded.digest;
        remove_downloads(downloaded);
        status("batch " + batch_id + ": the download of its results was cut short (" + counts +
               "); read again");
        const double pause = read == 1 ? 0.0 : static_cast<double>(1 << (read - 2));
        if (!interruptible_wait(pause, callbacks_.cancel))
            check_cancel("while reading the results of batch " + batch_id);
    }
}

bool BatchRunner::read_back_submitted() {
    for (const std::string& id : registry_->provider_batch_ids("submitted")) {
        const std::optional<ProviderBatchRecord> found = registry_->provider_batch(id);
        if (!found) continue;
        const ProviderBatchRecord& record = *found;
        const HttpRequest synchronous = template_request(record.kind);
        const BatchApi& api = recorded_api(record.kind, record.api);
        BatchStatus state;
        while (true) {
            debug_kill_point("polling");
            state = api.parse_status(
                send_one(api.poll(synchronous, record.id), "polling batch " + record.id));
            status("batch " + record.id + " (" + record.kind + "): " + state.status + ", " +
                   std::to_string(state.succeeded) + " done, " +
                   std::to_string(state.failed_lines) + " failed of " +
                   std::to_string(state.total));
            if (state.ended) break;
            if (options_.submit_only) return true;
            if (!interruptible_wait(config_.poll_interval_seconds, callbacks_.cancel))
                check_cancel("while waiting for batch " + record.id);
        }
        if (state.failed) {
            // Refused as a whole (no line ran): sending it again would be refused again.
            ProviderBatchRecord failed = record;
            failed.state = "failed";
            registry_->put_provider_batch(failed);
            throw Error(code::provider_server,
                        "the provider refused batch " + record.id + ": " +
                            (state.message.empty() ? state.status : state.message));
        }
        const Downloaded results = fetch_whole(api, synchronous, record.id, state);
        read_lines(record, results);
        flush_staged();
        remove_downloads(results);
    }
    return false;
}

void BatchRunner::read_lines(ProviderBatchRecord record, const Downloaded& results) {
    const json lines = json::parse(record.lines);
    std::set<std::string> seen;
    std::size_t foreign = 0, failed = 0;
    each_downloaded_line(results, [&](const BatchLineRead& read) {
        if (!read.result) return;
        const BatchLineResult& line = *read.result;
        if (!lines.contains(line.custom_id)) {
            ++foreign;
            return;
        }
        if (!seen.insert(line.custom_id).second) return;  // a duplicate line: the first counts
        if (!line.ok) {
            ++failed;
            failed_.insert(line.custom_id);
            // A line that keeps failing (a request the provider refuses) is not sent forever.
            if (++failures_[line.custom_id] > std::max(1, config_.max_transport_retries)) {
                throw Error(
                    code::provider_server,
                    "a request failed in " + std::to_string(failures_[line.custom_id]) +
                        " provider batches (the last: " + line.error +
                        "); the answers so far are in the cache, and a re-run with the same "
                        "settings and cache resumes");
            }
            return;
        }
        if (record.kind == "chat") {
            stage({lines[line.custom_id].get<std::string>(),
                   line.response.status,
                   line.response.body,
                   {}});
            return;
        }
        const auto texts = lines[line.custom_id].get<std::vector<std::string>>();
        const EmbeddingResult vectors = embedder_->parse_response(line.response, texts.size());
        if (!vectors.ok) {
            failed_.insert(line.custom_id);
            ++failed;
            return;
        }
        for (std::size_t i = 0; i < texts.size(); ++i)
            stage({text_id(texts[i]), 0, "",
                   std::vector<float>(vectors.vectors[i].begin(), vectors.vectors[i].end())});
        // The batch's embedding tokens, counted and priced like the chat answers'.
        usage_[embedding_model_].input_tokens +=
            static_cast<std::uint64_t>(std::max<std::int64_t>(0, vectors.input_tokens));
    });
    json missing = json::array();
    for (const auto& entry : lines.items()) {
        if (seen.count(entry.key())) continue;
        if (missing_before_.count(entry.key())) {
            throw Error(code::provider_server,
                        "request " + entry.key() + " was missing from the results of batch " +
                            record.id +
                            " as from an earlier batch's, although each was read whole; it is not "
                            "asked a third time. The answers so far are in the cache, and the same "
                            "command resumes");
        }
        missing.push_back(entry.key());
        failed_.insert(entry.key());
    }
    if (!missing.empty()) {
        status("batch " + record.id + ": " + std::to_string(missing.size()) +
               (missing.size() == 1 ? " request is" : " requests are") +
               " missing from its results although they were read whole; each is "
               "asked again, alone and once");
    }
    if (failed > 0) {
        status("batch " + record.id + ": " + std::to_string(failed) +
               " lines failed; they are asked again");
    }
    if (foreign > 0) {
        status("batch " + record.id + ": " + std::to_string(foreign) +
               " lines with custom ids not submitted in it were ignored");
    }
    json info = json::parse(record.request, nullptr, false);
    if (!info.is_object()) info = json::object();
    info["missing"] = missing;
    for (const json& id : missing) missing_before_.insert(id.get<std::string>());
    record.request = info.dump();
    fetched_.emplace_back(record.id, record.request);
}

}  // namespace llmv::pipeline
