"""Realistic fixtures in the exact Amazon Review Data formats (no real metadata is available on the
test machines): 2018 `<prefix>_5.json` reviews and `meta_<prefix>.json` metadata, JSON lines, in
both metadata releases (`imageURL`/`imageURLHighRes`, or the older `image` thumbnails), with the
real files' quirks (HTML in titles and category tails, empty or "Unknown" brands, repeated
category levels, empty and two-level category paths, colour only in reviews, duplicated asins)
switched on by default; the 2014 format (Python-literal metadata) over the real Beauty 5-core
sequences; ABO listings in shards with an images table.

    paths = write_amazon_2018(tmp_path, "Home_and_Kitchen", n_users=40, n_items=60, seed=0)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

# A small Amazon-like taxonomy: root, intermediate, ..., leaf (paper Figure 2's "Home & Garden").
TAXONOMY = [
    ["Home & Kitchen", "Storage & Organization", "Clothing & Closet Storage", "Hangers", "Standard Hangers"],
    ["Home & Kitchen", "Kitchen & Dining", "Cookware", "Pots & Pans", "Saute Pans"],
    ["Home & Kitchen", "Bedding", "Sheets & Pillowcases", "Sheet & Pillowcase Sets"],
    ["Home & Kitchen", "Home Décor", "Candles & Holders", "Candles", "Jar Candles"],
    ["Patio, Lawn & Garden", "Gardening & Lawn Care", "Pots, Planters & Container Accessories", "Planters"],
    ["Patio, Lawn & Garden", "Outdoor Décor", "Outdoor Lighting", "String Lights"],
    ["Tools & Home Improvement", "Power & Hand Tools", "Hand Tools", "Screwdrivers"],
    ["Tools & Home Improvement", "Lighting & Ceiling Fans", "Lamps & Shades", "Table Lamps"],
    ["Sports & Outdoors", "Outdoor Recreation", "Camping & Hiking", "Camping Furniture", "Camp Chairs"],
    ["Clothing, Shoes & Jewelry", "Women", "Clothing", "Dresses"],
]
BRANDS = ["AmazonBasics", "OXO", "Cuisinart", "Zinus", "Utopia Bedding", "Yankee Candle", "iRobot", "Honey-Can-Do",
          "Simple Houseware", "Lodge", "T-fal", "Pinzon", "mDesign", "Levoit", "Bissell", "Mainstays"]
COLORS = ["Black", "White", "Grey", "Navy Blue", "Red", "Beige", "Silver", "Green", "Ivory", "Walnut Brown"]
NOUNS = ["Hangers", "Saute Pan", "Sheet Set", "Jar Candle", "Ceramic Planter", "String Lights", "Screwdriver Set",
         "Table Lamp", "Camp Chair", "Maxi Dress"]


def _asin(rng) -> str:
    return "B0" + "".join(rng.choice(list("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"), 8))


def write_amazon_2018(folder, prefix: str = "Home_and_Kitchen", n_users: int = 40, n_items: int = 60,
                      min_reviews: int = 6, seed: int = 0, quirks: bool = True, malformed_line: int | None = None,
                      gz: bool = False, release: str = "metaFiles2") -> dict:
    """Write the two files; return their paths and the ground truth per asin (for assertions).

    `malformed_line` (1-based) replaces that line of the reviews file with a truncated JSON line.
    `release`: "metaFiles2" (imageURL, imageURLHighRes) or "metaFiles" (the older `image` list of
    `._SS40_` thumbnails, whose full-size URL drops that suffix).
    Quirk per item (k % 8): 1 HTML title, 2 empty brand, 3 root repeated, 4 colour only in the
    reviews, 5 brand "Unknown", 6 empty category list, 7 two-level path with an HTML tail.
    """
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    asins = []
    while len(asins) < n_items:
        a = _asin(rng)
        if a not in asins:
            asins.append(a)
    truth, meta_lines = {}, []
    for k, asin in enumerate(asins):
        path = TAXONOMY[k % len(TAXONOMY)]
        brand = BRANDS[int(rng.integers(len(BRANDS)))]
        color = COLORS[int(rng.integers(len(COLORS)))]
        noun = NOUNS[k % len(NOUNS)]
        title = f"{brand} {noun}, {color}, Pack of {int(rng.integers(1, 13))}"
        category = list(path)
        brand_field, details = brand, {"Color:": color, "Item Weight:": f"{rng.integers(1, 90) / 10} pounds"}
        truth_brand, truth_color, truth_path = brand, color, list(path)
        if quirks:
            q = k % 8
            if q == 1:
                title = f'<span class="a-size-medium a-color-secondary">{title.replace("&", "&amp;")}</span>'
            elif q == 2:
                brand_field, truth_brand = "", None
            elif q == 3:
                category = [path[0]] + list(path)  # the root repeated, as in some real rows
            elif q == 4:
                details.pop("Color:")  # colour only in the buyers' chosen style (reviews)
            elif q == 5:
                brand_field, truth_brand = "Unknown", None
            elif q == 6:
                category, truth_path = [], []
            elif q == 7:
                category = [path[0], path[1] + '</span></span></span>']
                truth_path = [path[0], path[1]]
        rec = {
            "category": category, "tech1": "", "description": [f"{noun} for every home."], "fit": "",
            "title": title, "also_buy": [asins[(k + j) % n_items] for j in (1, 2)], "tech2": "",
            "brand": brand_field, "feature": ["Durable", "Easy to clean"], "rank": f">#{k + 1} in Home & Kitchen (",
            "also_view": [], "details": details, "main_cat": "Amazon Home", "similar_item": "", "date": "",
            "price": f"${rng.integers(5, 90)}.99", "asin": asin,
        }
        thumb = f"https://images-na.ssl-images-amazon.com/images/I/{asin}._SS40_.jpg"
        if release == "metaFiles2":
            rec.update(imageURL=[thumb], imageURLHighRes=[f"https://images-na.ssl-images-amazon.com/images/I/{asin}.jpg"])
        else:
            rec["image"] = [thumb]
        meta_lines.append(json.dumps(rec))
        truth[asin] = {"brand": truth_brand, "color": truth_color, "path": truth_path, "title": title,
                       "image": f"https://images-na.ssl-images-amazon.com/images/I/{asin}.jpg"}
    if quirks:
        meta_lines.append(meta_lines[0])  # a duplicated asin
    review_lines = []
    for u in range(n_users):
        uid = "A" + "".join(rng.choice(list("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"), 13))
        n = int(rng.integers(min_reviews, min_reviews + 5))
        t0 = 1262304000 + int(rng.integers(0, 10**8))
        for j, i in enumerate(rng.choice(n_items, size=n, replace=False)):
            asin = asins[int(i)]
            unix = t0 + 86400 * j * int(rng.integers(1, 30))
            rec = {"overall": float(rng.integers(1, 6)), "verified": True,
                   "reviewTime": "01 1, 2015", "reviewerID": uid, "asin": asin,
                   "style": {"Color:": f" {truth[asin]['color']}"}, "reviewerName": f"Buyer {u}",
                   "reviewText": "Works as described.", "summary": "Good", "unixReviewTime": unix}
            review_lines.append(json.dumps(rec))
    if malformed_line is not None:
        review_lines[malformed_line - 1] = review_lines[malformed_line - 1][: 40]
    reviews_name, meta_name = f"{prefix}_5.json", f"meta_{prefix}.json"
    if gz:
        import gzip
        reviews_name, meta_name = reviews_name + ".gz", meta_name + ".gz"
        for name, lines in ((reviews_name, review_lines), (meta_name, meta_lines)):
            with gzip.open(folder / name, "wt", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
    else:
        (folder / reviews_name).write_text("\n".join(review_lines) + "\n", encoding="utf-8")
        (folder / meta_name).write_text("\n".join(meta_lines) + "\n", encoding="utf-8")
    return {"reviews": folder / reviews_name, "metadata": folder / meta_name, "truth": truth,
            "n_reviews": len(review_lines)}


def write_abo(folder, truth: dict, asins: list[str], seed: int = 0, shards: int = 1) -> dict:
    """ABO's layout for `asins`: listings/metadata/listings_<hex>.json.gz shards (the k-th listing
    in shard k % shards, plus one ASIN not in the reviews; all 16 shard files are written, the
    unused ones empty) and images/metadata/images.csv.gz with images/small/<path> files."""
    import gzip

    from PIL import Image

    rng = np.random.default_rng(seed)
    folder = Path(folder)
    (folder / "listings/metadata").mkdir(parents=True, exist_ok=True)
    (folder / "images/metadata").mkdir(parents=True, exist_ok=True)
    lines, rows = [], []
    for k, asin in enumerate(list(asins) + ["B0NOTINREV"]):
        image_id = f"{k:02d}" + "".join(rng.choice(list("abcdefghijkLMNOP"), 9))
        rel = f"{image_id[:2]}/{image_id}.jpg"
        (folder / "images/small" / rel).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (64, 64), tuple(int(x) for x in rng.integers(0, 256, 3))).save(folder / "images/small" / rel)
        rows.append(f"{image_id},64,64,{rel}")
        color = truth.get(asin, {}).get("color") or "Black"
        lines.append(json.dumps({
            "brand": [{"language_tag": "en_US", "value": truth.get(asin, {}).get("brand") or "Generic"}],
            "color": [{"language_tag": "de_DE", "value": "Schwarz"},
                      {"language_tag": "en_US", "value": color, "standardized_values": [color]}],
            "item_id": asin, "item_name": [{"language_tag": "en_US", "value": f"Item {asin}"}],
            "main_image_id": image_id, "other_image_id": [], "product_type": [{"value": "HOME"}],
            "node": [{"node_id": 1, "node_name": "/Categories/Home & Kitchen"}]}))
    for i, c in enumerate("0123456789abcdef"):
        mine = [line for k, line in enumerate(lines) if k % shards == i]
        with gzip.open(folder / f"listings/metadata/listings_{c}.json.gz", "wt", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in mine))
    with gzip.open(folder / "images/metadata/images.csv.gz", "wt", encoding="utf-8") as fh:
        fh.write("image_id,height,width,path\n" + "\n".join(rows) + "\n")
    return {"listings": folder / "listings/metadata", "images": folder / "images/metadata/images.csv.gz"}


def write_amazon_2014_beauty(folder, user_sequence, n_users: int | None = None, seed: int = 0) -> dict:
    """The 2014 5-core Beauty files (`reviews_Beauty_5.json.gz`, JSON lines, and `meta_Beauty.json.gz`,
    Python dict literals with single quotes) over the real user sequences of
    `amazon-beauty-5core-gram/user_sequence.txt` (reviewerID then ASINs, oldest first): every
    interaction of the real file becomes one review, timestamps increasing along each sequence."""
    import gzip

    rng = np.random.default_rng(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    seqs = []
    with open(user_sequence, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if parts:
                seqs.append((parts[0], parts[1:]))
    seqs = seqs[:n_users] if n_users else seqs
    asins = sorted({a for _, s in seqs for a in s})
    paths = [["Beauty", "Skin Care", "Face", "Creams & Moisturizers"], ["Beauty", "Makeup", "Lips", "Lipstick"],
             ["Beauty", "Hair Care", "Shampoos"], ["Beauty", "Fragrance"]]
    truth = {}
    with gzip.open(folder / "meta_Beauty.json.gz", "wt", encoding="utf-8") as fh:
        for k, asin in enumerate(asins):
            rec = {"asin": asin, "title": f"Beauty product {k}", "price": float(rng.integers(3, 60)),
                   "imUrl": f"http://ecx.images-amazon.com/images/I/{asin}.jpg",
                   "related": {"also_bought": asins[k + 1:k + 3]}, "salesRank": {"Beauty": k + 1},
                   "categories": [paths[k % 4], ["Beauty"]]}
            if k % 5:
                rec["brand"] = BRANDS[k % len(BRANDS)]
            fh.write(repr(rec) + "\n")  # a Python literal, as the 2014 dump is
            truth[asin] = {"brand": rec.get("brand"), "path": paths[k % 4], "image": rec["imUrl"]}
    n = 0
    with gzip.open(folder / "reviews_Beauty_5.json.gz", "wt", encoding="utf-8") as fh:
        for u, seq in seqs:
            t = 1262304000 + int(rng.integers(0, 10**8))
            for j, asin in enumerate(seq):
                fh.write(json.dumps({"reviewerID": u, "asin": asin, "reviewerName": "x", "helpful": [0, 0],
                                     "reviewText": "ok", "overall": float(rng.integers(1, 6)), "summary": "ok",
                                     "unixReviewTime": t + 86400 * j, "reviewTime": "01 1, 2014"}) + "\n")
                n += 1
    return {"truth": truth, "users": len(seqs), "n_reviews": n, "items": len(asins)}
