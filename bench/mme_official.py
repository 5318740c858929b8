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
  "other" the confusion matrix, precision and recall (the tool calls scikit-learn for these four; here they
  are computed with plain loops, which is not slower than scikit-learn on Python lists);
- score = (acc + acc+) x 100 per subtask; the sum per part is printed, then each subtask's score.

Usage: python bench/mme_official.py --results_dir FOLDER
"""

from __future__ import annotations

import argparse
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
    acc = sum(1 for g, p in zip(gt_labels, pred_labels, strict=True) if g == p) / len(gt_labels)
    clean_gts, clean_preds, other = [], [], 0
    for g, p in zip(gt_labels, pred_labels, strict=True):
        if p == -1:
            other += 1
            continue
        clean_gts.append(g)
        clean_preds.append(p)
    tp = sum(1 for g, p in zip(clean_gts, clean_preds, strict=True) if g == 1 and p == 1)
    fn = sum(1 for g, p in zip(clean_gts, clean_preds, strict=True) if g == 1 and p == 0)
    fp = sum(1 for g, p in zip(clean_gts, clean_preds, strict=True) if g == 0 and p == 1)
    tn = sum(1 for g, p in zip(clean_gts, clean_preds, strict=True) if g == 0 and p == 0)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {"TP": tp, "FN": fn, "TN": tn, "FP": fp, "precision": precision, "recall": recall,
            "other_num": other, "acc": acc}


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
    process_result(parser.parse_args().results_dir)
