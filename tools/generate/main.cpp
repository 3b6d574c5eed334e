// llmv_generate [--check | --write] [--source DIR]: the files and regions written from the
// engine's tables (generated.hpp). --check (the default) lists those that differ and exits 1;
// --write rewrites them. `cmake --build build --target generate-docs` runs --write.
#include <fstream>
#include <iostream>
#include <string>

#include "generated.hpp"

int main(int argc, char** argv) {
    bool write = false;
    std::string source = LLMV_SOURCE_DIR;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--write") {
            write = true;
        } else if (arg == "--check") {
            write = false;
        } else if (arg == "--source" && i + 1 < argc) {
            source = argv[++i];
        } else {
            std::cerr << "usage: llmv_generate [--check | --write] [--source DIR]\n";
            return 2;
        }
    }
    try {
        int stale = 0;
        for (const auto& file : llmv::generate::generated_files(source)) {
            if (llmv::generate::read_file(source, file.path) == file.text) continue;
            ++stale;
            if (write) {
                std::ofstream(source + "/" + file.path, std::ios::binary) << file.text;
                std::cout << "wrote " << file.path << "\n";
            } else {
                std::cout << "stale: " << file.path << "\n";
            }
        }
        if (stale > 0 && !write) {
            std::cout << "run `cmake --build build --target generate-docs` to write them\n";
            return 1;
        }
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "llmv_generate: " << error.what() << "\n";
        return 2;
    }
}
