"""Prompt variants: the transforms that turn one measure's questions into a variant's prompts.

A variant is a name in `config["variants"]` (asked on every measure) or in a dataset's
`extra_variants` (asked on the measures it names besides those; `measure_variants`). Question files are never changed: every transform
runs at the prompts stage, on a copy of the question, and the prompt record's `answer_index` is
what gets scored.

| variant | template | transform |
|---|---|---|
| `zero_shot` | `zero_shot.txt` | none |
| `cot` | `cot.txt` ("Let's think step by step.") | none |
| `kshot` / `kshot<k>` | `zero_shot.txt` | `k` solved examples (`analysis.kshot.k` for `kshot`) from *other users'* questions of the same measure, with their gold labels, before the question (the paper's Fig. 7) |
| `noisy` | `zero_shot.txt` | one item of the profile the prompt shows (the measure registry's `profile`: the user's history, the rule's antecedents, or each candidate user's shown items), drawn at random, replaced by a random item of the pool that is not in the question (the paper's §5.4, Table 23); refused at start for a measure whose prompt shows no profile |
| `shuffle<s>` | `zero_shot.txt` | the candidates permuted under seed `s`, so the correct answer's slot is re-drawn (the paper's A.3, Tables 6 and 11) |
| `visual` | `zero_shot.txt` | the image of the latest history item sent with the prompt (the paper's Table 4, "text desc + Visual"); for a model that reads images, on a measure that shows items by their captions |

Every draw is seeded from `(seed, variant, qid)` (never from the order of questions), so a
variant's prompt for a question does not change when other questions are added or removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from lrworld.core.io import sha256_text
from lrworld.core.registry import Registry
from lrworld.core.seeding import rng_for

if TYPE_CHECKING:  # pandas costs every job that plans variants 0.4 s to import
    import pandas as pd


@dataclass(frozen=True)
class VariantKind:
    name: str
    # the variant names of this kind (a kind may take a parameter: kshot<k>, shuffle<s>)
    pattern: str
    # the template file it renders with: its own (zero_shot, cot) or zero_shot's
    own_template: bool = False
    # (question, context) -> (the question to render, metadata, text put before the prompt); None:
    # the template alone
    prepare: Callable | None = None
    # it reorders the candidates: its metadata's `permutation` (new slot -> old slot) is where the
    # answer moved, and the audit checks the prompt's answer_index against it
    permutes: bool = False
    # it corrupts the user profile a prompt shows: refused at start for a measure that shows none
    needs_profile: bool = False
    # the model must write before it answers (cot): scored by generating text and parsing it, never
    # by the log-probability of the label after the prompt
    generates: bool = False
    # it sends an item's image with the prompt: refused at start for a measure whose items are not
    # shown by their image captions, and for a model whose backend reads no images
    needs_images: bool = False


VARIANT_KINDS: Registry[VariantKind] = Registry("prompt variant")

# Words a variant name may not be (nor its pattern match). A variant names an output of the
# provenance rule (`W.record_outputs`), and Snakemake refuses the attribute names of its input and
# output lists there ("reverse is reserved for internal use"; tests/prompts/test_variants.py keeps
# this list equal to Snakemake's); and the results tables and score records give their own
# columns and keys the other names (`<measure>@<variant>`, `<column>_<figure>`).
SNAKEMAKE_RESERVED = ("append", "clear", "copy", "count", "extend", "get", "index", "insert", "items", "keys",
                      "pop", "remove", "reverse", "size", "size_files", "size_files_gb", "size_files_kb",
                      "size_files_mb", "size_gb", "size_kb", "size_mb", "size_tempfiles", "sort", "temp_size_mb",
                      "update")
RESERVED = SNAKEMAKE_RESERVED + ("all", "dataset", "model", "measure", "variant", "value", "n", "degenerate",
                                 "debiased", "ci_low", "ci_high", "diff_vs_random", "p_vs_random",
                                 "significant_vs_random")


def register_variant(name: str, pattern: str | None = None, own_template: bool = False, permutes: bool = False,
                     needs_profile: bool = False, needs_images: bool = False):
    """`@register_variant(name, pattern, permutes=...)` on a variant's prepare function."""
    pattern = pattern or re.escape(name)
    taken = [w for w in RESERVED if re.fullmatch(pattern, w)]
    if taken or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"prompt variant {name!r} (pattern {pattern!r}): "
                         + (f"{taken[0]!r} is a reserved word (lrworld.prompts.variants.RESERVED)" if taken
                            else "a name is lower-case letters, digits and '_', starting with a letter"))
    return VARIANT_KINDS.decorator(name, lambda fn: VariantKind(name, pattern, own_template, fn, permutes,
                                                                   needs_profile, needs_images=needs_images))


VARIANT_KINDS.add("zero_shot", VariantKind("zero_shot", "zero_shot", own_template=True))
VARIANT_KINDS.add("cot", VariantKind("cot", "cot", own_template=True, generates=True))


def generates(variant: str) -> bool:
    """A variant scored by generated text, parsed (cot), not by an option's log-probability."""
    return VARIANT_KINDS.get(kind(variant)).generates


def name_pattern() -> str:
    """The config schema's pattern for `variants` items, from the registry."""
    return "^(" + "|".join(k.pattern for _, k in VARIANT_KINDS.items()) + ")$"


def kind(variant: str) -> str:
    """The registered kind a variant name belongs to ('zero_shot', 'cot', 'kshot', 'noisy', 'shuffle')."""
    for name, k in VARIANT_KINDS.items():
        if re.fullmatch(k.pattern, variant):
            return name
    raise ValueError(f"unknown prompt variant {variant!r}; known: {[k.pattern for _, k in VARIANT_KINDS.items()]}")


def measure_variants(variants, dataset_cfg: dict, measure: str) -> list[str]:
    """The variants one measure of a dataset is asked in: config `variants` (every measure's), then
    the dataset's `extra_variants` for the measure. The one definition the graph's input functions,
    `lrworld plan`, the checks at start and the release read."""
    extra = (dataset_cfg.get("extra_variants") or {}).get(measure, ())
    return [*variants, *(v for v in extra if v not in variants)]


def all_variants(config: dict) -> list[str]:
    """Every variant some measure of some dataset is asked in: config `variants` first."""
    variants = list(config.get("variants", ["zero_shot"]))
    for ds in (config.get("datasets") or {}).values():
        for measure in ds.get("measures", ()):
            variants += [v for v in measure_variants(variants, ds, measure) if v not in variants]
    return variants


def column_name(measure: str, variant: str) -> str:
    """A (measure, variant)'s column in the results tables: the measure alone for zero_shot."""
    return measure if variant == "zero_shot" else f"{measure}@{variant}"


def permutes(variant: str) -> bool:
    """Whether the variant moves the candidates (and so the answer), from its registry entry."""
    return VARIANT_KINDS.get(kind(variant)).permutes


def refusal(dataset: str, measure_id: str, variant: str, profile: str | None, captions: bool = False) -> str | None:
    """The one-line reason a variant cannot run on a measure whose prompt shows `profile` (the
    measure registry's; checked at start) and, `captions`, its items by their image captions, else None."""
    vk = VARIANT_KINDS.get(kind(variant))
    if vk.needs_profile:
        return noisy_refusal(dataset, measure_id, profile)
    if vk.needs_images and not captions:
        return (f"variants: {variant} sends the image of the latest history item with the prompt, and datasets."
                f"{dataset} measure {measure_id!r} does not show items by their images (only multimodal does); "
                f"drop {variant} there")
    return None


def needs_images(variant: str) -> bool:
    """A variant whose prompts carry an image (`image_paths`): only a model that reads images may answer it."""
    return VARIANT_KINDS.get(kind(variant)).needs_images


def template_variant(variant: str) -> str:
    """The template file a variant renders with: its own for zero_shot/cot, zero_shot's otherwise."""
    return variant if VARIANT_KINDS.get(kind(variant)).own_template else "zero_shot"


def kshot_k(variant: str, default_k: int | None) -> int:
    """k of `kshot<k>`; plain `kshot` takes `default_k` (config analysis.kshot.k)."""
    m = re.fullmatch(r"kshot(\d*)", variant)
    if m and m.group(1):
        return int(m.group(1))
    if default_k is None:
        raise ValueError(f"variant {variant!r}: its k comes from analysis.kshot.k, which was not given")
    return int(default_k)


def shuffle_seed(variant: str) -> int:
    return int(re.fullmatch(r"shuffle(\d+)", variant).group(1))


@dataclass(frozen=True)
class Context:
    """What a variant's prepare function may use besides the question."""
    variant: str
    seed: int
    questions: list
    pool: list
    template: str
    texts: object
    kshot_default: int
    # the user profile the measure's prompt shows (the measure registry's `profile`)
    profile: str | None = "history"
    # {item id: (image path, its sha256)}: the captioned images (`visual`)
    images: dict | None = None


def _user(q: dict) -> str:
    return str(q.get("user_id", q["qid"]))


@register_variant("shuffle", r"shuffle\d+", permutes=True)
def _shuffle(q: dict, ctx: Context):
    tq, meta = shuffle_question(q, ctx.seed, shuffle_seed(ctx.variant))
    return tq, meta, ""


def shuffle_question(q: dict, seed: int, s: int) -> tuple[dict, dict]:
    """Permute the candidates under seed s; the answer follows its candidate."""
    rng = rng_for(seed, "shuffle", str(s), q["qid"])
    return permuted(q, [int(i) for i in rng.permutation(len(q["candidates"]))])


def permuted(q: dict, perm: list[int]) -> tuple[dict, dict]:
    """The question with candidate perm[j] in slot j, and the metadata a permuting variant returns."""
    out = dict(q, candidates=[q["candidates"][i] for i in perm], answer_index=perm.index(q["answer_index"]))
    return out, {"permutation": perm, "original_answer_index": q["answer_index"]}


@register_variant("noisy", needs_profile=True)
def _noisy(q: dict, ctx: Context):
    if "item_texts" not in q:
        tq, meta = noisy_question(q, ctx.seed, ctx.pool, ctx.profile, ctx.texts.user_items)
        return tq, meta, ""
    # items shown by a text only (logline, caption): the noise is an item the measure shows a text
    # of elsewhere, and the question carries its text as it does its own items'
    known = {i: t for other in ctx.questions for i, t in (other.get("item_texts") or {}).items()}
    tq, meta = noisy_question(q, ctx.seed, sorted(known), ctx.profile, ctx.texts.user_items)
    tq["item_texts"] = {**q["item_texts"], **{r["noise_item"]: known[r["noise_item"]] for r in meta["replaced"]}}
    return tq, meta, ""


def noisy_refusal(dataset: str, measure_id: str, profile: str | None) -> str | None:
    """The one-line reason `noisy` cannot run on a measure whose prompt shows no profile, else None."""
    if profile is None:
        return (f"variants: noisy replaces an item of the user profile a prompt shows, and datasets.{dataset} "
                f"measure {measure_id!r} shows none (one target item); drop noisy or the measure")
    return None


def noisy_question(q: dict, seed: int, pool: list[str], profile: str | None = "history",
                   user_items: int | None = None) -> tuple[dict, dict]:
    """Replace one item of the profile the prompt shows (drawn at random) with a random pool item
    not already in play: `profile` (the measure registry's) is the asking user's "history", the
    rule's "antecedents", or each candidate user's shown items ("candidate_histories", the latest
    `user_items` of each)."""
    from lrworld.prompts.render import USER_ITEMS_SHOWN

    shown_n = int(user_items or USER_ITEMS_SHOWN)
    if profile is None:
        raise ValueError(noisy_refusal(q["dataset"], q["measure"], profile))
    rng = rng_for(seed, "noisy", q["qid"])
    context = dict(q.get("context") or {})
    shown = {"history": q["history"] if "history" in q else context.get("history", []),
             "antecedents": context.get("antecedents", [])}
    # nothing the prompt shows may come back as noise: the profile, the target, item candidates and
    # the candidate users' shown items
    others = {c: list(items) for c, items in (context.get("candidate_histories") or {}).items()}
    users = others if profile == "candidate_histories" else {None: list(shown[profile])}
    taken = set(map(str, shown["history"])) | set(map(str, shown["antecedents"]))
    taken |= {str(i) for items in others.values() for i in items[-shown_n:]}
    if not any(users.values()):
        raise ValueError(f"{q['qid']}: its {profile} is empty: no profile item to replace with noise")
    taken |= {str(context.get("target_item", q.get("target_item")))}
    if q.get("candidate_kind") not in ("value", "user"):
        taken |= set(map(str, q["candidates"]))
    meta = {"profile": profile, "replaced": []}
    for user, items in users.items():
        if not items:
            continue
        lo = max(0, len(items) - shown_n) if user is not None else 0  # a candidate shows its tail
        pos = lo + int(rng.integers(len(items) - lo))
        # Draw until the item is new; the pool is the dataset's items (thousands), so this ends fast.
        for _ in range(10_000):
            new = str(pool[int(rng.integers(len(pool)))])
            if new not in taken:
                break
        else:  # pragma: no cover - a pool of only the question's own items
            raise ValueError(f"{q['qid']}: no pool item outside the question to inject as noise")
        taken.add(new)
        meta["replaced"].append({**({"user": user} if user is not None else {}), "position": pos,
                                 "item": items[pos], "noise_item": new})
        items[pos] = new
    if profile == "candidate_histories":
        context["candidate_histories"] = {**context["candidate_histories"], **users}
        return dict(q, context=context), meta
    if profile == "history" and "history" in q:
        return dict(q, history=users[None]), meta
    context[profile] = users[None]
    return dict(q, context=context), meta


# a prepare function's metadata key whose fields go on the prompt record itself, as a request's
# (the inference stage sends `image_paths`; the response cache keys on `image_sha256`)
REQUEST_FIELDS = "request"


@register_variant("visual", needs_images=True)
def _visual(q: dict, ctx: Context):
    # the paper's Table 4: "both the text description and the visual image of the item 5" (the
    # latest of the user's sequence) go to the model, with the multimodal prompt
    history = q.get("history") or (q.get("context") or {}).get("history") or []
    if not history:
        raise ValueError(f"{q['qid']}: visual shows the latest history item's image, and the question has no history")
    item = str(history[-1])
    if item not in (ctx.images or {}):
        raise ValueError(f"{q['qid']}: visual: no captioned image of the latest history item {item!r} "
                         f"(the captions requests list none)")
    path, sha = ctx.images[item]
    return q, {"image_item": item, REQUEST_FIELDS: {"image_paths": [path], "image_sha256": [sha]}}, ""


@register_variant("kshot", r"kshot\d*")
def _kshot(q: dict, ctx: Context):
    from lrworld.prompts.render import render

    k = kshot_k(ctx.variant, ctx.kshot_default)
    exs = kshot_examples(q, ctx.questions, ctx.seed, k)
    solved = []
    for ex in exs:
        r = render(ctx.template, ex, ctx.texts)
        solved.append((r["prompt"], r["labels"][r["answer_index"]]))
    return q, {"k": k, "example_qids": [ex["qid"] for ex in exs]}, examples_block(solved)


def kshot_examples(q: dict, questions: list[dict], seed: int, k: int) -> list[dict]:
    """k questions of other users (never q's user), drawn with a seed of q's id, in qid order."""
    others = sorted((o for o in questions if _user(o) != _user(q)), key=lambda o: o["qid"])
    if len(others) < k:
        raise ValueError(f"{q['qid']}: {k}-shot needs {k} questions of other users, only {len(others)} exist")
    rng = rng_for(seed, "kshot", str(k), q["qid"])
    return [others[int(i)] for i in sorted(rng.choice(len(others), size=k, replace=False))]


def examples_block(example_prompts: list[tuple[str, str]]) -> str:
    """Solved examples, each the zero-shot prompt followed by its gold label."""
    k = len(example_prompts)
    parts = [f"Here {'is 1 solved example' if k == 1 else f'are {k} solved examples'} from other users.\n"]
    for i, (prompt, label) in enumerate(example_prompts, 1):
        parts.append(f"### Example {i}\n{prompt.rstrip()} {label}\n")
    parts.append("### Question\n")
    return "\n".join(parts)


def render_variant_all(questions: list[dict], template_file: str | Path, items: pd.DataFrame, variant: str,
                       seed: int = 0, kshot_default: int | None = None,
                       exclude_values: dict[str, list[str]] | None = None,
                       profile: str | None = "history", images: dict | None = None,
                       user_items: int | None = None) -> list[dict]:
    """The prompts of one (measure, variant). zero_shot and cot are exactly `render_all`.
    `exclude_values`: `questions.exclude_values`, never shown inside an item's text either.
    `profile`: the measure registry's, where `noisy` puts its noise. `images`: {item id: (path,
    sha256)} of the captioned images, which `visual` sends. `user_items`: the dataset's
    `user_items_shown`."""
    from lrworld.prompts.render import ItemTexts, render, render_all

    vk = VARIANT_KINDS.get(kind(variant))
    if vk.prepare is None:
        return render_all(questions, template_file, items, variant, exclude_values, user_items)
    template = Path(template_file).read_text(encoding="utf-8")
    ctx = Context(variant, seed, questions, sorted(map(str, items["item_id"])), template,
                  ItemTexts(items, exclude_values, user_items), kshot_default, profile, images)
    tsha = sha256_text(template)
    out = []
    for q in questions:
        tq, meta, before = vk.prepare(q, ctx)
        rec = render(template, tq, ctx.texts)
        rec.update(meta.pop(REQUEST_FIELDS, {}))
        if before:
            rec["prompt"] = before + rec["prompt"]
            rec["prompt_sha256"] = sha256_text(rec["prompt"])
        rec.update({"variant": variant, "measure": q["measure"], "dataset": q["dataset"], "template_sha256": tsha,
                    "variant_meta": meta})
        out.append(rec)
    return out


def images_of(reqs: list[dict]) -> dict[str, tuple[str, str]]:
    """{item id: (its image's path, sha256)} of the caption requests (lrworld/captions/requests.py):
    the images `visual` sends."""
    return {str(r["item_id"]): (r["image_paths"][0], r["image_sha256"][0]) for r in reqs}
