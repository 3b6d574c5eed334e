// The batch command's arguments and inputs the CLI tests share (test_batch_faults.cpp,
// test_shards.cpp): passages written the way the fake server writes them, a CSV of them, the
// command line of a run against the fake server, and the keys the CLI reads.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/synthetic_text.hpp"
#include "llmvalidate/pipeline.hpp"

namespace llmv::test {

inline std::vector<pipeline::PassageInput> passages(int count) {
    std::vector<pipeline::PassageInput> list;
    for (int i = 0; i < count; ++i) {
        pipeline::PassageInput passage;
        passage.id = "p" + std::to_string(i + 1);
        passage.text =
            SyntheticText(0).passages(i % 2 ? "positive" : "negative", 1, 500 + i).front();
        list.push_back(passage);
    }
    return list;
}

inline void write_input(const std::string& path, int count) {
    std::ofstream input(path);
    input << "id,text\n";
    for (const pipeline::PassageInput& passage : passages(count))
        input << passage.id << ",\"" << passage.text << "\"\n";
}

// Chat from `vendor` (openai or anthropic) and embeddings from the fake server's OpenAI API;
// with `batch_api`, both through the batch APIs.
inline std::vector<std::string> cli_args(const fake::FakeServer& server, const std::string& vendor,
                                  const std::string& input, const std::string& cache,
                                  const std::string& output, bool batch_api,
                                  const std::string& poll_interval = "0") {
    std::vector<std::string> args = {
        "batch",
        "--task",
        "simple_sentiment",
        "--input",
        input,
        "--id-column",
        "id",
        "--text-column",
        "text",
        "--provider",
        vendor,
        "--model",
        vendor == "anthropic" ? "fake-claude" : "fake-chat",
        "--base-url",
        vendor == "anthropic" ? server.base_url() : server.base_url() + "/v1",
        "--embedding-provider",
        "openai",
        "--embedding-model",
        "fake-embedding",
        "--embedding-base-url",
        server.base_url() + "/v1",
        "--cache",
        cache,
        "-M",
        "10",
        "-n",
        "5",
        "--permutations",
        "99",
        "--seed",
        "11",
        "--quiet",
        "--format",
        "jsonl",
        "--output",
        output};
    if (batch_api) {
        args.insert(args.end(), {"--batch-api", "--poll-interval", poll_interval});
    }
    return args;
}

// The keys the CLI reads (the fake server accepts "test-key"). OPENAI_API_KEY goes only to
// OpenAI's own hosts: a server on loopback gets the key named for it (LLMV_API_KEY, and
// LLMV_EMBEDDING_API_KEY for a separate embedding server).
struct VendorKeys {
    ScopedEnv openai{"OPENAI_API_KEY", "test-key"};
    ScopedEnv anthropic{"ANTHROPIC_API_KEY", "test-key"};
    ScopedEnv named{"LLMV_API_KEY", "test-key"};
    ScopedEnv embedding{"LLMV_EMBEDDING_API_KEY", "test-key"};
};

}  // namespace llmv::test
