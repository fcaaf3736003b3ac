#!/usr/bin/env python3
"""Checks that each layer of the source tree includes only from itself and the layers below it.

The layers, bottom to top, are the folders in LAYERS; the applications above them (demos, bench,
tools, tests, examples) may include from any layer, and the applications under PUBLIC_API_ONLY
(apps/) only the public headers, <kollide/...>, and their own. A quoted include is resolved the way the build
resolves it (the including file's folder, then every layer's folders) and fails when the header
belongs to a higher layer. The umbrella header <kollide/kollide.h> declares the world API, so only
engine and the layers above it may include it. Exit status 1 lists every wrong-way include.

Usage: check_layers.py [SOURCE_DIR]     check the tree (default: this script's repository)
       check_layers.py --self-test       show that a wrong-way include is caught
"""
import os
import re
import sys
import tempfile

LAYERS = ["core", "geometry", "broadphase", "narrowphase", "solver", "engine", "io", "render"]
APPLICATIONS = ["demos", "bench", "tools", "tests", "examples", "apps"]
PUBLIC_API_ONLY = ["apps"]
UMBRELLA_LOWEST = "engine"
SOURCE_SUFFIXES = (".c", ".h", ".cu", ".cuh", ".cpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def source_files(folder):
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(root, name)


def header_owners(top):
    """Maps each header's path relative to its folder (and its base name) to the layers holding it."""
    owners = {}
    for layer in LAYERS:
        base = os.path.join(top, layer)
        for path in source_files(base):
            if path.endswith((".h", ".cuh")):
                folder_relative = os.path.basename(path)
                owners.setdefault(folder_relative, set()).add(layer)
    return owners


def layer_of(top, path):
    first = os.path.relpath(path, top).split(os.sep)[0]
    return first if first in LAYERS or first in APPLICATIONS else None


def check(top):
    owners = header_owners(top)
    problems = []
    for name, layers in sorted(owners.items()):
        if len(layers) > 1:
            problems.append(f"header {name} exists in several layers ({', '.join(sorted(layers))}): "
                            "an include of it is ambiguous")
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    for layer in LAYERS:
        for path in source_files(os.path.join(top, layer)):
            text = open(path, encoding="utf-8", errors="replace").read()
            for kind, name in INCLUDE.findall(text):
                where = os.path.relpath(path, top)
                if kind == "<":
                    if name == "kollide/kollide.h" and rank[layer] < rank[UMBRELLA_LOWEST]:
                        problems.append(f"{where}: <{name}> declares the world API; {layer} is below "
                                        f"{UMBRELLA_LOWEST} (include the public header it needs instead)")
                    continue
                local = os.path.normpath(os.path.join(os.path.dirname(path), name))
                if os.path.exists(local):
                    owner = layer_of(top, local)
                else:
                    found = owners.get(os.path.basename(name), set())
                    owner = min(found, key=rank.get) if found else None
                if owner is None:
                    continue  # a system or generated header
                if owner in APPLICATIONS or rank[owner] > rank[layer]:
                    problems.append(f'{where}: includes "{name}" of {owner}, a layer above {layer}')
    problems += public_api_problems(top, owners)
    return problems


def public_api_problems(top, owners):
    """Quoted includes of a PUBLIC_API_ONLY folder that name a layer's header instead of its own."""
    problems = []
    for app in PUBLIC_API_ONLY:
        for path in source_files(os.path.join(top, app)):
            text = open(path, encoding="utf-8", errors="replace").read()
            for kind, name in INCLUDE.findall(text):
                local = os.path.normpath(os.path.join(os.path.dirname(path), name))
                if kind == '"' and not os.path.exists(local) and os.path.basename(name) in owners:
                    problems.append(f'{os.path.relpath(path, top)}: includes "{name}", a header inside the '
                                    f"library; {app}/ uses only the public API (<kollide/...>)")
    return problems


def self_test():
    """A tree whose core includes an engine header must fail; the same tree without it must pass."""
    with tempfile.TemporaryDirectory() as top:
        for layer, name, body in [("core", "core.h", ""), ("engine", "world.h", '#include "core.h"\n'),
                                  ("core", "core.c", '#include "core.h"\n')]:
            os.makedirs(os.path.join(top, layer), exist_ok=True)
            with open(os.path.join(top, layer, name), "w") as f:
                f.write(body)
        if check(top):
            print("self-test: a correct tree was refused:", check(top))
            return 1
        with open(os.path.join(top, "core", "core.c"), "a") as f:
            f.write('#include "world.h"\n')
        problems = check(top)
        if len(problems) != 1 or "world.h" not in problems[0]:
            print("self-test: the wrong-way include was not caught:", problems)
            return 1
        print("self-test: caught", problems[0])
        os.makedirs(os.path.join(top, "apps", "cell"))
        with open(os.path.join(top, "apps", "cell", "cell.c"), "w") as f:
            f.write('#include <kollide/kollide.h>\n#include "core.h"\n')
        problems = public_api_problems(top, header_owners(top))
        if len(problems) != 1 or "public API" not in problems[0]:
            print("self-test: an application's internal include was not caught:", problems)
            return 1
        print("self-test: caught", problems[0])
        return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    top = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(top)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} wrong-way include(s): layers, bottom to top: {' -> '.join(LAYERS)}")
        return 1
    print(f"layers ok: {' -> '.join(LAYERS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
