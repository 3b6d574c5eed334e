// The formals of R functions that show a setting's default, written from the settings table.
// The R file marks them with a region inside the signature whose marker line lists the formals:
//     validation_test <- function(passage, pool,
//                                 # BEGIN GENERATED formals: alpha method=validation_method
//                                 alpha = 0.05, method = c("exact", "paper"),
//                                 # END GENERATED
//                                 reference = NULL) {
// `x=name`: formal x shows setting `name` (a bare `alpha`: the setting whose R spelling it is);
// `methods`: the named vector of the settings R spells methods[["..."]]; `x=name@option`: the
// default is getOption("option", <the table's>).
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "generated.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::generate {

namespace {

using settings::Setting;

std::string r_string(const std::string& text) { return "\"" + text + "\""; }

// A setting's default as an R literal: 0.05, 999, TRUE, or c("exact", "paper") for a choice
// (the default first: match.arg() takes it).
std::string r_default(const Setting& setting, bool integer_suffix) {
    const std::string value = pipeline::setting_default(setting);
    switch (setting.kind) {
        case settings::Kind::choice: {
            std::string out = "c(" + r_string(value);
            for (const std::string& choice : setting.choices)
                if (choice != value) out += ", " + r_string(choice);
            return out + ")";
        }
        case settings::Kind::flag:
            return value == "true" ? "TRUE" : "FALSE";
        case settings::Kind::integer:
            return value + (integer_suffix ? "L" : "");
        case settings::Kind::number:
            return value;
        case settings::Kind::seed:
        case settings::Kind::text:
            break;
    }
    return r_string(value);
}

const Setting& setting_spelled(const std::string& name) {
    if (const Setting* entry = settings::find(name)) return *entry;
    for (const Setting& entry : settings::table())
        if (entry.r == name && !entry.by_hand) return entry;
    throw std::runtime_error("no setting `" + name + "` for an R formal");
}

std::string formal(const std::string& item) {
    const std::size_t equals = item.find('=');
    const std::string name = item.substr(0, equals);
    std::string target = equals == std::string::npos ? name : item.substr(equals + 1);
    if (target == "methods") {
        std::string out = name + " = c(";
        bool first = true;
        for (const Setting& entry : settings::table()) {
            const std::string prefix = "methods[[\"";
            if (entry.r.compare(0, prefix.size(), prefix) != 0) continue;
            const std::string element = entry.r.substr(prefix.size(), entry.r.size() - prefix.size() - 3);
            out += (first ? "" : ", ") + element + " = " + r_string(pipeline::setting_default(entry));
            first = false;
        }
        return out + ")";
    }
    const std::size_t at = target.find('@');
    const std::string option = at == std::string::npos ? "" : target.substr(at + 1);
    if (at != std::string::npos) target = target.substr(0, at);
    const Setting& entry = setting_spelled(target);
    if (option.empty()) return name + " = " + r_default(entry, false);
    return name + " = getOption(" + r_string(option) + ", " + r_default(entry, true) + ")";
}

// The formals as lines of at most 90 characters, each `indent` deep; a comma after each but the
// last when the signature ends right after the region.
std::string formal_lines(const std::vector<std::string>& formals, const std::string& indent,
                         bool last) {
    std::string out, line;
    for (std::size_t i = 0; i < formals.size(); ++i) {
        const std::string word = formals[i] + (last && i + 1 == formals.size() ? "" : ",");
        if (!line.empty() && indent.size() + line.size() + 1 + word.size() > 90) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + indent + line + "\n";
}

}  // namespace

std::string r_formals(std::string source) {
    for (std::size_t at = source.find("BEGIN GENERATED formals"); at != std::string::npos;
         at = source.find("BEGIN GENERATED formals", at + 1)) {
        const std::size_t line_start = source.rfind('\n', at) + 1;
        const std::string indent = source.substr(line_start, source.find('#', line_start) - line_start);
        const std::size_t colon = source.find(':', at);
        const std::size_t eol = source.find('\n', at);
        std::istringstream items(source.substr(colon + 1, eol - colon - 1));
        std::vector<std::string> formals;
        for (std::string item; items >> item;) formals.push_back(formal(item));
        const std::size_t end_marker = source.find("END GENERATED", eol);
        const std::size_t after_end = source.find('\n', end_marker) + 1;
        const bool last = source.find_first_not_of(" ", after_end) != std::string::npos &&
                          source[source.find_first_not_of(" ", after_end)] == ')';
        const std::size_t region_last = source.rfind('\n', end_marker) + 1;
        source = source.substr(0, eol + 1) + formal_lines(formals, indent, last) +
                 source.substr(region_last);
    }
    return source;
}

}  // namespace llmv::generate
