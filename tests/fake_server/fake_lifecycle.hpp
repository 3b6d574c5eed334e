// The vendors' lifecycle fields on the fake server's model lists (fake_server.cpp's GET
// /v1/models and Bedrock's lists): every model of the catalogue is active, in each vendor's
// shape, and with FakeServerOptions::lifecycle_models the catalogue also holds, per vendor, a
// model retiring 30 days after the server started and one retired 30 days before it (dates from
// the clock, so tests need no date of their own):
//   OpenAI     fake-chat-retiring, fake-chat-retired                 shutdown_date
//   Anthropic  claude-fake-retiring, claude-fake-retired             lifecycle, retires_at, ...
//   Bedrock    anthropic.claude-fake-retiring-v1:0, ...-retired-v1:0  modelLifecycle
// The retired ones are answered 404 if a chat request names them (their id holds "retired").
// Field names and shapes: OpenAI's models reference (shutdown_date, YYYY-MM-DD or null), npm
// @anthropic-ai/sdk 1.17.0 ModelInfo (retired models listed only when `lifecycle[]` asks),
// AWS's FoundationModelLifecycle (status ACTIVE | LEGACY, endOfLifeTime as JSON timestamps).
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llmv::fake {

// The ids lifecycle_models adds to the catalogue.
std::vector<std::string> lifecycle_model_ids();

// Adds the lifecycle fields of `id` to its list entry. Returns false when the entry is not
// listed (Anthropic's retired models, unless the query asks for them). `query`: the request's
// target; `started`: when the server started.
bool add_openai_lifecycle(nlohmann::json& entry, const std::string& id, std::time_t started);
bool add_anthropic_lifecycle(nlohmann::json& entry, const std::string& id, std::time_t started,
                             const std::string& query);
bool add_bedrock_lifecycle(nlohmann::json& entry, const std::string& id, std::time_t started);

}  // namespace llmv::fake
