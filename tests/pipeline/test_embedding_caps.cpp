// Embeddings within every cap (issue 39): OpenAI takes at most 300,000 tokens summed over a
// request's texts and 8,192 tokens a text, besides 2,048 texts. Requests and batch-file lines
// are packed by an estimate from above (a text's UTF-8 bytes), and a text over the cap on one
// text fails its passage before any of the passage's chat calls is sent.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "fake_server/fake_server.hpp"
#include "llm/embedding_limits.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;

namespace {

std::string temp_cache(const std::string& name) {
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    fs::path dir = fs::temp_directory_path() /
                   ("llmv-embcaps-" + std::to_string(stamp) + "-" + std::to_string(++counter));
    fs::create_directories(dir);
    return (dir / (name + ".sqlite")).string();
}

// A distinct passage of about `bytes` bytes in the style of an annual report (written for this
// test): long passages, as a user annotating whole paragraphs has.
std::string long_text(int index, std::size_t bytes) {
    std::string text = "Paragraph " + std::to_string(index) + ". ";
    const char* sentences[] = {
        "The board reviewed the quarterly results and the outlook for the coming year. ",
        "Net sales in the segment grew on higher volumes and firmer prices in Europe. ",
        "Operating costs rose with wages and energy, and the margin narrowed slightly. ",
        "The company kept its dividend policy and expects cash flow to stay positive. "};
    for (int i = 0; text.size() < bytes; ++i) text += sentences[(index + i) % 4];
    return text.substr(0, bytes);
}

std::vector<PassageInput> long_passages(int count, std::size_t bytes) {
    std::vector<PassageInput> passages;
    for (int i = 0; i < count; ++i) {
        PassageInput passage;
        passage.id = "p" + std::to_string(i + 1);
        passage.text = long_text(i, bytes);
        passages.push_back(passage);
    }
    return passages;
}

// Simulated chat (no chat call), embeddings from the fake server's OpenAI endpoint.
ValidationConfig simulated_chat_config(const fake::FakeServer& server, const std::string& cache) {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.embedding_provider = "openai";
    config.embedding_model = "text-embedding-3-small";
    config.embedding_base_url = server.base_url() + "/v1";
    config.embedding_api_key = "test-key";
    config.cache_path = cache;
    config.m = 10;
    config.n = 5;
    config.tests.permutations = 19;
    config.poll_interval_seconds = 0;
    return config;
}

struct RequestSizes {
    std::size_t requests = 0;
    std::size_t largest_bytes = 0;  // summed over one request's texts: their token bound
    std::size_t most_texts = 0;
};

// The embedding requests the server answered (synchronous ones, or a batch's lines).
RequestSizes embedding_requests(const fake::FakeServer& server, bool batch) {
    RequestSizes sizes;
    for (const auto& served : server.served()) {
        if (served.endpoint != "openai.embeddings" || served.batch_id.empty() == batch) continue;
        const nlohmann::json body = nlohmann::json::parse(served.request_body);
        std::size_t bytes = 0;
        for (const auto& text : body.at("input")) bytes += text.get<std::string>().size();
        ++sizes.requests;
        sizes.largest_bytes = std::max(sizes.largest_bytes, bytes);
        sizes.most_texts = std::max(sizes.most_texts, body.at("input").size());
    }
    return sizes;
}

}  // namespace

TEST_CASE("texts are packed by their bytes, the bound on their tokens, within the texts' and the tokens' caps") {
    EmbeddingLimits limits;
    limits.max_inputs = 3;
    limits.max_request_tokens = 100;
    limits.max_input_tokens = 60;
    EmbeddingRequestPacker packer(limits);
    CHECK(embedding_tokens_upper_bound("") == 0);
    CHECK(embedding_tokens_upper_bound("\xc3\xa9t\xc3\xa9") == 5);  // "été": 5 bytes, 3 characters
    CHECK(packer.fits(std::string(60, 'a')));
    packer.add(std::string(60, 'a'));
    CHECK(packer.fits(std::string(40, 'b')));
    CHECK_FALSE(packer.fits(std::string(41, 'b')));
    packer.add(std::string(30, 'b'));
    packer.add(std::string(5, 'c'));
    CHECK(packer.estimated_tokens() == 95);
    CHECK_FALSE(packer.fits("d"));  // a fourth text
    packer.clear();
    CHECK(packer.fits(std::string(60, 'e')));

    CHECK_FALSE(embedding_input_refusal(limits, "m", std::string(60, 'a')));
    const auto refusal = embedding_input_refusal(limits, "m", std::string(61, 'a'));
    REQUIRE(refusal);
    CHECK_THAT(*refusal, Catch::Matchers::Contains("61 bytes of UTF-8") &&
                             Catch::Matchers::Contains("at most 60 tokens a text"));
    // Titan's cap in characters, beside its tokens.
    EmbeddingLimits titan;
    titan.max_input_characters = 4;
    CHECK_FALSE(embedding_input_refusal(titan, "t", "\xc3\xa9t\xc3\xa9!"));  // 4 characters
    CHECK(embedding_input_refusal(titan, "t", "abcde"));
}

TEST_CASE("the providers declare their vendors' caps, and OpenAI's request builder refuses a request over them") {
    ProviderConfig config;
    config.base_url = "http://127.0.0.1:1";
    config.api_key = "test-key";
    const auto openai = make_embedding_provider("openai", config);
    const EmbeddingLimits limits = openai->limits();
    CHECK(limits.max_inputs == 2048);
    CHECK(limits.max_input_tokens == 8192);
    CHECK(limits.max_request_tokens == 300000);
    CHECK_FALSE(limits.source.empty());

    EmbeddingRequest request;
    request.model = "text-embedding-3-small";
    request.inputs.assign(37, std::string(8000, 'x'));  // 296,000 bytes
    CHECK_NOTHROW(openai->build_request(request));
    request.inputs.assign(38, std::string(8000, 'x'));  // 304,000 bytes: maybe over 300,000 tokens
    CHECK_THROWS_WITH(openai->build_request(request),
                      Catch::Matchers::Contains("300,000 tokens summed over a request's texts"));
    request.inputs.assign(1, std::string(8193, 'x'));
    CHECK_THROWS_WITH(openai->build_request(request),
                      Catch::Matchers::Contains("8,193 bytes") && Catch::Matchers::Contains("8,192 tokens"));

    ProviderConfig titan_config;
    titan_config.base_url = "http://127.0.0.1:1";
    titan_config.api_key = "test-key";
    titan_config.region = "us-east-1";
    const auto titan = make_embedding_provider("bedrock-titan", titan_config);
    CHECK(titan->limits().max_inputs == 1);
    CHECK(titan->limits().max_input_tokens == 8192);
    CHECK(titan->limits().max_input_characters == 50000);
}

TEST_CASE("with long passages no embeddings request goes over 300,000 estimated tokens") {
    fake::FakeServer server;
    server.start();
    // 60 passages of 6,000 bytes: 360,000 bytes of passage text alone.
    const std::vector<PassageInput> passages = long_passages(60, 6000);
    const BatchResult result = validate_batch(simulated_chat_config(server, temp_cache("sync")), passages);
    for (const PassageResult& passage : result.passages) {
        INFO(passage.id << ": " << passage.error_message);
        CHECK(passage.ok);
    }
    const RequestSizes sizes = embedding_requests(server, false);
    INFO(sizes.requests << " requests, the largest " << sizes.largest_bytes << " bytes, at most "
                        << sizes.most_texts << " texts");
    CHECK(sizes.requests >= 2);
    CHECK(sizes.largest_bytes <= 300000);
    CHECK(sizes.largest_bytes > 200000);  // packed, not one text a request
}

TEST_CASE("with long passages no embeddings line of a provider batch goes over 300,000 estimated tokens") {
    fake::FakeServer server;
    server.start();
    const std::vector<PassageInput> passages = long_passages(60, 6000);
    BatchApiOptions options;
    BatchApiReport report;
    // A batch-API run needs a chat provider with a batch API: OpenAI's, on the fake server.
    ValidationConfig config = simulated_chat_config(server, temp_cache("batch"));
    config.provider = "openai";
    config.model = "gpt-4o-mini";
    config.base_url = server.base_url() + "/v1";
    config.api_key = "test-key";
    const BatchResult result = validate_with_batch_api(config, passages, {}, options, &report);
    for (const PassageResult& passage : result.passages) {
        INFO(passage.id << ": " << passage.error_message);
        CHECK(passage.ok);
    }
    const RequestSizes sizes = embedding_requests(server, true);
    INFO(sizes.requests << " lines, the largest " << sizes.largest_bytes << " bytes, at most "
                        << sizes.most_texts << " texts");
    CHECK(sizes.requests >= 2);
    CHECK(sizes.largest_bytes <= 300000);
    CHECK(sizes.largest_bytes > 200000);
}

TEST_CASE("a passage over the cap on one text is refused with the estimate and the cap before any chat call") {
    fake::FakeServer server;
    server.start();
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "openai";
    config.model = "gpt-4.1-mini";
    config.base_url = server.base_url() + "/v1";
    config.api_key = "test-key";
    config.embedding_provider = "openai";
    config.embedding_model = "text-embedding-3-small";
    config.embedding_base_url = server.base_url() + "/v1";
    config.embedding_api_key = "test-key";
    config.cache_path = temp_cache("refused");
    config.m = 10;
    config.n = 5;
    config.tests.permutations = 19;
    std::vector<PassageInput> passages = long_passages(3, 300);
    passages[1].id = "long";
    passages[1].text = "UNIQUE-MARKER " + long_text(7, 9000 - 14);
    const BatchResult result = validate_batch(config, passages);
    REQUIRE(result.passages.size() == 3);
    CHECK(result.passages[0].ok);
    CHECK(result.passages[2].ok);
    const PassageResult& refused = result.passages[1];
    CHECK_FALSE(refused.ok);
    CHECK(refused.error_code == code::invalid_argument);
    CHECK_THAT(refused.error_message,
               Catch::Matchers::Contains("passage long: row 2, the passage's text") &&
                   Catch::Matchers::Contains("9,000 bytes of UTF-8") &&
                   Catch::Matchers::Contains("at most 8,192 tokens a text") &&
                   Catch::Matchers::Contains("text-embedding-3-small"));
    // Nothing was sent for it: no chat call and no embedding request carries its text.
    for (const auto& request : server.recorded(100000)) {
        INFO(request.endpoint);
        CHECK(request.body.find("UNIQUE-MARKER") == std::string::npos);
    }
    CHECK(server.count("openai.chat") > 0);  // the other passages' calls were made
}
