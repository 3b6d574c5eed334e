// The engine's own SHA-256, HMAC and SigV4 against published test vectors (FIPS 180-2
// examples, RFC 4231, the AWS SigV4 test suite).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include "llm/aws_sigv4.hpp"
#include "llmvalidate/error.hpp"

using namespace llmv;

namespace {

std::string hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string header(const HttpRequest& request, const std::string& name) {
    for (const auto& [key, value] : request.headers) {
        if (key == name) return value;
    }
    return "";
}

const std::time_t suite_time = 1440938160;  // 2015-08-30T12:36:00Z, the AWS test suite's date

std::shared_ptr<const AwsSigV4Signer> suite_signer(const std::string& region = "us-east-1",
                                                   const std::string& service = "service",
                                                   const std::string& session_token = "") {
    return std::make_shared<AwsSigV4Signer>(
        region, service,
        AwsCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", session_token});
}

HttpRequest suite_request(const std::string& method, const std::string& url) {
    HttpRequest request;
    request.method = method;
    request.url = url;
    request.signer = suite_signer();
    return request;
}

}  // namespace

TEST_CASE("sha256 and hmac_sha256 match published vectors") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1000000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    CHECK(hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // RFC 4231 test case 6: a key longer than the block is hashed first.
    CHECK(hex(hmac_sha256(std::string(131, '\xaa'),
                          "Test Using Larger Than Block-Size Key - Hash Key First")) ==
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("AwsSigV4Signer reproduces the AWS SigV4 test suite") {
    auto request = suite_request("GET", "https://example.amazonaws.com/");
    sign_request(request, suite_time);
    CHECK(header(request, "Authorization") ==
          "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
          "SignedHeaders=host;x-amz-date, "
          "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
    CHECK(header(request, "X-Amz-Date") == "20150830T123600Z");
    CHECK(header(request, "Host") == "example.amazonaws.com");
    CHECK(!request.signer);  // nothing signs it again

    auto post = suite_request("POST", "https://example.amazonaws.com:443/");
    sign_request(post, suite_time);
    CHECK(header(post, "Authorization").substr(header(post, "Authorization").size() - 64) ==
          "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");

    auto query = suite_request("GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1");
    sign_request(query, suite_time);
    CHECK(header(query, "Authorization").substr(header(query, "Authorization").size() - 64) ==
          "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST_CASE("AwsSigV4Signer: session token, content type, port, secrets, bad scope") {
    auto request =
        suite_request("POST", "http://127.0.0.1:8123/model/amazon.titan-embed-text-v2%3A0/invoke");
    request.signer = suite_signer("eu-west-1", "bedrock", "session-token-1");
    CHECK(request.signer->scheme() == "AWS SigV4 eu-west-1 bedrock");
    const auto secrets = secrets_of(request);  // the signer's secrets are redacted everywhere
    CHECK(std::count(secrets.begin(), secrets.end(), "session-token-1") == 1);
    CHECK(std::count(secrets.begin(), secrets.end(), "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY") ==
          1);
    request.headers = {{"Content-Type", "application/json"}};
    request.body = "{}";
    sign_request(request, suite_time);
    CHECK(header(request, "Host") == "127.0.0.1:8123");
    CHECK(header(request, "X-Amz-Security-Token") == "session-token-1");
    const std::string authorization = header(request, "Authorization");
    CHECK(authorization.find("/20150830/eu-west-1/bedrock/aws4_request") != std::string::npos);
    CHECK(authorization.find("SignedHeaders=content-type;host;x-amz-date;x-amz-security-token,") !=
          std::string::npos);
    CHECK(authorization.find("session-token-1") == std::string::npos);
    // Signing twice replaces, never duplicates, the signature headers.
    request.signer = suite_signer("eu-west-1", "bedrock", "session-token-1");
    sign_request(request, suite_time + 1);
    int authorizations = 0;
    for (const auto& entry : request.headers) authorizations += entry.first == "Authorization";
    CHECK(authorizations == 1);

    CHECK_THROWS_WITH(suite_signer("", "bedrock"), Catch::Contains("a region and a service"));
    CHECK_THROWS_WITH(std::make_shared<AwsSigV4Signer>("us-east-1", "bedrock",
                                                       AwsCredentials{"AKIDEXAMPLE", "", ""}),
                      Catch::Contains("secret access key"));
}
