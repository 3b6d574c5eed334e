// Structured answers: nothing lost, nothing coerced.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "llm/structured_output.hpp"

using namespace llmv;

namespace {
const std::vector<std::string> sentiment = {"Positive", "Neutral", "Negative"};
}

TEST_CASE("passages: object, bare array, fences, prose") {
    const auto plain = parse_passages_answer(R"({"passages": ["one", "two"]})", 2);
    CHECK(plain.status == AnswerStatus::ok);
    CHECK(plain.passages == std::vector<std::string>{"one", "two"});

    CHECK(parse_passages_answer(R"(["one", "two", "three"])", 3).passages.size() == 3);

    const std::string fenced =
        "Sure! Here are the passages you asked for:\n```json\n{\n  \"passages\": [\"a\", "
        "\"b\"]\n}\n```\nHope this helps.";
    const auto from_fence = parse_passages_answer(fenced, 2);
    CHECK(from_fence.status == AnswerStatus::ok);
    CHECK(from_fence.passages == std::vector<std::string>{"a", "b"});
    CHECK(from_fence.raw == fenced);

    // Brackets in prose before the JSON are skipped: [3] is not a passages array.
    const auto prose = parse_passages_answer(
        "As requested [3] texts (see {notes}): [\"x\", \"y\", \"z\"] done", 3);
    CHECK(prose.status == AnswerStatus::ok);
    CHECK(prose.passages == std::vector<std::string>{"x", "y", "z"});

    // Objects with a text field, and an object with one array member of another name.
    CHECK(parse_passages_answer(R"({"items": [{"text": "p1"}, {"passage": "p2"}]})", 2).passages ==
          std::vector<std::string>{"p1", "p2"});
}

TEST_CASE("passages: quotes, brackets, escapes and unicode inside texts survive") {
    const std::string answer =
        R"({"passages": ["He said \"stop\" and left.", "Braces {like} [these] ] stay", "Backslash \\ and \"quotes\" \u00e9", "Ünïcödé “curly” 日本語 🚀"]})";
    const auto parsed = parse_passages_answer(answer, 4);
    REQUIRE(parsed.status == AnswerStatus::ok);
    CHECK(parsed.passages[0] == "He said \"stop\" and left.");
    CHECK(parsed.passages[1] == "Braces {like} [these] ] stay");
    CHECK(parsed.passages[2] == "Backslash \\ and \"quotes\" \xC3\xA9");
    CHECK(parsed.passages[3] == "Ünïcödé “curly” 日本語 🚀");
}

TEST_CASE(
    "passages: wrong count keeps the texts and broken answers are unparseable, raw text kept") {
    const auto short_answer = parse_passages_answer(R"({"passages": ["a", "b"]})", 3);
    CHECK(short_answer.status == AnswerStatus::wrong_count);
    CHECK(short_answer.passages.size() == 2);
    CHECK(short_answer.problem.find("asked for 3") != std::string::npos);

    const std::string truncated = R"({"passages": ["a complete one", "an incomplete on)";
    const auto cut = parse_passages_answer(truncated, 2);
    CHECK(cut.status == AnswerStatus::unparseable);
    CHECK(cut.raw == truncated);
    CHECK(cut.passages.empty());

    CHECK(parse_passages_answer("I'm sorry, I can't write that.", 2).status ==
          AnswerStatus::unparseable);
    CHECK(parse_passages_answer(R"({"passages": []})", std::nullopt).status ==
          AnswerStatus::unparseable);
    CHECK(parse_passages_answer(R"({"passages": [1, 2]})", 2).status == AnswerStatus::unparseable);
    const auto blank = parse_passages_answer(R"({"passages": ["fine", "   "]})", 2);
    CHECK(blank.status == AnswerStatus::unparseable);
    CHECK(blank.problem.find("passage 2") != std::string::npos);
    CHECK(parse_passages_answer(R"({"label": "Positive"})", 1).status == AnswerStatus::unparseable);
    CHECK(parse_passages_answer(R"({"passages": ["any count"]})").status == AnswerStatus::ok);
}

TEST_CASE("labels: JSON forms, normalisation, label outside S") {
    CHECK(parse_label_answer(R"({"label": "Positive"})", sentiment).label == "Positive");
    CHECK(parse_label_answer("```json\n{\"label\": \"negative\"}\n```", sentiment).label ==
          "Negative");
    CHECK(parse_label_answer(R"(The answer is {"Label": "  NEUTRAL. "} because...)", sentiment)
              .label == "Neutral");
    CHECK(parse_label_answer(R"({"sentiment": "positive"})", sentiment).label == "Positive");
    CHECK(parse_label_answer(R"("Negative")", sentiment).label == "Negative");
    CHECK(parse_label_answer("Positive", sentiment).label == "Positive");
    CHECK(parse_label_answer("**Neutral**", sentiment).label == "Neutral");
    CHECK(parse_label_answer("Label: negative.", sentiment).label == "Negative");
    CHECK(parse_label_answer("“Positive”", sentiment).label == "Positive");

    const auto outside = parse_label_answer(R"({"label": "Mixed"})", sentiment);
    CHECK(outside.status == AnswerStatus::label_outside_set);
    CHECK(outside.raw_label == "Mixed");
    CHECK(outside.label.empty());
    CHECK(outside.problem.find("\"Mixed\"") != std::string::npos);
    CHECK(outside.problem.find("\"Neutral\"") != std::string::npos);

    // Prose that merely mentions a label is not coerced into it.
    const auto prose =
        parse_label_answer("The text is not Positive at all, I would say", sentiment);
    CHECK(prose.status == AnswerStatus::unparseable);
    CHECK(prose.raw == "The text is not Positive at all, I would say");
    CHECK(parse_label_answer("", sentiment).status == AnswerStatus::unparseable);
    CHECK(parse_label_answer(R"({"label": 3})", sentiment).status == AnswerStatus::unparseable);
}

TEST_CASE("labels: multi-word labels, hyphens and underscores") {
    const std::vector<std::string> stance = {"Strongly agree", "Agree", "Disagree"};
    CHECK(parse_label_answer(R"({"label": "strongly-agree"})", stance).label == "Strongly agree");
    CHECK(parse_label_answer(R"({"label": "STRONGLY_AGREE!"})", stance).label == "Strongly agree");
    CHECK(parse_label_answer(R"({"label": "agree"})", stance).label == "Agree");
    CHECK(parse_label_answer(R"({"label": "strongly disagree"})", stance).status ==
          AnswerStatus::label_outside_set);
}

TEST_CASE("normalize_label") {
    CHECK(normalize_label("  Very-Positive. ") == "very positive");
    CHECK(normalize_label("\"Neutral\"") == "neutral");
    CHECK(normalize_label("«Négatif»") == "négatif");
    CHECK(normalize_label("U.S. policy") == "u.s. policy");
    CHECK(normalize_label("a  \t b") == "a b");
    CHECK(normalize_label("...") == "");
}

TEST_CASE("find_json_value and the schemas") {
    CHECK(find_json_value("no json here") == std::nullopt);
    CHECK(find_json_value("x {\"a\": \"}\"} y").value() == R"({"a":"}"})");
    CHECK(find_json_value("{broken [1, 2]").value() == "[1,2]");
    const auto schema = nlohmann::json::parse(passages_json_schema(5));
    CHECK(schema.at("properties").at("passages").at("minItems") == 5);
    CHECK(schema.at("properties").at("passages").at("maxItems") == 5);
    CHECK(schema.at("required") == nlohmann::json::array({"passages"}));
    const auto labels = nlohmann::json::parse(label_json_schema(sentiment));
    CHECK(labels.at("properties").at("label").at("enum") == nlohmann::json(sentiment));
    CHECK(labels.at("additionalProperties") == false);
}
