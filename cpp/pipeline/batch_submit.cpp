// The batch-API run's submissions (batch_runner.hpp): the pending requests split into
// provider batches within the vendors' caps, each recorded as an intent before it is created
// and as a batch once the provider gives its id; a few retries go synchronously instead.
#include "pipeline/batch_runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include "llm/provider_spec.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"
#include "pipeline/batches_out.hpp"
#include "pipeline/debug_env.hpp"

namespace llmv::pipeline {

using nlohmann::json;

namespace {

std::int64_t unix_now() { return static_cast<std::int64_t>(std::time(nullptr)); }

// One line of a batch still to be submitted, with what its custom id stands for.
struct PlannedLine {
    BatchLine line;
    json mapped;             // the cache key hash (chat) or the texts (embedding)
    std::size_t inputs = 1;  // embedding inputs it carries
};

}  // namespace

// Lines gathered into provider batches as they come, each batch within the vendor's caps
// (requests, embedding inputs, bytes) and submitted as soon as it is full: only one batch's
// lines are held at a time. Each is recorded, so a stopped run resumes with the rest.
class BatchRunner::BatchSplitter {
  public:
    BatchSplitter(BatchRunner& runner, std::string kind)
        : runner_(runner), kind_(std::move(kind)) {}
    void add(const PlannedLine& line) {
        if (!started_) {
            api_ = &runner_.submitting_api(kind_);
            caps_ = runner_.caps_for(*api_);
            started_ = true;
        }
        const std::size_t size = api_->line_bytes(line.line);
        const bool full = (caps_.requests > 0 && lines_.size() + 1 > caps_.requests) ||
                          (kind_ == "embedding" && caps_.embedding_inputs > 0 &&
                           inputs_ + line.inputs > caps_.embedding_inputs) ||
                          (caps_.bytes > 0 && bytes_ + size > caps_.bytes);
        if (full) flush();
        lines_.push_back(line.line);
        map_[line.line.custom_id] = line.mapped;
        inputs_ += line.inputs;
        bytes_ += size;
    }
    void finish() { flush(); }

  private:
    void flush() {
        if (lines_.empty()) return;
        runner_.submit_lines(kind_, lines_, map_);
        lines_.clear();
        map_ = json::object();
        inputs_ = 0;
        bytes_ = batch_framing_bytes;
    }
    BatchRunner& runner_;
    std::string kind_;
    bool started_ = false;
    const BatchApi* api_ = nullptr;
    BatchCaps caps_;
    std::vector<BatchLine> lines_;
    json map_ = json::object();
    std::size_t inputs_ = 0, bytes_ = batch_framing_bytes;
};

HttpRequest BatchRunner::template_request(const std::string& kind) const {
    if (kind == "embedding") {
        EmbeddingRequest request;
        request.model = embedding_model_;
        request.inputs = {"x"};
        return embedder_->build_request(request);
    }
    return chat_->build_request(ChatRequest::user_prompt(chat_model_, "x"));
}

std::shared_ptr<const BatchApi> BatchRunner::batch_api_for_kind(const std::string& kind) const {
    if (kind == "embedding" && !embedder_) return nullptr;
    return batch_api_of(kind,
                        kind == "embedding" ? providers_.resolved.embedding_provider
                                            : providers_.resolved.chat_provider,
                        template_request(kind));
}

const BatchApi& BatchRunner::recorded_api(const std::string& kind, const std::string& name) {
    std::shared_ptr<const BatchApi>& api = apis_[kind];
    if (!api) api = batch_api_for_kind(kind);
    if (!api || api->name() != name) {
        throw_invalid(code::invalid_argument, "batch_api", "a cache holding " + name + " batches",
                      "the provider they were submitted to (" +
                          (api ? api->name() + " batches are what this one runs"
                               : "this one has no batch API") +
                          "), or another cache file");
    }
    return *api;
}

const BatchApi& BatchRunner::submitting_api(const std::string& kind) {
    std::shared_ptr<const BatchApi>& api = apis_[kind];
    if (!api) api = batch_api_for_kind(kind);
    if (!api) {
        throw_invalid(code::invalid_argument, "batch_api",
                      kind == "embedding" ? providers_.resolved.embedding_provider
                                          : providers_.resolved.chat_provider,
                      "a provider whose endpoint has a batch API");
    }
    return *api;
}

bool BatchRunner::embeddings_by_batch() const {
    const std::shared_ptr<const BatchApi> api = batch_api_for_kind("embedding");
    return api && api->caps().embedding_inputs > 0;
}

bool BatchRunner::only_few_retries(std::uint64_t chat_missing, std::uint64_t texts_missing) {
    if (texts_missing > 0 ||
        chat_missing > static_cast<std::uint64_t>(std::max(0, options_.sync_retry_max)))
        return false;
    bool retries = true;
    for_each_pending("chat", [&](BatchPending& row) {
        if (row.attempt == 0 && !failed_.count(row.id)) retries = false;
    });
    return retries;
}

void BatchRunner::send_synchronously() {
    std::vector<HttpRequest> requests;
    std::vector<std::string> hashes;
    for_each_pending("chat", [&](BatchPending& row) {
        requests.push_back(chat_request_of(row));
        hashes.push_back(row.id);
    });
    const std::vector<JobResult> results = send(requests);
    report_.synchronous_requests += static_cast<std::int64_t>(requests.size());
    status(std::to_string(requests.size()) + " retries sent synchronously");
    for (std::size_t i = 0; i < results.size(); ++i)
        if (results[i].ok())
            stage({hashes[i], results[i].response.status, results[i].response.body, {}});
    flush_staged();
}

std::size_t BatchRunner::embedding_group_size(std::size_t max_inputs) const {
    std::size_t size =
        std::max<std::size_t>(1, std::min<std::size_t>(embedder_->max_batch_size(), 256));
    if (max_inputs > 0) size = std::min(size, max_inputs);
    return size;
}

void BatchRunner::submit() {
    // Chat: one line per request, custom_id its cache key's hash.
    {
        BatchSplitter chat(*this, "chat");
        for_each_pending("chat", [&](BatchPending& row) {
            const std::string id = row.id;
            chat.add({{id, chat_request_of(row)}, id, 1});
        });
        chat.finish();
    }
    if (work_->count_batch_pending("embedding") == 0) return;
    const bool by_batch = embeddings_by_batch();
    const std::size_t group_size = embedding_group_size(
        by_batch ? caps_for(*batch_api_for_kind("embedding")).embedding_inputs : 0);
    BatchSplitter embeddings(*this, "embedding");
    // Each request (a batch file's line, or a synchronous request) within the provider's
    // caps on texts and on estimated tokens (llm/embedding_limits.hpp).
    EmbeddingLimits limits = embedder_->limits();
    limits.max_inputs = group_size;
    EmbeddingRequestPacker packer(limits);
    std::vector<std::string> group;
    std::vector<std::vector<std::string>> synchronous;  // groups to send together
    const std::size_t together = static_cast<std::size_t>(2 * std::max(1, config_.concurrency));
    const auto flush_group = [&]() {
        if (group.empty()) return;
        if (by_batch) {
            EmbeddingRequest request;
            request.model = embedding_model_;
            request.inputs = group;
            std::string joined;
            for (const std::string& text : group) joined += sha256_hex(text);
            const std::string id = "emb-" + sha256_hex(joined).substr(0, 40);
            embeddings.add({{id, embedder_->build_request(request)}, group, group.size()});
        } else {
            synchronous.push_back(group);
            if (synchronous.size() >= together) {
                embed_synchronously(synchronous);
                synchronous.clear();
            }
        }
        group.clear();
        packer.clear();
    };
    for_each_pending("embedding", [&](BatchPending& row) {
        // A text over the cap on one text is never pending (its passage fails when the
        // pass pushes it); one recorded by an older version waits, unsent.
        if (embedding_input_refusal(limits, embedding_model_, row.id)) return;
        if (!packer.fits(row.id)) flush_group();
        packer.add(row.id);
        group.push_back(std::move(row.id));
        if (group.size() >= group_size) flush_group();
    });
    flush_group();
    if (!synchronous.empty()) embed_synchronously(synchronous);
    embeddings.finish();
    flush_staged();
}

void BatchRunner::embed_synchronously(const std::vector<std::vector<std::string>>& groups) {
    std::vector<HttpRequest> requests;
    for (const auto& group : groups) {
        EmbeddingRequest request;
        request.model = embedding_model_;
        request.inputs = group;
        requests.push_back(embedder_->build_request(request));
    }
    const std::vector<JobResult> results = send(requests);
    check_cancel("while the texts were embedded");
    report_.synchronous_requests += static_cast<std::int64_t>(requests.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i].ok()) continue;
        const EmbeddingResult vectors =
            embedder_->parse_response(results[i].response, groups[i].size());
        if (!vectors.ok) continue;
        for (std::size_t j = 0; j < groups[i].size(); ++j)
            stage({text_id(groups[i][j]), 0, "",
                   std::vector<float>(vectors.vectors[j].begin(), vectors.vectors[j].end())});
    }
}

void BatchRunner::submit_lines(const std::string& kind, const std::vector<BatchLine>& lines,
                               const json& map) {
    if (lines.empty()) return;
    // After an interrupt nothing new is submitted (the batches already out are recorded).
    check_cancel("before a provider batch was submitted");
    const HttpRequest& synchronous = lines.front().request;
    const BatchApi& api = submitting_api(kind);
    std::string ids;
    for (const BatchLine& line : lines) ids += line.custom_id + ",";
    const std::int64_t now = unix_now();
    ProviderBatchRecord intent;
    intent.id =
        "intent-" +
        sha256_hex(kind + ids +
                   std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()))
            .substr(0, 40);
    intent.api = api.name();
    intent.kind = kind;
    intent.state = "intent";
    intent.lines = map.dump();
    intent.created_unix = now;
    json info = {{"url", text::without_url_credentials(synchronous.url)},
                 {"intent", intent.id},
                 {"phase", report_.phases},
                 {"created_unix", now}};
    // Whose work it is: a synchronous run of the same settings and passages is then refused
    // while the batch is out (batches_out.hpp), rather than paying for its answers again.
    if (run_key_.empty()) run_key_ = work_key(config_, passages_);
    info["run"] = run_key_;
    std::string file;
    if (std::optional<HttpRequest> upload = api.upload(lines)) {
        file = api.uploaded_file_id(send_one(*upload, "uploading a batch file"));
        debug_kill_point("after_upload");
        info["input_file"] = file;
    }
    // The intent, before the batch exists: a run stopped from here on finds the batch again.
    intent.request = info.dump();
    registry_->put_provider_batch(intent);
    debug_kill_point("after_intent");
    const HttpResponse created =
        send_one(api.create(synchronous, lines, file, intent.id), "creating a batch");
    debug_kill_point("after_create");
    const BatchStatus state = api.parse_status(created);
    // Recorded at once: from here on a stopped run resumes from it.
    ProviderBatchRecord record = intent;
    record.id = state.id;
    record.state = "submitted";
    registry_->put_provider_batch(record);
    intent.state = "resolved";
    registry_->put_provider_batch(intent);
    debug_kill_point("after_record");
    report_.submitted.push_back(state.id);
    report_.batch_requests += static_cast<std::int64_t>(lines.size());
    status("submitted " + record.api + " batch " + state.id + ": " + std::to_string(lines.size()) +
           " " + kind + (lines.size() == 1 ? " request" : " requests"));
}

}  // namespace llmv::pipeline
