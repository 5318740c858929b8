"""Generated inputs of the scoring and endpoint benches, written line by line (generation is never timed).

- MMBench: a VLMEvalKit prediction file as VLMEvalKit writes it (pandas `to_csv(sep="\\t")`: a cell holding a
  tab, a quote or a line break is quoted, quotes doubled), columns index, question, hint, A-D, answer,
  category, l2-category, split, prediction; 4 circular copies per question at index + k * 1,000,000. Text
  is not ASCII-only (Chinese questions and options, accented words), and some question, hint and
  prediction cells hold line breaks, so a reader cannot split lines without parsing quotes. Answers are
  a realistic mix: bare letters, "B. text", "The answer is C because ...", option texts, explanations
  naming two options (unresolved), failure markers, and options pandas would read as missing ("None").
- MMBench with images (`write_mmbench_images`): the same questions as a VLMEvalKit dataset TSV with an
  `image` column: each distinct image's base64 once, in the first row that shows it, and that row's index
  in every other row (as VLMEvalKit stores images shared by circular copies).
- MME: the official tool's results folder (`<subtask>.txt`, lines `image<TAB>question<TAB>truth<TAB>answer`),
  `copies` copies of the 2,374-question release template, each copy's images renamed (`c<k>_<name>`), answers
  a mix of Yes/No, chatty answers, prefixes the official parser reads ("not sure" is no), and answers it
  cannot read ("I don't know", empty).
- M3GIA: a counts CSV, one row per model of the 18 per-type counts of right answers (English model).
- General-Level: a CSV of rows `model, modality, paradigm, task, metric, score` for as many models as it
  takes to reach the row count (699 tasks per model, some unsupported); the bench scores one model of it.
"""

from __future__ import annotations

import base64
import csv
import io
import random
from collections.abc import Iterator
from pathlib import Path

from mmgauge.extraction.choice import FAILURE_MARKER

ROOT = Path(__file__).resolve().parents[1]
MME_TEMPLATE = ROOT / "tests" / "fixtures" / "mme" / "official_template"
MME_RELEASE_LINES = 2374
WORDS = ("red", "blue", "green", "yellow", "cat", "dog", "bird", "fish", "table", "chair", "river",
         "mountain", "city", "forest", "car", "train", "café", "niño", "Straße", "façade")
WORDS_CN = ("红色", "蓝色", "猫", "狗", "鸟", "桌子", "河流", "山", "城市", "森林", "汽车", "火车")
CATEGORIES = (
    ("image_scene", "coarse_perception"), ("image_topic", "coarse_perception"),
    ("ocr", "finegrained_perception (instance-level)"),
    ("attribute_recognition", "finegrained_perception (instance-level)"),
    ("spatial_relationship", "finegrained_perception (cross-instance)"),
    ("physical_property_reasoning", "attribute_reasoning"), ("social_relation", "relation_reasoning"),
    ("future_prediction", "logic_reasoning"),
)
COLUMNS = ["index", "question", "hint", "A", "B", "C", "D", "answer", "category", "l2-category", "split"]


def _choice_answer(rng: random.Random, options: list[str], truth: int) -> str:
    letter = "ABCD"[truth if rng.random() < 0.7 else rng.randrange(4)]
    kind = rng.random()
    if kind < 0.45:
        return letter
    if kind < 0.6:
        return f"{letter}. {options['ABCD'.index(letter)]}"
    if kind < 0.72:
        return f"The answer is {letter} because the picture shows a {rng.choice(WORDS)}."
    if kind < 0.8:
        return options["ABCD".index(letter)]
    if kind < 0.86:  # a multi-line answer with quotes, as chat models write them
        seen, unseen = rng.choice(WORDS), rng.choice(WORDS)
        return f'Looking at the "{seen}" in the image:\n- it is not {unseen}\n\n{letter}'
    if kind < 0.97:
        return (f"Option A could fit since there is a {rng.choice(WORDS)}, but option B also seems plausible "
                f"given the {rng.choice(WORDS)}; it is hard to decide.")
    return FAILURE_MARKER


def _questions(rows: int, seed: int) -> Iterator[tuple[int, list[str], int, random.Random]]:
    """Per question: its number, the copies' shared cells (question, hint, options), the right option."""
    rng = random.Random(seed)
    for question in range(rows // 4):
        if question % 2:  # MMBench-CN-like rows: Chinese question and options
            options = [f"{rng.choice(WORDS_CN)}{rng.choice(WORDS_CN)} {n}" for n in range(4)]
            text = f"图片{question}中显示的是什么？请仔细观察{rng.choice(WORDS_CN)}。"
        else:
            options = [f"{rng.choice(WORDS)} {rng.choice(WORDS)} {n}" for n in range(4)]
            text = f"What is shown in picture {question}? Look at the {rng.choice(WORDS)}."
        if question % 5 == 0:
            text += f"\nOptions are listed below; pick one of the \"{rng.choice(WORDS)}\" answers."
        if question % 97 == 0:
            options[3] = "None"  # pandas reads it as missing: VLMEvalKit drops the option
        hint = "" if question % 3 else ("A hint.\nThe second line of the hint." if question % 2 else "提示。")
        yield question, [text, hint, *options], rng.randrange(4), rng


def _copies(question: int, cells: list[str], truth: int) -> Iterator[tuple[list[object], int]]:
    text, hint, options = cells[0], cells[1], cells[2:]
    for k in range(4):
        shown = options[k:] + options[:k]
        category, l2 = CATEGORIES[question % len(CATEGORIES)]
        right = (truth - k) % 4
        yield [question + k * 1_000_000, text, hint, *shown, "ABCD"[right], category, l2, "dev"], right


def write_mmbench(path: Path, rows: int, seed: int = 0) -> None:
    """`rows` rows (rounded down to whole questions of 4 copies)."""
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow([*COLUMNS, "prediction"])
        for question, cells, truth, rng in _questions(rows, seed):
            for row, right in _copies(question, cells, truth):
                writer.writerow([*row, _choice_answer(rng, [str(c) for c in row[3:7]], right)])


def noise_png(seed: int, side: int) -> bytes:
    """An RGB PNG of noise: it does not compress, so its size is about 3 * side**2 bytes."""
    import numpy as np
    from PIL import Image

    pixels = np.random.default_rng(seed).integers(0, 256, size=(side, side, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def write_mmbench_images(path: Path, rows: int, distinct: int, image_bytes: int, seed: int = 0) -> None:
    """A VLMEvalKit MMBench dataset TSV of `rows` rows (4 circular copies per question) over `distinct`
    images of about `image_bytes` each (PNG); question q shows image q % distinct."""
    side = max(8, round((image_bytes / 3) ** 0.5))
    holder: dict[int, int] = {}
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow([*COLUMNS, "image"])
        for question, cells, truth, _ in _questions(rows, seed):
            picture = question % distinct
            for row, _right in _copies(question, cells, truth):
                if picture in holder:
                    cell = str(holder[picture])
                else:
                    holder[picture] = int(str(row[0]))
                    cell = base64.b64encode(noise_png(picture, side)).decode("ascii")
                writer.writerow([*row, cell])


def _yes_no_answer(rng: random.Random, truth: str) -> str:
    said = truth if rng.random() < 0.8 else ("No" if truth == "Yes" else "Yes")
    kind = rng.random()
    if kind < 0.6:
        return said
    if kind < 0.8:
        return f"{said}, the image shows a {rng.choice(WORDS)}."
    if kind < 0.9:
        return said.lower()
    if kind < 0.95:
        return "Not sure, it may be a " + rng.choice(WORDS)
    return "" if kind < 0.96 else "I don't know."


def write_mme_folder(folder: Path, copies: int, seed: int = 0) -> int:
    """`copies` copies of the release in one results folder; returns the number of lines written."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for template in sorted(MME_TEMPLATE.glob("*.txt")):
        lines = [line.split("\t") for line in template.read_text(encoding="utf-8").splitlines() if line]
        with (folder / template.name).open("w", encoding="utf-8") as out:
            for copy in range(copies):
                for image, question, truth in lines:
                    out.write(f"c{copy}_{image}\t{question}\t{truth}\t{_yes_no_answer(rng, truth)}\n")
                    written += 1
    return written


def write_m3gia_counts(path: Path, rows: int, seed: int = 0) -> None:
    from mmgauge.benchmarks.m3gia.gia import load_published_model, question_counts

    rng = random.Random(seed)
    indicators = load_published_model("en").indicators
    maxima = question_counts("en")
    with path.open("w", encoding="utf-8") as out:
        out.write(",".join(indicators) + "\n")
        for _ in range(rows):
            out.write(",".join(str(rng.randint(0, maxima[c])) for c in indicators) + "\n")


def write_level_rows(path: Path, rows: int, seed: int = 0) -> str:
    """General-Level result rows of ceil(rows / 699) models; returns the name of the model to score."""
    from mmgauge.general_level import load_specialist_table

    rng = random.Random(seed)
    tasks = load_specialist_table()
    models = -(-rows // len(tasks))
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["model", "modality", "paradigm", "task", "metric", "score"])
        written = 0
        for m in range(models):
            for task in tasks:
                if written == rows:
                    break
                score = "" if rng.random() < 0.3 else f"{task.sota * rng.uniform(0.5, 1.0):.3f}"
                writer.writerow([f"model-{m}", task.modality or "NLP", task.paradigm or "", task.task,
                                 task.metric, score])
                written += 1
    return f"model-{models // 2}"


def main() -> None:
    """`python bench/inputs.py KIND PATH ROWS`: write one input (the bench stays a small process, so that
    the peak memory its children report is their own: a child's max RSS starts at its parent's)."""
    import sys

    kind, path, rows = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    if kind == "mmbench":
        write_mmbench(path, rows)
    elif kind == "mme":
        write_mme_folder(path, rows)
    elif kind == "m3gia":
        write_m3gia_counts(path, rows)
    elif kind == "level":
        print(write_level_rows(path, rows))
    elif kind == "mmbench-images":  # ROWS DISTINCT IMAGE_BYTES
        write_mmbench_images(path, rows, int(sys.argv[4]), int(sys.argv[5]))
    else:
        raise SystemExit(f"unknown input kind {kind}")


if __name__ == "__main__":
    main()
