#!/usr/bin/env python3
"""Writes the example inputs of `llmvalidate test` (standard library only, reproducible).

    python3 examples/make_test_input.py      # rewrites examples/test-input*.json

SYNTHETIC DATA, not an LLM: the embeddings are normalised Gaussian clusters, one per label,
standing in for the embeddings of texts an LLM wrote for that label (d = 8 instead of the
hundreds of dimensions of a real embedding model). Cluster centres share a common direction,
as real texts on one topic do, so the labels are separated but not trivially.

- test-input.json: K = 3 labels, M = 20 texts per pool, a passage drawn from the "Positive"
  cluster, backtranslation answers for every pool (the "LLM" labels each text by its nearest
  centre after adding noise, so a few come back wrong); default methods.
- test-input-paper.json: the same pools plus B = 20 reference texts per label, run with the
  paper's methods (validation_method "paper", separation_method "paper").
"""

import json
import math
import os
import random

LABELS = ["Positive", "Neutral", "Negative"]
DIMENSION = 8
POOL_SIZE = 20
REFERENCE_SIZE = 20
SEED = 20260


def normalised(vector):
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def draw(rng, centre, spread):
    return normalised([c + rng.gauss(0.0, spread) for c in centre])


def rounded(vector):
    return [round(x, 6) for x in vector]


def main():
    rng = random.Random(SEED)
    topic = normalised([rng.gauss(0.0, 1.0) for _ in range(DIMENSION)])
    centres = {}
    for label in LABELS:
        own = normalised([rng.gauss(0.0, 1.0) for _ in range(DIMENSION)])
        centres[label] = normalised([0.8 * t + 0.6 * o for t, o in zip(topic, own)])

    spread = 0.18
    pools = {label: [rounded(draw(rng, centres[label], spread)) for _ in range(POOL_SIZE)]
             for label in LABELS}
    reference = {label: [rounded(draw(rng, centres[label], spread)) for _ in range(REFERENCE_SIZE)]
                 for label in LABELS}
    passage = rounded(draw(rng, centres["Positive"], spread))

    def annotate(text):
        # The stand-in "LLM" labels a text by its nearest centre after some noise.
        noisy = [x + rng.gauss(0.0, 0.1) for x in text]
        return max(LABELS, key=lambda label: sum(a * b for a, b in zip(noisy, centres[label])))

    backtranslation = {label: [annotate(text) for text in pools[label]] for label in LABELS}

    base = {
        "_comment": "Synthetic example (normalised Gaussian clusters, not an LLM); written by "
                    "examples/make_test_input.py. Format: docs/test-format.md.",
        "label": "Positive",
        "labels": LABELS,
        "passage": passage,
        "pools": pools,
        "backtranslation": backtranslation,
        "alpha": 0.05,
        "threshold": 0.9,
        "seed": 1,
        "permutations": 999,
        "validation_method": "exact",
        "separation_method": "permutation",
        "backtranslation_rule": "point",
    }
    paper = dict(base)
    paper["validation_method"] = "paper"
    paper["separation_method"] = "paper"
    paper["paper_reference"] = reference

    here = os.path.dirname(os.path.abspath(__file__))
    for name, document in (("test-input.json", base), ("test-input-paper.json", paper)):
        with open(os.path.join(here, name), "w", encoding="utf-8") as out:
            write_compact(document, out)


def write_compact(document, out):
    """One embedding per line: readable, and diffs stay small."""
    lines = ["{"]
    items = list(document.items())
    for index, (key, value) in enumerate(items):
        comma = "," if index + 1 < len(items) else ""
        if key in ("pools", "paper_reference", "backtranslation"):
            lines.append(f'  {json.dumps(key)}: {{')
            inner = list(value.items())
            for j, (label, rows) in enumerate(inner):
                inner_comma = "," if j + 1 < len(inner) else ""
                if key == "backtranslation":
                    lines.append(f'    {json.dumps(label)}: {json.dumps(rows)}{inner_comma}')
                    continue
                lines.append(f'    {json.dumps(label)}: [')
                for k, row in enumerate(rows):
                    row_comma = "," if k + 1 < len(rows) else ""
                    lines.append(f'      {json.dumps(row)}{row_comma}')
                lines.append(f'    ]{inner_comma}')
            lines.append(f'  }}{comma}')
        else:
            lines.append(f'  {json.dumps(key)}: {json.dumps(value)}{comma}')
    lines.append("}")
    out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
