#!/usr/bin/env python3
"""Writes stata/llmv_section4.csv, the Stata example data of the paper's Section 4 (Hansen 2026,
Tables 1-8): the five passages of prompts/passages/section4.toml, one per row, with their
simulation prompt for each Section 4 task (sim_<task>, for simprompt()) and the two topics of
Section 4.5 (topic_discussed and topic_not_discussed, for vars(topic=...)).

    python3 stata/tools/make_section4_data.py          # (re)writes the file
    python3 stata/tools/make_section4_data.py --check  # fails if the file is not what it writes

The file is UTF-8 CSV with a header line, every field quoted; Stata reads it with
import delimited using llmv_section4.csv, varnames(1) encoding("utf-8") bindquote(strict).
"""
import csv
import io
import sys
import tomllib
from pathlib import Path

TASKS = ["simple_sentiment", "detailed_sentiment", "clarity", "temporal_focus", "topic"]
ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "prompts" / "passages" / "section4.toml"
OUTPUT = ROOT / "stata" / "llmv_section4.csv"


def rows():
    with SOURCE.open("rb") as file:
        passages = tomllib.load(file)["passage"]
    header = ["id", "title", "text", "topic_discussed", "topic_not_discussed"]
    header += ["sim_" + task for task in TASKS]
    yield header
    for passage in passages:
        if "variables" not in passage or "simulation" not in passage:
            continue  # a passage outside Section 4's tables (no topics, no prompts)
        row = [passage["id"], passage["title"], passage["text"].strip()]
        variables = passage["variables"]  # `topic` is the topic the passage discusses
        row += [variables["topic"], variables["topic_not_discussed"]]
        row += [passage["simulation"][task].strip() for task in TASKS]
        for field in row:
            if "\n" in field or "\r" in field:
                raise SystemExit(f"{passage['id']}: a field holds a line break: {field!r}")
        yield row


def main():
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows())
    text = out.getvalue()
    if sys.argv[1:] == ["--check"]:
        if not OUTPUT.exists() or OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is not what {Path(__file__).name} writes from {SOURCE}; run it",
                  file=sys.stderr)
            return 1
        print(f"{OUTPUT.name} matches {SOURCE.relative_to(ROOT)}")
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({text.count(chr(10)) - 1} passages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
