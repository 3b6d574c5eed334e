#!/usr/bin/env python3
"""Lint for the Stata side of llmvalidate (standard library only).

Checks, for the folder given (default: the stata/ folder beside this script):
  * every .ado/.do file: `program define` and `end` alternate and balance; every program of an
    .ado file sets `version` 14.1 or later before anything else it runs;
  * every .sthlp file: SMCL braces balance (literal braces are written {c -(} and {c )-});
  * the .pkg files: every `f`/`F` file exists or is a task file the build copies from ../prompts
    (a .toml file must be an `F` line: with `f` Stata treats it as ancillary and net install
    does not put it on the ado-path)
    (net_tasks.cmake); every `g PLATFORM file` exists or is the plugin the
    build makes (stata/CMakeLists.txt: OUTPUT_NAME + SUFFIX); with --installable (a folder
    after the build, as `net install` reads it) every file must exist, and with
    --platform NAME only the `g` files of that platform (the ones `net install` copies there:
    a build folder holds the plugin of the platform it was built on); every plugin an .ado
    loads (`program ..., plugin using("file")`) is a `g` file of a .pkg; stata.toc names
    existing packages;
  * options: every option the help lists in a {synopt:{opt ...}} line is an option of a
    user-facing program's `syntax`, with the same minimal abbreviation, and every such option
    is in the help. Programs preceded by the comment `* lint: internal` are not user-facing.

`lint_ado.py --self-test` checks that the lint catches each kind of mistake.
Usage: lint_ado.py [--installable [--platform NAME]] [folder]
Exit status: 0 clean, 1 problems found (each printed as file:line: message).
"""
import os
import re
import sys
import tempfile

MIN_VERSION = (14, 1)


def read_lines(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().split("\n")


def strip_comment(line):
    """Removes // comments (not inside strings, roughly) and blank/`*` comment lines."""
    stripped = line.strip()
    if stripped.startswith("*"):
        return ""
    position = line.find(" //")
    if position >= 0 and "///" not in line[position:position + 4]:
        line = line[:position]
    return line


BLOCK_COMMENT_RE = re.compile(r"/\*.*?\*/")


def logical_lines(lines):
    """Joins `///` continuations, /* */ comments (on one line) dropped; yields (first line
    number, text)."""
    buffer, start = "", None
    for number, line in enumerate(lines, 1):
        if start is None:
            start = number
        text = BLOCK_COMMENT_RE.sub(" ", line)
        if text.rstrip().endswith("///"):
            buffer += text.rstrip()[:-3] + " "
            continue
        buffer += text
        yield start, buffer
        buffer, start = "", None
    if buffer:
        yield start, buffer


PROGRAM_RE = re.compile(r"^\s*program\s+(define\s+)?([A-Za-z_][\w]*)(.*)$")
NOT_A_DEFINITION = {"drop", "list", "dir"}


def check_programs(path, problems, require_version):
    lines = read_lines(path)
    current = None  # (name, line, saw_version, internal)
    programs = []
    internal_next = False
    for number, raw in logical_lines(lines):
        if raw.strip() == "* lint: internal":
            internal_next = True
            continue
        line = strip_comment(raw)
        if not line.strip():
            continue
        match = PROGRAM_RE.match(line)
        if match and match.group(2) not in NOT_A_DEFINITION and ", plugin" not in line \
                and not (match.group(1) is None and match.group(2) == "define"):
            if current is not None:
                problems.append(f"{path}:{number}: program {match.group(2)} starts before "
                                f"program {current['name']} (line {current['line']}) ends")
            current = {"name": match.group(2), "line": number, "version": None,
                       "first": True, "internal": internal_next, "syntax": []}
            internal_next = False
            continue
        if re.match(r"^\s*end\s*$", line):
            if current is None:
                problems.append(f"{path}:{number}: `end` without a program")
            else:
                programs.append(current)
                if require_version and current["version"] is None:
                    problems.append(f"{path}:{current['line']}: program {current['name']} "
                                    f"has no `version` line")
            current = None
            continue
        if current is None:
            continue
        version = re.match(r"^\s*version\s+(\d+)(?:\.(\d+))?", line)
        if version:
            found = (int(version.group(1)), int(version.group(2) or 0))
            if current["version"] is None:
                current["version"] = found
                if require_version and not current["first"]:
                    problems.append(f"{path}:{number}: program {current['name']}: `version` "
                                    f"must come before any other command")
                if require_version and found < MIN_VERSION:
                    problems.append(f"{path}:{number}: program {current['name']}: version "
                                    f"{found[0]}.{found[1]} is below 14.1 (SPI 3.0 needs 14.1)")
        current["first"] = False
        if re.match(r"^\s*syntax\b", line):
            current["syntax"].append((number, line))
    if current is not None:
        problems.append(f"{path}:{current['line']}: program {current['name']} has no `end`")
    return programs


OPTION_RE = re.compile(r"([A-Za-z_]\w*)(\((?:[^()]|\([^()]*\))*\))?")


def syntax_options(line):
    """{full name: minimal abbreviation} of the options of one `syntax` statement."""
    body = line.split("syntax", 1)[1]
    if "," not in body:
        return {}
    # The comma that starts the options is outside parentheses.
    depth, comma = 0, None
    for index, char in enumerate(body):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            comma = index
            break
    if comma is None:
        return {}
    options = {}
    for match in OPTION_RE.finditer(body[comma + 1:].replace("[", " ").replace("]", " ")):
        name = match.group(1)
        if name.lower() == name and name != name.upper():
            # all lower case: must be typed in full
            options[name] = name
            continue
        upper = re.match(r"^[A-Z0-9_]*", name).group(0)
        minimal = upper.lower() if upper else name.lower()
        options[name.lower()] = minimal
    return options


HELP_OPTION_RE = re.compile(r"\{synopt:\{opt\s+([^}]*)\}")


def help_options(path, problems):
    options = {}
    for number, line in enumerate(read_lines(path), 1):
        for match in HELP_OPTION_RE.finditer(line):
            spec = match.group(1).strip()
            name_part = re.match(r"^([\w:]+)", spec)
            if not name_part:
                problems.append(f"{path}:{number}: cannot read option `{spec}`")
                continue
            text = name_part.group(1)
            if ":" in text:
                minimal, rest = text.split(":", 1)
                full = minimal + rest
            else:
                minimal = full = text
            options.setdefault(full.lower(), (minimal.lower(), number))
    return options


def check_braces(path, problems):
    depth = 0
    for number, line in enumerate(read_lines(path), 1):
        for char in line:
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth < 0:
                    problems.append(f"{path}:{number}: `}}` closes nothing (SMCL braces)")
                    depth = 0
    if depth != 0:
        problems.append(f"{path}: {depth} SMCL brace(s) never closed")


def plugin_outputs(folder):
    """Plugin file names the build makes (OUTPUT_NAME + SUFFIX in CMakeLists.txt)."""
    cmake = os.path.join(folder, "CMakeLists.txt")
    if not os.path.exists(cmake):
        return set()
    text = open(cmake, encoding="utf-8").read()
    names = re.findall(r"OUTPUT_NAME\s+(\S+).*?SUFFIX\s+\"([^\"]+)\"", text, re.S)
    return {name + suffix for name, suffix in names}


PLUGIN_LOAD_RE = re.compile(r",\s*plugin\s+using\(\s*\"?([^\")]+)\"?\s*\)")


def loaded_plugins(folder):
    """{plugin file: where} for every `program ..., plugin using("file")` of the .ado files."""
    found = {}
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".ado"):
            path = os.path.join(folder, entry)
            for number, line in enumerate(read_lines(path), 1):
                match = PLUGIN_LOAD_RE.search(line)
                if match and not line.strip().startswith("*"):
                    found.setdefault(match.group(1), f"{path}:{number}")
    return found


def copied_tasks(folder):
    """Task files the build copies into the folder (net_tasks.cmake: ../prompts/*.toml)."""
    if not os.path.exists(os.path.join(folder, "net_tasks.cmake")):
        return set()
    prompts = os.path.join(folder, "..", "prompts")
    if not os.path.isdir(prompts):
        return set()
    return {entry for entry in os.listdir(prompts) if entry.endswith(".toml")}


def check_packages(folder, problems, installable=False, platform=None):
    built = set() if installable else plugin_outputs(folder)
    tasks = set() if installable else copied_tasks(folder)
    packaged = set()
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.endswith(".pkg"):
            for number, line in enumerate(read_lines(path), 1):
                words = line.split()
                if not words:
                    continue
                if words[0] in ("f", "F") and len(words) >= 2:
                    # With f, Stata installs only its own suffixes (.ado, .sthlp, .plugin, ...);
                    # any other file is ancillary (net get: the current folder), so a task file
                    # that task() must find on the ado-path needs F.
                    suffix = os.path.splitext(words[1])[1].lower()
                    if words[0] == "f" and suffix == ".toml":
                        problems.append(f"{path}:{number}: file {words[1]} is listed with f: "
                                        f"net install would not put it on the ado-path "
                                        f"(ancillary); list it with F")
                    if os.path.exists(os.path.join(folder, words[1])) or words[1] in tasks:
                        continue
                    if installable:
                        problems.append(f"{path}:{number}: file {words[1]} is not in the folder: "
                                        f"net install would fail (build first)")
                    else:
                        problems.append(f"{path}:{number}: file {words[1]} does not exist")
                elif words[0] == "g":
                    if len(words) < 3:
                        problems.append(f"{path}:{number}: `g` needs a platform and a file")
                        continue
                    packaged.add(words[-1])  # `g PLATFORM source [installed name]`
                    if os.path.exists(os.path.join(folder, words[2])) or words[2] in built:
                        continue
                    if installable and platform is not None and words[1] != platform:
                        continue  # net install on `platform` does not copy it
                    if installable:
                        problems.append(f"{path}:{number}: file {words[2]} is not in the folder: "
                                        f"net install would fail (build the plugin first)")
                    else:
                        problems.append(f"{path}:{number}: file {words[2]} neither exists nor "
                                        f"is built by CMakeLists.txt")
        elif entry == "stata.toc":
            for number, line in enumerate(read_lines(path), 1):
                words = line.split()
                if words[:1] == ["p"] and len(words) >= 2 and \
                        not os.path.exists(os.path.join(folder, words[1] + ".pkg")):
                    problems.append(f"{path}:{number}: package {words[1]}.pkg does not exist")
    for plugin, where in loaded_plugins(folder).items():
        if plugin not in packaged:
            problems.append(f"{where}: the plugin {plugin} is loaded but no .pkg installs it "
                            f"(a `g` line)")


def lint(folder, installable=False, platform=None):
    problems = []
    syntax = {}
    helps = {}
    for root, _, files in os.walk(folder):
        for entry in sorted(files):
            path = os.path.join(root, entry)
            if entry.endswith(".ado"):
                for program in check_programs(path, problems, require_version=True):
                    if program["internal"]:
                        continue
                    for number, line in program["syntax"]:
                        for name, minimal in syntax_options(line).items():
                            syntax.setdefault(name, (minimal, f"{path}:{number}"))
            elif entry.endswith(".do"):
                check_programs(path, problems, require_version=False)
            elif entry.endswith(".sthlp"):
                check_braces(path, problems)
                for name, value in help_options(path, problems).items():
                    helps.setdefault(name, value + (path,))
    check_packages(folder, problems, installable, platform)
    if helps or syntax:
        for name, (minimal, number, path) in sorted(helps.items()):
            if name not in syntax:
                problems.append(f"{path}:{number}: option {name}() is in the help but in no "
                                f"syntax statement")
            elif syntax[name][0] != minimal:
                problems.append(f"{path}:{number}: option {name}: the help abbreviates it to "
                                f"`{minimal}`, syntax ({syntax[name][1]}) to `{syntax[name][0]}`")
        for name, (minimal, where) in sorted(syntax.items()):
            if name not in helps:
                problems.append(f"{where}: option {name} is not documented in the help")
    return problems


def self_test():
    """Each broken folder must give at least one problem that mentions `expect`."""
    good_ado = ("*! x\nprogram define foo, rclass\n    version 14.1\n"
                "    syntax varlist [, ALPha(real 0.05) REPLACE]\nend\n")
    good_help = "{smcl}\n{synopt:{opt alp:ha(#)}}level{p_end}\n{synopt:{opt replace}}r{p_end}\n"
    good_pkg = "v 3\nf foo.ado\nf foo.sthlp\n"
    cases = {
        "clean": ({}, None),
        "unbalanced": ({"foo.ado": good_ado.replace("end\n", "")}, "no `end`"),
        "no version": ({"foo.ado": good_ado.replace("    version 14.1\n", "")}, "no `version`"),
        "old version": ({"foo.ado": good_ado.replace("14.1", "13")}, "below 14.1"),
        "braces": ({"foo.sthlp": good_help + "{p_end\n"}, "never closed"),
        "pkg file": ({"foo.pkg": good_pkg + "f missing.ado\n"}, "missing.ado"),
        "undocumented": ({"foo.sthlp": good_help.replace("{synopt:{opt replace}}r{p_end}\n", "")},
                         "not documented"),
        "unknown": ({"foo.sthlp": good_help + "{synopt:{opt gen:erate(p)}}g{p_end}\n"},
                    "in no syntax"),
        "abbreviation": ({"foo.sthlp": good_help.replace("alp:ha", "al:pha")}, "abbreviates"),
        "plugin not packaged": ({"foo.ado": good_ado.replace(
            "end\n", "end\nprogram foo_plugin, plugin using(\"foo.plugin\")\n")},
            "no .pkg installs it"),
        "plugin packaged, not built": ({"foo.ado": good_ado.replace(
            "end\n", "end\nprogram foo_plugin, plugin using(\"foo.plugin\")\n"),
            "foo.pkg": good_pkg + "g LINUX64 foo.plugin\n"}, "neither exists"),
        "installable, no plugin": ({"foo.pkg": good_pkg + "g LINUX64 foo.plugin\n",
                                   "CMakeLists.txt": "set_target_properties(x PROPERTIES "
                                   "OUTPUT_NAME foo PREFIX \"\" SUFFIX \".plugin\")\n",
                                   "--installable": ""}, "net install would fail"),
        "installable, plugin there": ({"foo.pkg": good_pkg + "g LINUX64 foo.plugin\n",
                                      "foo.plugin": "binary", "--installable": ""}, None),
        "installable for LINUX64, the Windows plugin absent": (
            {"foo.pkg": good_pkg + "g WIN64A foo_win.plugin foo.plugin\ng LINUX64 foo.plugin\n",
             "foo.plugin": "binary", "--installable": "", "--platform": "LINUX64"}, None),
        "installable for every platform, the Windows plugin absent": (
            {"foo.pkg": good_pkg + "g WIN64A foo_win.plugin foo.plugin\ng LINUX64 foo.plugin\n",
             "foo.plugin": "binary", "--installable": ""}, "foo_win.plugin is not in the folder"),
        "task listed with f": ({"foo.pkg": good_pkg + "f task.toml\n",
                                "net_tasks.cmake": "", "../prompts/task.toml": ""},
                               "list it with F"),
        "task the build copies": ({"foo.pkg": good_pkg + "F task.toml\n",
                                  "net_tasks.cmake": "", "../prompts/task.toml": ""}, None),
        "task nobody copies": ({"foo.pkg": good_pkg + "F task.toml\n",
                               "../prompts/task.toml": ""}, "task.toml does not exist"),
        "installable, task not copied": ({"foo.pkg": good_pkg + "F task.toml\n",
                                         "net_tasks.cmake": "", "../prompts/task.toml": "",
                                         "--installable": ""}, "net install would fail"),
    }
    failures = 0
    for label, (overrides, expect) in cases.items():
        with tempfile.TemporaryDirectory() as parent:
            folder = os.path.join(parent, "stata")
            os.mkdir(folder)
            os.mkdir(os.path.join(parent, "prompts"))
            files = {"foo.ado": good_ado, "foo.sthlp": good_help, "foo.pkg": good_pkg}
            files.update(overrides)
            installable = files.pop("--installable", None) is not None
            platform = files.pop("--platform", None)
            for name, text in files.items():
                with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                    handle.write(text)
            problems = lint(folder, installable, platform)
            ok = (not problems) if expect is None else any(expect in p for p in problems)
            if not ok:
                failures += 1
                print(f"self-test {label}: expected {expect!r}, got {problems}")
    print(f"lint_ado self-test: {len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    arguments = argv[1:]
    installable = "--installable" in arguments
    arguments = [a for a in arguments if a != "--installable"]
    platform = None
    if "--platform" in arguments:
        at = arguments.index("--platform")
        if at + 1 >= len(arguments):
            print("lint_ado: --platform needs a platform name (e.g. LINUX64, WIN64A)")
            return 2
        platform = arguments[at + 1]
        del arguments[at:at + 2]
    folder = arguments[0] if arguments else os.path.join(os.path.dirname(__file__), "..")
    problems = lint(os.path.abspath(folder), installable, platform)
    for problem in problems:
        print(problem)
    if problems:
        print(f"lint_ado: {len(problems)} problem(s)")
        return 1
    print("lint_ado: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
