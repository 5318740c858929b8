"""BASELINE, not part of mmgauge: a re-implementation of the MME authors' evaluation tool
(`eval_tool/calculation.py` of the MME release, class `calculate_metrics`), for timing it against
`mmgauge score mme`. Written from reading the tool's algorithm, not copied; the same steps in the same order,
with the same plain Python loops:

- for each of the 14 subtasks, in the tool's order (perception, then cognition): `readlines()` of
  `<results_dir>/<subtask>.txt`, chunks of 2 lines (one image), each line split on tabs into image,
  question, ground truth and prediction (the prediction keeps its line break, as in the tool);
- ground truth and prediction lower-cased; the prediction read by `parse_pred_ans`: exactly "yes" or "no",
  else "yes" if the first 4 characters hold "yes", else "no" if they hold "no", else "other";
- per image, the number of right answers (acc+ counts images with 2); per subtask the label lists
  (yes 1, no 0, other -1) go to `compute_metric`: accuracy over all answers, and over the answers other than
  "other" the confusion matrix, precision and recall, with scikit-learn's `accuracy_score`,
  `confusion_matrix`, `precision_score` and `recall_score` on the Python lists, as the tool calls them
  (imported at the top, as the tool imports them). Without scikit-learn the four are computed with plain
  loops instead (`--plain-metrics` forces that), which is faster than the tool;
- score = (acc + acc+) x 100 per subtask; the sum per part is printed, then each subtask's score.

Usage: python bench/mme_official.py --results_dir FOLDER
"""

from __future__ import annotations

import argparse
import contextlib
import os

EVAL_TYPES = {
    "Perception": ["existence", "count", "position", "color", "posters", "celebrity", "scene", "landmark",
                   "artwork", "OCR"],
    "Cognition": ["commonsense_reasoning", "numerical_calculation", "text_translation", "code_reasoning"],
}
LABELS = {"yes": 1, "no": 0, "other": -1}


def pairs_of(lines: list[str]) -> list[list[str]]:
    return [lines[i:i + 2] for i in range(0, len(lines), 2)]


def parse_pred_ans(pred_ans: str) -> str:
    if pred_ans in ("yes", "no"):
        return pred_ans
    prefix = pred_ans[:4]
    if "yes" in prefix:
        return "yes"
    if "no" in prefix:
        return "no"
    return "other"


def compute_metric(gts: list[str], preds: list[str]) -> dict[str, float]:
    assert len(gts) == len(preds)
    gt_labels = [LABELS[x] for x in gts]
    pred_labels = [LABELS[x] for x in preds]
    acc = METRICS.accuracy(gt_labels, pred_labels)
    clean_gts, clean_preds, other = [], [], 0
    for g, p in zip(gt_labels, pred_labels, strict=True):
        if p == -1:
            other += 1
            continue
        clean_gts.append(g)
        clean_preds.append(p)
    (tp, fn), (fp, tn) = METRICS.confusion(clean_gts, clean_preds)
    precision, recall = METRICS.precision(clean_gts, clean_preds), METRICS.recall(clean_gts, clean_preds)
    return {"TP": tp, "FN": fn, "TN": tn, "FP": fp, "precision": precision, "recall": recall,
            "other_num": other, "acc": acc}


class PlainMetrics:
    """The four metrics with loops over the label lists (labels 1 and 0, as the tool passes them)."""

    @staticmethod
    def accuracy(gts: list[int], preds: list[int]) -> float:
        return sum(1 for g, p in zip(gts, preds, strict=True) if g == p) / len(gts)

    @staticmethod
    def confusion(gts: list[int], preds: list[int]) -> list[list[int]]:
        pairs = list(zip(gts, preds, strict=True))
        return [[pairs.count((1, 1)), pairs.count((1, 0))], [pairs.count((0, 1)), pairs.count((0, 0))]]

    @staticmethod
    def precision(gts: list[int], preds: list[int]) -> float:
        tp = sum(1 for g, p in zip(gts, preds, strict=True) if g == 1 and p == 1)
        predicted = sum(1 for p in preds if p == 1)
        return tp / predicted if predicted else 0.0

    @staticmethod
    def recall(gts: list[int], preds: list[int]) -> float:
        tp = sum(1 for g, p in zip(gts, preds, strict=True) if g == 1 and p == 1)
        actual = sum(1 for g in gts if g == 1)
        return tp / actual if actual else 0.0


class SklearnMetrics:
    """The tool's calls."""

    def __init__(self) -> None:
        from sklearn.metrics import accuracy_score, confusion_matrix, precision_score, recall_score

        self.accuracy = accuracy_score
        self.confusion = lambda gts, preds: confusion_matrix(gts, preds, labels=[1, 0])
        self.precision = lambda gts, preds: precision_score(gts, preds, average="binary")
        self.recall = lambda gts, preds: recall_score(gts, preds, average="binary")


METRICS: PlainMetrics | SklearnMetrics = PlainMetrics()


def process_result(results_dir: str) -> dict[str, float]:
    scores_by_task: dict[str, float] = {}
    for eval_type, task_names in EVAL_TYPES.items():
        print("===========", eval_type, "===========")
        scores = 0.0
        task_scores: dict[str, float] = {}
        for task_name in task_names:
            with open(os.path.join(results_dir, task_name + ".txt")) as handle:
                lines = handle.readlines()
            chunks = pairs_of(lines)
            acc_plus_correct = 0
            gts: list[str] = []
            preds: list[str] = []
            for img_items in chunks:
                assert len(img_items) == 2
                img_correct = 0
                for img_item in img_items:
                    _, _, gt_ans, pred_ans = img_item.split("\t")
                    gt_ans, pred_ans = gt_ans.lower(), pred_ans.lower()
                    assert gt_ans in ("yes", "no")
                    pred_ans = parse_pred_ans(pred_ans)
                    gts.append(gt_ans)
                    preds.append(pred_ans)
                    if gt_ans == pred_ans:
                        img_correct += 1
                if img_correct == 2:
                    acc_plus_correct += 1
            metrics = compute_metric(gts, preds)
            metrics["acc_plus"] = acc_plus_correct / len(chunks)
            task_score = 0.0
            for key, value in metrics.items():
                if key in ("acc", "acc_plus"):
                    task_score += value * 100
            task_scores[task_name] = task_score
            scores += task_score
        print("total score:", scores, "\n")
        for task_name, score in task_scores.items():
            print("\t", task_name, " score:", score)
        print("\n")
        scores_by_task.update(task_scores)
    return scores_by_task


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--results_dir", default="", type=str)
    parser.add_argument("--plain-metrics", action="store_true", help="loops instead of scikit-learn")
    args = parser.parse_args()
    if not args.plain_metrics:
        with contextlib.suppress(ImportError):
            METRICS = SklearnMetrics()
    process_result(args.results_dir)
