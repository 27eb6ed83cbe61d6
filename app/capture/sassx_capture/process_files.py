"""The JSON files each process of a program writes at exit (<pid>.records.json, <pid>.times.json,
<pid>.driver.json): read them all from one directory, keeping those of the expected format and version
and naming every other one in a problem line, so that one unreadable process never loses the others."""
import json
import os


def read_process_files(directory, suffix, fmt, version):
    """(documents, problems) from DIRECTORY/*SUFFIX, in name order; a missing directory holds none."""
    documents, problems = [], []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return documents, problems
    for fn in names:
        if not fn.endswith(suffix):
            continue
        try:
            with open(os.path.join(directory, fn)) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{fn}: {e}")
            continue
        if not isinstance(doc, dict) or doc.get("format") != fmt or doc.get("version") != version:
            problems.append(f"{fn}: not {fmt} version {version}")
            continue
        documents.append(doc)
    return documents, problems
