"""A specimen prompt per (measure, variant): what `lrworld plan` counts for a prompt file it cannot
build yet (no data, no ground-truth artifact), and the tokens per question docs/paper.md sets
beside the paper's Tables 16-17.

A specimen question has the shape the measure's builder gives (lrworld/questions/knowledge.py,
lrworld/groundtruth/questions.py): a knowledge measure's `questions.history_length` history items
and 4 options (field values, or items shown by their text); a rule's antecedent and 10 candidate
items; a ground-truth measure's target user by their HISTORY_LEN latest items, each candidate user
by theirs (of which the prompt shows the dataset's `user_items_shown`), 10 candidates. It is rendered by
the function the `prompts` rule calls, with the measure's template and the variant's transform
(k solved examples, a noisy profile, a shuffle). Its items are the dataset's own where its items
table is built, else specimens: typical items of the domain, written for this estimate (films with
MovieLens' genre names, about two each, as ML-100K's; Amazon-style product titles; loglines and
image descriptions of the length a logline and a caption have).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from lrworld.core.seeding import rng_for
from lrworld.groundtruth.questions import HISTORY_LEN
from lrworld.questions import measures as registry

# Most mined rules (groundtruth.rules.max_len 3) have a one-item antecedent: ML-100K's 46 of 60.
ANTECEDENTS = 1
ROWS = 200  # distinct item ids: enough that a noisy variant finds a pool item outside the question

_MOVIE_CAPTIONS = (
    "The poster shows a man in a dark suit standing in the rain on a city street at night, holding a pistol at his "
    "side. Neon signs in red and blue reflect on the wet pavement behind him, and a woman's face, half in shadow, "
    "fills the upper part of the image. The title is printed in large white capital letters across the bottom, "
    "above the names of the lead actors and the release date. The colours are dark and saturated, and the mood is "
    "tense and mysterious, suggesting a crime thriller.",
    "A bright, colourful poster with a group of cartoon animals gathered on a grassy hill under a blue sky with "
    "white clouds. A small boy in a red shirt laughs in the centre while a dog jumps beside him. The title is "
    "written in playful yellow letters with a green outline at the top, and a tagline in smaller white text reads "
    "that the adventure begins this summer. The style is cheerful and warm, aimed at families and children.",
)
_PRODUCT_CAPTIONS = (
    "The image shows a stainless steel kitchen appliance on a plain white background, photographed from the front "
    "at a slight angle. It has a black control panel with a small digital display and several round buttons, a "
    "glass carafe with a black handle, and a removable water tank at the back. The brand name is printed in small "
    "silver letters above the display. The style is a clean product photograph with soft even lighting and no "
    "people, and the mood is modern and practical.",
    "A set of four clear plastic storage bins with white lids, stacked two by two on a white background. Each bin "
    "has a small handle cut into the front and holds colourful kitchen items such as pasta, snacks and spices. A "
    "label on the front of one bin reads pantry in black letters. The picture is bright and evenly lit, in the "
    "style of an online shop listing, and it conveys order and tidiness.",
)
# one film a line: title | year | genres | lead actor | director | logline
_MOVIES = """\
Heat|1995|Action,Crime,Thriller|Al Pacino|Michael Mann|A seasoned detective hunts a meticulous crew of bank robbers across Los Angeles while both men struggle to keep their private lives together.
Toy Story|1995|Animation,Children's,Comedy|Tom Hanks|John Lasseter|A pull-string cowboy doll feels threatened when a flashy space ranger toy becomes his owner's new favourite.
The Silence of the Lambs|1991|Drama,Thriller|Jodie Foster|Jonathan Demme|A young FBI trainee seeks the advice of an imprisoned psychiatrist to catch a serial killer who skins his victims.
Star Wars|1977|Action,Sci-Fi|Mark Hamill|George Lucas|A farm boy joins a smuggler, a princess and an old knight to rescue the galaxy from an empire's planet-destroying space station.
When Harry Met Sally...|1989|Comedy,Romance|Billy Crystal|Rob Reiner|Over twelve years of chance meetings in New York, two friends keep arguing about whether men and women can ever just be friends.
Fargo|1996|Crime,Drama|Frances McDormand|Joel Coen|A pregnant small-town police chief investigates a string of roadside murders set off by a car salesman's botched kidnapping scheme.
Apollo 13|1995|Drama|Tom Hanks|Ron Howard|Three astronauts and the engineers on the ground improvise to bring a crippled spacecraft home after an explosion on the way to the Moon.
The Usual Suspects|1995|Crime,Thriller|Kevin Spacey|Bryan Singer|The sole survivor of a bloody boat heist tells investigators how five criminals were brought together by a legendary mastermind.
Sense and Sensibility|1995|Drama,Romance|Emma Thompson|Ang Lee|Two sisters of opposite temperaments face love, heartbreak and money worries after their father's death leaves them poor.
Willy Wonka and the Chocolate Factory|1971|Children's,Comedy|Gene Wilder|Mel Stuart|A poor boy wins a golden ticket to tour the mysterious chocolate factory of an eccentric candy maker.
Twelve Monkeys|1995|Drama,Sci-Fi|Bruce Willis|Terry Gilliam|A convict from a ruined future is sent back in time to find the source of a deadly virus that wiped out most of humanity.
L.A. Confidential|1997|Crime,Thriller|Kevin Spacey|Curtis Hanson|Three very different policemen uncover corruption behind a coffee shop massacre in 1950s Los Angeles.
"""
# one product a line: title | brand | color | leaf | intermediate | root category
_PRODUCTS = """\
Rubbermaid Commercial Brute Round Trash Can, 32 Gallon, Gray|Rubbermaid|Gray|Trash Cans|Storage & Organization|Home & Kitchen
AmazonBasics Microfiber Bed Sheet Set, Queen, Dark Grey|AmazonBasics|Dark Grey|Sheet & Pillowcase Sets|Bedding|Home & Kitchen
Lodge Pre-Seasoned Cast Iron Skillet with Assist Handle, 12 Inch|Lodge|Black|Skillets|Kitchen & Dining|Home & Kitchen
OXO Good Grips 3-Piece Stainless Steel Mixing Bowl Set with Non-Slip Bottoms|OXO|Silver|Mixing Bowls|Kitchen & Dining|Home & Kitchen
Fiskars Bypass Pruning Shears with Precision-Ground Steel Blade|Fiskars|Orange|Pruning Shears|Gardening & Lawn Care|Patio, Lawn & Garden
Melnor Turbo Oscillating Lawn Sprinkler with Adjustable Spray Width|Melnor|Green|Sprinklers|Watering Equipment|Patio, Lawn & Garden
DEWALT 20V MAX Cordless Drill and Impact Driver Combo Kit|DEWALT|Yellow|Power Tool Combo Kits|Power & Hand Tools|Tools & Home Improvement
Command Picture Hanging Strips, Damage-Free Hanging, Medium, White, 12 Pairs|Command|White|Picture Hangers|Hardware|Tools & Home Improvement
Crayola Colored Pencils for Adult Coloring, Assorted Colors, 50 Count|Crayola|Multicolor|Colored Pencils|Painting, Drawing & Art Supplies|Arts, Crafts & Sewing
Keurig K-Classic Single Serve K-Cup Pod Coffee Maker, Black|Keurig|Black|Single-Serve Brewers|Coffee, Tea & Espresso|Home & Kitchen
Whirlpool Refrigerator Water Filter, 1 Pack|Whirlpool|White|Water Filters|Refrigerator Parts & Accessories|Appliances
mDesign Stackable Kitchen Pantry Organizer Bins, Set of 4, Clear|mDesign|Clear|Storage Bins|Storage & Organization|Home & Kitchen
"""
_ARTISTS = """\
Radiohead|alternative
Madonna|pop
Metallica|metal
Daft Punk|electronic
The Beatles|classic rock
Norah Jones|jazz
Eminem|hip-hop
Red Hot Chili Peppers|rock
Björk|experimental
Johnny Cash|country
"""


def _table(text: str) -> list[list[str]]:
    return [line.split("|") for line in text.splitlines()]


def _rows(domain: str) -> list[dict]:
    if domain == "product":
        return [{"title": t, "brand": b, "color": c, "category_leaf": leaf, "category_interm": interm,
                 "category_root": root, "caption": _PRODUCT_CAPTIONS[i % 2]}
                for i, (t, b, c, leaf, interm, root) in enumerate(_table(_PRODUCTS))]
    if domain == "lastfm":
        return [{"title": a, "genres": [g]} for a, g in _table(_ARTISTS)]
    return [{"title": t, "year": int(y), "genres": g.split(","), "cast": [lead], "director": [d], "plot": plot,
             "caption": _MOVIE_CAPTIONS[i % 2]} for i, (t, y, g, lead, d, plot) in enumerate(_table(_MOVIES))]


def specimen_items(domain: str) -> pd.DataFrame:
    """ROWS items of the domain: the specimens again and again, each under its own id."""
    rows = _rows(domain)
    return pd.DataFrame([{"item_id": f"s{k}", **rows[k % len(rows)]} for k in range(ROWS)])


def dataset_items(items: pd.DataFrame, seed: int, dataset: str) -> pd.DataFrame:
    """ROWS of a built items table, drawn at random: the dataset's own titles."""
    rng = rng_for(seed, dataset, "specimen")
    take = rng.choice(len(items), size=min(ROWS, len(items)), replace=False)
    return items.iloc[sorted(int(i) for i in take)].reset_index(drop=True)


def _values(items: pd.DataFrame, domain: str, field: str) -> list[str]:
    """Four distinct values of a knowledge measure's field: the items' own, else the specimens'."""
    for table in (items, specimen_items(domain)):
        if field in table.columns:
            cells = [v[0] if isinstance(v, (list, tuple)) or hasattr(v, "tolist") else v for v in table[field]
                     if v is not None and not (isinstance(v, float) and pd.isna(v)) and len(v)]
            out = list(dict.fromkeys(str(c) for c in cells))
            if len(out) >= 4:
                return out[:4]
    return [f"{field} {k}" for k in range(1, 5)]


def _texts(items: pd.DataFrame, domain: str, field: str) -> dict[str, str]:
    """item id -> the text an item-text measure shows it by (its logline, caption or name)."""
    own = items[field] if field in items.columns else None
    fallback = specimen_items(domain)[field].tolist() if field in _rows(domain)[0] else ["an item"]
    return {str(i): (str(own.iloc[k]) if own is not None and isinstance(own.iloc[k], str) and own.iloc[k].strip()
                     else fallback[k % len(fallback)]) for k, i in enumerate(items["item_id"])}


def _question(m, ids, shape: dict, user: int) -> dict:
    """One question of `m`'s shape over the items `ids` (drawn in turn, so each question differs)."""
    it = itertools.cycle(ids[user:] + ids[:user])

    def take(n):
        return [next(it) for _ in range(n)]

    q = {"qid": f"specimen/{m.id}/u{user}", "dataset": "specimen", "measure": m.id, "user_id": f"u{user}",
         "qtype": m.qtype, "answer_index": user % m.n_candidates}
    n = m.n_candidates
    if m.gold is None:  # a knowledge measure: the user's latest window
        q["history"] = take(shape["history_length"])
        if shape.get("texts") is None:
            return dict(q, candidate_kind="value", candidates=shape["values"][:n])
        # every item's text, not only the shown ones': a noisy variant's pool item is shown too
        return dict(q, candidate_kind="item", candidates=take(n), item_texts=shape["texts"])
    if m.gold.recipe == registry.RULE:
        return dict(q, context={"antecedents": take(ANTECEDENTS)}, candidate_kind="item", candidates=take(n))
    ctx = {"history": take(HISTORY_LEN), "target_user": "t"} if m.gold.target == "user" else {"target_item": take(1)[0]}
    if m.gold.candidate == "user":
        cands = [f"c{j}" for j in range(n)]
        ctx["candidate_histories"] = {c: take(HISTORY_LEN) for c in cands}
        return dict(q, context=ctx, candidate_kind="user", candidates=cands)
    return dict(q, context=ctx, candidate_kind="item", candidates=take(n))


def specimen_record(domain: str, measure_id: str, variant: str, template_file: str | Path, questions_cfg: dict,
                    user_items: int | None = None, seed: int = 0, kshot_k: int = 3,
                    items: pd.DataFrame | None = None) -> dict:
    """The prompt record of one specimen question of (measure, variant), rendered as the `prompts`
    rule renders (a variant that sends an image, `visual`, sends one). `questions_cfg`: the config's
    `questions` (history_length, exclude_values); `user_items`: the dataset's `user_items_shown`;
    `items`: the dataset's items table where it is built (dataset_items), else the domain's
    specimens."""
    from lrworld.prompts.variants import kind, kshot_k as k_of, render_variant_all

    m = registry.by_id(measure_id)
    items = specimen_items(domain) if items is None or not len(items) else items
    items = items.assign(item_id=items["item_id"].astype(str))
    ids = items["item_id"].tolist()
    shape = {"history_length": int(questions_cfg.get("history_length", 5))}
    if m.gold is None and m.builder == registry.FIELD_VALUES:
        shape["values"] = _values(items, domain, m.field)
    elif m.gold is None:
        shape["texts"] = _texts(items, domain, "title" if m.builder == registry.ITEM_TITLE else m.field)
    k = k_of(variant, kshot_k) if kind(variant) == "kshot" else 0
    questions = [_question(m, ids, shape, u) for u in range(k + 1)]
    images = {i: (f"{i}.png", "0" * 64) for i in ids}  # every item has an image to send
    return render_variant_all(questions, template_file, items, variant, seed=seed, kshot_default=kshot_k,
                              exclude_values=dict(questions_cfg.get("exclude_values") or {}), profile=m.profile,
                              images=images, user_items=user_items)[0]


def specimen_prompt(*args, **kwargs) -> str:
    """The text of `specimen_record`'s prompt."""
    return specimen_record(*args, **kwargs)["prompt"]
