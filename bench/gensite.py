#!/usr/bin/env python3
"""Generates a static site for the size, cold-start and memory benchmarks: HTML pages of prose
(sentences drawn from a fixed vocabulary with a Zipf-like frequency, in paragraphs, headings,
lists and links, as a documentation generator writes them), shared CSS and JS, and images
(random bytes: incompressible, as real images are). Deterministic for a given seed.

    bench/gensite.py DIR --pages N --page-kb K --images N --image-kb K [--seed S]

Presets used by the benchmarks (bench/sites.sh): 5mb, 40mb (about 40 MB stored in full), 70mb
(about 1,000 pages; 70 MB on disk, more than the 64 MiB Worker limit stored in full).
"""
import argparse
import os
import random

WORDS = (
    "the of and to a in is that for it as with was on be by this are or from at which an have not "
    "can will all their has but more one were also other when been its into only some these may "
    "than would then there each such use used using value values request response server client "
    "cache header field page site file files build time data memory worker edge static content "
    "function module type returns error errors config configuration default option options path "
    "paths route routes encoding compressed representation version versions change changes user "
    "users code example examples section document documents test tests run running result results "
    "first second new old before after between without within through during under over again "
    "should must however because therefore example following described below above see note"
).split()


def weights(n):
    return [1.0 / (i + 1) ** 1.07 for i in range(n)]


def sentence(rng, w):
    words = rng.choices(WORDS, weights=w, k=rng.randint(6, 22))
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", ".", ".", "?", ";"])


def paragraph(rng, w):
    return " ".join(sentence(rng, w) for _ in range(rng.randint(2, 6)))


def page(rng, w, i, pages, kb, images):
    parts = [
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f"<title>Page {i} of the generated documentation</title>\n",
        '<link rel="stylesheet" href="/assets/site.css">\n<script src="/assets/site.js" defer></script>\n',
        "</head>\n<body>\n<nav><ul>",
    ]
    for j in rng.sample(range(pages), min(12, pages)):
        parts.append(f'<li><a href="/docs/page-{j:04}.html">Page {j}</a></li>')
    parts.append("</ul></nav>\n<main>\n")
    size = sum(len(p) for p in parts)
    section = 0
    while size < kb * 1024:
        section += 1
        block = f"<h2 id=\"s{section}\">{sentence(rng, w)[:-1]}</h2>\n"
        for _ in range(rng.randint(2, 5)):
            block += f"<p>{paragraph(rng, w)}</p>\n"
        if rng.random() < 0.4:
            block += "<ul>" + "".join(f"<li>{sentence(rng, w)}</li>" for _ in range(rng.randint(3, 7))) + "</ul>\n"
        if images and rng.random() < 0.3:
            block += f'<p><img src="/images/img-{rng.randrange(images):04}.png" alt=""></p>\n'
        parts.append(block)
        size += len(block)
    parts.append("</main>\n</body>\n</html>\n")
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--pages", type=int, required=True)
    ap.add_argument("--page-kb", type=int, default=40)
    ap.add_argument("--images", type=int, default=0)
    ap.add_argument("--image-kb", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    w = weights(len(WORDS))
    os.makedirs(os.path.join(args.dir, "docs"), exist_ok=True)
    os.makedirs(os.path.join(args.dir, "assets"), exist_ok=True)
    os.makedirs(os.path.join(args.dir, "images"), exist_ok=True)
    for i in range(args.pages):
        with open(os.path.join(args.dir, "docs", f"page-{i:04}.html"), "w") as f:
            f.write(page(rng, w, i, args.pages, args.page_kb, args.images))
    with open(os.path.join(args.dir, "index.html"), "w") as f:
        f.write(page(rng, w, 0, args.pages, 24, args.images))
    with open(os.path.join(args.dir, "404.html"), "w") as f:
        f.write("<!doctype html><title>Not found</title><p>Not found.</p>\n")
    css = "".join(f".c{i} {{ margin: {i % 7}px {i % 5}px; color: #{i * 2654435761 % 0xFFFFFF:06x}; }}\n" for i in range(3000))
    with open(os.path.join(args.dir, "assets", "site.css"), "w") as f:
        f.write(css)
    js = "".join(f"export function f{i}(x) {{ return x * {i} + {i % 7}; }}\n" for i in range(4000))
    with open(os.path.join(args.dir, "assets", "site.js"), "w") as f:
        f.write(js)
    for i in range(args.images):
        with open(os.path.join(args.dir, "images", f"img-{i:04}.png"), "wb") as f:
            f.write(rng.randbytes(args.image_kb * 1024))


if __name__ == "__main__":
    main()
