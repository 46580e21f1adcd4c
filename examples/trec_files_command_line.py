"""
TREC files: from_trec and the trec_eval-compatible command line
===============================================================

Search engines are evaluated on TREC files: a *qrels* file of relevance
judgments (``qid iter docno rel``) and one *run* file per system
(``qid Q0 docno rank score tag``). This example writes a small qrels file
and the runs of two systems, then evaluates them twice:

* in Python, with :func:`~sklearn_rankk.from_trec`, which reads the files
  into the ``(y_true, y_score)`` matrices every metric takes, and
  :func:`~sklearn_rankk.ranking_report`;
* on the command line, with ``sklearn-rankk qrels run -m ...``, which
  prints trec_eval's three columns (``python -m sklearn_rankk`` is the same
  program).

Both give trec_eval's numbers: ``from_trec`` orders each query's documents
as trec_eval does, and ``ignore_ties=True`` breaks ties as it does.
"""

# %%
# A qrels file and two runs
# -------------------------
# 30 queries over 40 documents each; about one document in six is relevant,
# with grades 1 to 3. System A scores documents by a noisy copy of their
# grade, system B by a noisier one. Each run lists its top 20 documents.
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from sklearn_rankk import from_trec, map_at_k_score, ndcg_at_k_score, ranking_report

rng = np.random.default_rng(0)
folder = Path(tempfile.mkdtemp())
grades = rng.integers(1, 4, size=(30, 40)) * (rng.random((30, 40)) < 1 / 6)
with open(folder / "qrels.txt", "w") as qrels:
    for q, row in enumerate(grades):
        for d, grade in enumerate(row):
            qrels.write(f"q{q:02d} 0 doc{d:02d} {grade}\n")

for system, noise in [("A", 1.0), ("B", 2.5)]:
    scores = grades + rng.normal(scale=noise, size=grades.shape)
    with open(folder / f"run_{system}.txt", "w") as run:
        for q, row in enumerate(scores):
            top = np.argsort(-row)[:20]
            for rank, d in enumerate(top, start=1):
                run.write(f"q{q:02d} Q0 doc{d:02d} {rank} {row[d]:.4f} {system}\n")

print((folder / "qrels.txt").read_text().splitlines()[:3])
print((folder / "run_A.txt").read_text().splitlines()[:3])

# %%
# In Python: from_trec and a report
# ---------------------------------
# ``from_trec`` returns one row per query (``qids`` names them) and one
# column per document of the query, in trec_eval's order. Judged relevant
# documents that a run does not retrieve score ``-inf``: they count in
# recall and in the ideal DCG, at no rank.
per_query = {}
for system in "AB":
    y_true, y_score, qids = from_trec(
        folder / "qrels.txt", folder / f"run_{system}.txt"
    )
    report = ranking_report(
        y_true,
        y_score,
        k=[5, 10],
        metrics=["precision", "ndcg", "map"],
        ignore_ties=True,
    )
    whole_map = map_at_k_score(y_true, y_score, k=None, ignore_ties=True)
    print(f"system {system}: {len(qids)} queries")
    print(report)
    print(f"map over the whole run (trec_eval's map): {whole_map:.4f}\n")
    per_query[system] = ndcg_at_k_score(
        y_true, y_score, k=10, ignore_ties=True, average=None
    )

# %%
# On the command line
# -------------------
# The same files, the same numbers, in trec_eval's layout: ``-m`` takes the
# scorer names (``ndcg@10``) and trec_eval's (``P_5``, ``map``,
# ``ndcg_cut.10``); ``-q`` adds a line per query.
command = [
    sys.executable,
    "-m",
    "sklearn_rankk",
    str(folder / "qrels.txt"),
    str(folder / "run_A.txt"),
    "-m",
    "P_5",
    "-m",
    "ndcg_cut.10",
    "-m",
    "map",
]
print("$ sklearn-rankk qrels.txt run_A.txt -m P_5 -m ndcg_cut.10 -m map")
print(subprocess.run(command, capture_output=True, text=True, check=True).stdout)

# %%
# Per query
# ---------
# The mean hides where the systems differ: nDCG@10 of each query, system A
# against system B (points above the diagonal: A ranks that query better).
fig, ax = plt.subplots(figsize=(4.5, 4.5))
ax.scatter(per_query["B"], per_query["A"], alpha=0.7)
ax.plot([0, 1], [0, 1], color="gray", linestyle="--", linewidth=1)
ax.set_xlabel("system B: nDCG@10")
ax.set_ylabel("system A: nDCG@10")
ax.set_title("nDCG@10 per query")
ax.set_aspect("equal")
plt.tight_layout()
plt.show()
