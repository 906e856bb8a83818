#!/usr/bin/env python3
"""Generates a static site for the size, cold-start and memory benchmarks: HTML pages of prose
(sentences drawn from a fixed vocabulary with a Zipf-like frequency, in paragraphs, headings,
lists and links, as a documentation generator writes them), shared CSS and JS, and images
(random bytes: incompressible, as real images are). Deterministic for a given seed.

    bench/gensite.py DIR --pages N --page-kb K --images N --image-kb K [--seed S] [--style docs]

--style docs writes pages as a documentation generator that does not fingerprint does (Sphinx's
layout): each page loads shared stylesheets and scripts from _static/ by relative URLs with a
`?2022.1` query, a theme stylesheet @imports another and loads a font and an image with url(),
and pages show a logo: the repeat-view tests and measurements use it.

Presets used by the benchmarks (bench/sites.sh): 5mb, 40mb (about 40 MB stored in full), 70mb
(about 1,000 pages; 70 MB on disk, more than the 64 MiB Worker limit stored in full).
"""
import argparse
import os
import random
import struct
import zlib

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


DOCS_HEAD = """<link rel="stylesheet" type="text/css" href="{root}_static/pygments.css?2022.1" />
<link rel="stylesheet" type="text/css" href="{root}_static/css/theme.css?2022.1" />
<link rel="stylesheet" type="text/css" href="{root}_static/copybutton.css?2022.1" />
<script data-url_root="{root}" id="documentation_options" src="{root}_static/documentation_options.js?2022.1"></script>
<script src="{root}_static/jquery.js?2022.1"></script>
<script src="{root}_static/underscore.js?2022.1"></script>
<script src="{root}_static/doctools.js?2022.1"></script>
<script src="{root}_static/js/theme.js?2022.1" defer></script>
<link rel="icon" href="{root}_static/favicon.png"/>
"""


def head(style, root):
    if style == "docs":
        return DOCS_HEAD.format(root=root)
    return '<link rel="stylesheet" href="/assets/site.css">\n<script src="/assets/site.js" defer></script>\n'


def page(rng, w, i, pages, kb, images, style="plain", root="../"):
    """A page; `root` is the relative path from it to the site's root (docs style)."""
    parts = [
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f"<title>Page {i} of the generated documentation</title>\n",
        head(style, root),
        "</head>\n<body>\n",
    ]
    if style == "docs":
        parts.append(f'<a href="{root}index.html"><img src="{root}_static/logo.png" class="logo" alt="Logo"></a>\n')
        folder = "" if root == "../" else "docs/"
        links = [f'<li><a href="{folder}page-{j:04}.html">Page {j}</a></li>'
                 for j in rng.sample(range(pages), min(12, pages))]
        image_dir = f"{root}images/"
    else:
        links = [f'<li><a href="/docs/page-{j:04}.html">Page {j}</a></li>'
                 for j in rng.sample(range(pages), min(12, pages))]
        image_dir = "/images/"
    parts.append("<nav><ul>")
    parts.extend(links)
    return body(rng, w, parts, kb, images, image_dir)


def body(rng, w, parts, kb, images, image_dir):
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
            block += f'<p><img src="{image_dir}img-{rng.randrange(images):04}.png" alt=""></p>\n'
        parts.append(block)
        size += len(block)
    parts.append("</main>\n</body>\n</html>\n")
    return "".join(parts)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def png(rng, kb):
    """A valid PNG of about `kb` KiB of random (incompressible) pixels: a browser decodes it,
    so it loads and is cached whole, as a real image is."""
    width = 256
    height = max(1, kb * 1024 // (width * 3 + 1))
    raw = b"".join(b"\0" + rng.randbytes(width * 3) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 1))
            + chunk(b"IEND", b""))


def docs_static(site, rng):
    """The shared files of a docs-style site, under _static/ (none named by its hash)."""
    static = os.path.join(site, "_static")
    rules = lambda n, p: "".join(f".{p}{i} {{ margin: {i % 7}px; color: #{i * 40503 % 0xFFFFFF:06x}; }}\n" for i in range(n))
    write(os.path.join(static, "pygments.css"), rules(400, "hl"))
    write(os.path.join(static, "basic.css"), rules(900, "b"))
    write(os.path.join(static, "copybutton.css"), rules(40, "copy"))
    write(os.path.join(static, "css", "theme.css"),
          '@import url("../basic.css");\n'
          '@font-face { font-family: "Lato"; src: url(../fonts/lato.woff2) format("woff2"); }\n'
          'body { font-family: "Lato", sans-serif; background: url("../img/bg.png") repeat-x; }\n'
          + rules(1500, "t"))
    write(os.path.join(static, "documentation_options.js"), "var DOCUMENTATION_OPTIONS = { VERSION: '2022.1' };\n")
    for name, n in [("jquery.js", 3000), ("underscore.js", 600), ("doctools.js", 300), ("js/theme.js", 200)]:
        write(os.path.join(static, name), "".join(f"function f{i}(x) {{ return x * {i} + {i % 7}; }}\n" for i in range(n)))
    for name, kb in [("favicon.png", 2), ("logo.png", 12), ("img/bg.png", 3)]:
        write(os.path.join(static, name), png(rng, kb))
    write(os.path.join(static, "fonts", "lato.woff2"), rng.randbytes(40 * 1024))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--pages", type=int, required=True)
    ap.add_argument("--page-kb", type=int, default=40)
    ap.add_argument("--images", type=int, default=0)
    ap.add_argument("--image-kb", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--style", choices=["plain", "docs"], default="plain")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    w = weights(len(WORDS))
    os.makedirs(os.path.join(args.dir, "docs"), exist_ok=True)
    os.makedirs(os.path.join(args.dir, "assets"), exist_ok=True)
    os.makedirs(os.path.join(args.dir, "images"), exist_ok=True)
    for i in range(args.pages):
        with open(os.path.join(args.dir, "docs", f"page-{i:04}.html"), "w") as f:
            f.write(page(rng, w, i, args.pages, args.page_kb, args.images, args.style, "../"))
    with open(os.path.join(args.dir, "index.html"), "w") as f:
        f.write(page(rng, w, 0, args.pages, 24, args.images, args.style, ""))
    if args.style == "docs":
        docs_static(args.dir, rng)
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
            # The benchmarks' presets keep their random bytes (their sizes are what matters).
            f.write(png(rng, args.image_kb) if args.style == "docs" else rng.randbytes(args.image_kb * 1024))


if __name__ == "__main__":
    main()
