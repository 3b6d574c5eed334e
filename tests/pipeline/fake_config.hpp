// The configuration of a run against the in-process fake provider server (openai chat and
// embeddings, the task simple_sentiment), shared by the pipeline tests that drive it.
#pragma once

#include <string>

#include "fake_server/fake_server.hpp"
#include "llmvalidate/pipeline.hpp"

namespace llmv::test {

inline pipeline::ValidationConfig fake_config(const fake::FakeServer& server,
                                              const std::string& cache_path, int concurrency = 8) {
    pipeline::ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "openai";
    config.model = "fake-chat";
    config.base_url = server.base_url() + "/v1";
    config.api_key = "test-key";
    config.embedding_provider = "openai";
    config.embedding_model = "fake-embedding";
    config.cache_path = cache_path;
    config.m = 20;
    config.n = 6;
    config.concurrency = concurrency;
    config.tests.permutations = 199;
    return config;
}

}  // namespace llmv::test
