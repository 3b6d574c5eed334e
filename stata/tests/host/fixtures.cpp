#include "fixtures.hpp"

#include <nlohmann/json.hpp>

#ifndef _WIN32
#include <unistd.h>
#endif
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace host {

namespace {

class Generator {
  public:
    explicit Generator(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double normal() {
        const double u1 = 1.0 - uniform();  // (0, 1]
        const double u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }

  private:
    std::uint64_t state_;
};

std::vector<double> centre(const Design& design, std::size_t label) {
    std::vector<double> c(static_cast<std::size_t>(design.dim), 0.0);
    c[label % c.size()] = 1.0;
    return c;
}

std::vector<double> draw(Generator& gen, const Design& design, std::size_t label) {
    auto v = centre(design, label);
    for (auto& x : v) x += design.spread * gen.normal();
    return v;
}

std::size_t index_of(const Design& design, const std::string& label) {
    for (std::size_t k = 0; k < design.labels.size(); ++k)
        if (design.labels[k] == label) return k;
    throw std::logic_error("unknown label " + label);
}

}  // namespace

std::vector<Text> make_texts(const Design& design, const std::vector<std::string>& passage_labels,
                             const std::vector<std::string>& passage_truth) {
    Generator gen(design.seed);
    std::vector<Text> texts;
    for (std::size_t k = 0; k < design.labels.size(); ++k) {
        for (int j = 0; j < design.m; ++j) {
            Text t;
            t.label = design.labels[k];
            t.embedding = draw(gen, design, k);
            const bool correct = gen.uniform() < design.bt_accuracy;
            t.backtranslation = correct ? t.label : design.labels[(k + 1) % design.labels.size()];
            texts.push_back(t);
        }
    }
    for (std::size_t i = 0; i < passage_labels.size(); ++i) {
        Text t;
        t.label = passage_labels[i];
        t.passage = true;
        t.embedding = draw(gen, design, index_of(design, passage_truth[i]));
        texts.push_back(t);
    }
    return texts;
}

std::vector<std::string> embedding_names(int dim) {
    std::vector<std::string> names;
    for (int k = 1; k <= dim; ++k) names.push_back("e" + std::to_string(k));
    return names;
}

void load_texts(Stata& stata, const std::vector<Text>& texts, bool strl_labels,
                bool with_backtranslation) {
    stata.clear();
    std::vector<std::string> labels, bt;
    std::vector<double> passage;
    for (const auto& t : texts) {
        labels.push_back(t.label);
        bt.push_back(t.backtranslation);
        passage.push_back(t.passage ? 1.0 : 0.0);
    }
    stata.add_string("label", labels, strl_labels);
    stata.add_numeric("passage", passage);
    if (with_backtranslation) stata.add_string("bt", bt, strl_labels);
    const int dim = static_cast<int>(texts.front().embedding.size());
    for (int k = 0; k < dim; ++k) {
        std::vector<double> column;
        for (const auto& t : texts) column.push_back(t.embedding[static_cast<std::size_t>(k)]);
        stata.add_numeric("e" + std::to_string(k + 1), column);
    }
    stata.select_all();
}

std::string cli_input_json(const std::vector<Text>& texts, std::size_t passage_index,
                           const std::vector<std::string>& labels, std::uint64_t seed, double alpha,
                           int permutations, bool with_backtranslation) {
    nlohmann::json doc;
    const Text& passage = texts.at(passage_index);
    doc["label"] = passage.label;
    doc["labels"] = labels;
    doc["passage"] = passage.embedding;
    nlohmann::json pools = nlohmann::json::object();
    nlohmann::json back = nlohmann::json::object();
    for (const auto& t : texts) {
        if (t.passage || t.reference) continue;
        pools[t.label].push_back(t.embedding);
        back[t.label].push_back(t.backtranslation);
    }
    doc["pools"] = pools;
    if (with_backtranslation) doc["backtranslation"] = back;
    doc["seed"] = seed;
    doc["alpha"] = alpha;
    doc["permutations"] = permutations;
    return doc.dump();
}

#ifdef LLMV_CLI_PATH  // the host tests; the transcript (stata/tests/platforms/) runs no CLI
std::string run_cli_test(const std::string& json_text) {
    char path[] = "/tmp/llmv_host_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    close(fd);
    {
        std::ofstream out(path);
        out << json_text;
    }
    const std::string command = std::string(LLMV_CLI_PATH) + " test " + path;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("popen failed");
    std::string output;
    char buffer[4096];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    const int status = pclose(pipe);
    std::remove(path);
    if (status != 0)
        throw std::runtime_error("llmvalidate test exited with " + std::to_string(status));
    return output;
}
#endif

}  // namespace host
