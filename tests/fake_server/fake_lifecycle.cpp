// The lifecycle fields of the fake server's model lists (fake_lifecycle.hpp).
#include "fake_lifecycle.hpp"

namespace llmv::fake {

using nlohmann::json;

namespace {

constexpr std::time_t day = 24 * 60 * 60;

enum class Stage { active, retiring, retired };

Stage stage_of(const std::string& id) {
    if (id.find("fake-retiring") != std::string::npos ||
        id.find("fake-chat-retiring") != std::string::npos)
        return Stage::retiring;
    if (id.find("fake-retired") != std::string::npos ||
        id.find("fake-chat-retired") != std::string::npos)
        return Stage::retired;
    return Stage::active;
}

// The retirement time of a lifecycle model: 30 days after the start, or 30 days before it.
std::time_t retires(Stage stage, std::time_t started) {
    return stage == Stage::retiring ? started + 30 * day : started - 30 * day;
}

std::string date(std::time_t time) {
    std::tm utc{};
    gmtime_r(&time, &utc);
    char buffer[16];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &utc);
    return buffer;
}

std::string rfc3339(std::time_t time) { return date(time) + "T00:00:00Z"; }

}  // namespace

std::vector<std::string> lifecycle_model_ids() {
    return {"fake-chat-retiring",
            "fake-chat-retired",
            "claude-fake-retiring",
            "claude-fake-retired",
            "anthropic.claude-fake-retiring-v1:0",
            "anthropic.claude-fake-retired-v1:0"};
}

bool add_openai_lifecycle(json& entry, const std::string& id, std::time_t started) {
    const Stage stage = stage_of(id);
    entry["shutdown_date"] =
        stage == Stage::active ? json(nullptr) : json(date(retires(stage, started)));
    return true;
}

bool add_anthropic_lifecycle(json& entry, const std::string& id, std::time_t started,
                             const std::string& query) {
    const Stage stage = stage_of(id);
    // Without a lifecycle filter the list holds active and deprecated models only.
    const bool asks_retired = query.find("lifecycle%5B%5D=retired") != std::string::npos ||
                              query.find("lifecycle[]=retired") != std::string::npos;
    if (stage == Stage::retired && !asks_retired) return false;
    entry["lifecycle"] = stage == Stage::active     ? "active"
                         : stage == Stage::retiring ? "deprecated"
                                                    : "retired";
    entry["deprecated_at"] =
        stage == Stage::active ? json(nullptr) : json(rfc3339(retires(stage, started) - 90 * day));
    entry["retires_at"] =
        stage == Stage::active ? json(nullptr) : json(rfc3339(retires(stage, started)));
    entry["max_tokens"] = 64000;
    entry["max_input_tokens"] = 200000;
    return true;
}

bool add_bedrock_lifecycle(json& entry, const std::string& id, std::time_t started) {
    const Stage stage = stage_of(id);
    json lifecycle = {{"status", stage == Stage::active ? "ACTIVE" : "LEGACY"}};
    if (stage != Stage::active) {
        // AWS's JSON protocol sends timestamps as seconds since 1970.
        lifecycle["legacyTime"] = static_cast<double>(retires(stage, started) - 180 * day);
        lifecycle["endOfLifeTime"] = static_cast<double>(retires(stage, started));
    }
    entry["modelLifecycle"] = lifecycle;
    return true;
}

}  // namespace llmv::fake
