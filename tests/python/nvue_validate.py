"""Validate NVUE startup files against NVUE's object model, offline.

The object model is the Pydantic package `nvueschema` (PyPI), generated per Cumulus Linux release
from NVIDIA's published NVUE OpenAPI specification. Its models ignore unknown keys by default; here
every model is rebuilt with `extra="forbid"`, so a misspelt or misplaced key is an error, as it is
for `nv config replace`. Files are read with PyYAML (YAML 1.1, as NVUE's Python side reads them).

Usage: nvue_validate.py --release 5.15 [--release 5.16 ...] DIR
DIR holds NAME.yaml startup files and, optionally, NAME.json: the same data as railyard's own YAML
reader saw it. Prints one JSON report on stdout:
  {"files": N, "errors": [...], "mismatches": [...], "unchecked": [...], "leaves": N}
- errors: schema violations (file, release, path, message);
- mismatches: files PyYAML reads differently from NAME.json (YAML 1.1 vs 1.2 traps);
- unchecked: paths whose content the schema types only as `Any` (nothing verified below);
- leaves: settings checked against a typed schema node.
"""

import argparse
import importlib
import inspect
import json
import pathlib
import sys
import typing

import yaml
from pydantic import BaseModel, ValidationError


def strict_models(release):
    mod = importlib.import_module("nvueschema.models.v" + release.replace(".", "_"))
    classes = [
        c
        for _, c in inspect.getmembers(mod, inspect.isclass)
        if issubclass(c, BaseModel) and c.__module__ == mod.__name__
    ]
    source = inspect.getsource(mod)
    # Children are defined before their parents: rebuild in definition order so that a parent's
    # schema embeds its children's strict schemas.
    classes.sort(key=lambda c: source.find(f"class {c.__name__}("))
    for c in classes:
        c.model_config["extra"] = "forbid"
    for c in classes:
        c.model_rebuild(force=True)
    return mod


def unwrap(t):
    while True:
        origin = typing.get_origin(t)
        if origin is typing.Annotated:
            t = typing.get_args(t)[0]
            continue
        if origin is typing.Union:
            args = [a for a in typing.get_args(t) if a is not type(None)]
            if len(args) == 1:
                t = args[0]
                continue
        return t


def coverage(t, data, path, unchecked, counter):
    """Walk data along the schema types: count typed leaves, note content below `Any`."""
    t = unwrap(t)
    if t is typing.Any:
        if data != {}:
            unchecked.append(path)
        else:
            counter[0] += 1
        return
    if isinstance(t, type) and issubclass(t, BaseModel) and isinstance(data, dict):
        fields = {(f.alias or n): f for n, f in t.model_fields.items()}
        for k, v in data.items():
            if k in fields:
                coverage(fields[k].annotation, v, f"{path}/{k}", unchecked, counter)
        return
    if typing.get_origin(t) is dict and isinstance(data, dict):
        _, vt = typing.get_args(t)
        for k, v in data.items():
            coverage(vt, v, f"{path}/{k}", unchecked, counter)
        return
    counter[0] += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", action="append", required=True)
    ap.add_argument("dir")
    args = ap.parse_args()
    models = {r: strict_models(r) for r in args.release}
    report = {"files": 0, "errors": [], "mismatches": [], "unchecked": [], "leaves": 0}
    for f in sorted(pathlib.Path(args.dir).glob("*.yaml")):
        report["files"] += 1
        docs = yaml.safe_load(f.read_text())
        expected = f.with_suffix(".json")
        if expected.exists() and json.loads(expected.read_text()) != docs:
            report["mismatches"].append(f.name)
        if not (isinstance(docs, list) and len(docs) == 2 and "header" in docs[0] and "set" in docs[1]):
            report["errors"].append({"file": f.name, "path": "/", "message": "not [- header, - set]"})
            continue
        for release, mod in models.items():
            for model, data, root in ((mod.NvueConfigHeader, docs[0]["header"], "/header"),
                                      (mod.NvueConfig, docs[1]["set"], "/set")):
                try:
                    model.model_validate(data)
                except ValidationError as e:
                    for err in e.errors():
                        report["errors"].append({
                            "file": f.name,
                            "release": release,
                            "path": root + "/" + "/".join(map(str, err["loc"])),
                            "message": err["msg"],
                        })
        unchecked, counter = [], [0]
        coverage(models[args.release[0]].NvueConfig, docs[1]["set"], "/set", unchecked, counter)
        report["unchecked"] += [f"{f.name}:{p}" for p in unchecked]
        report["leaves"] += counter[0]
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
