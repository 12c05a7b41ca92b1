"""Reads a Tandem export with pandas, using the column types of its datapackage.json (the codebook's types).

    python3 tests/support/read_export_pandas.py <export-dir>

Prints, per file: row count, dtypes, missing values per column, and the first value of each datetime
column (ISO 8601, UTC). The mapping below is the one codebook.md documents for pandas users.
"""
import json
import sys

import pandas as pd

DTYPES = {"integer": "Int64", "number": "Float64", "boolean": "boolean", "string": "string"}
DATETIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def typed(df, fields):
    for f in fields:
        name, kind = f["name"], f["type"]
        if name not in df.columns:
            df[name] = pd.NA
        if kind == "datetime":
            df[name] = pd.to_datetime(df[name], format=f.get("format", DATETIME), utc=True)
        elif kind in DTYPES:
            df[name] = df[name].astype(DTYPES[kind])
    return df[[f["name"] for f in fields]]


def main(folder):
    pkg = json.load(open(f"{folder}/datapackage.json", encoding="utf-8"))
    out = {}
    for r in pkg["resources"]:
        fields = r["schema"]["fields"]
        path = f"{folder}/{r['path']}"
        if r["format"] == "csv":
            dtype = {f["name"]: DTYPES[f["type"]] for f in fields if f["type"] in DTYPES}
            # Only an empty cell is missing (not "NA", "null", ...): the export's missingValues is [""].
            df = pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values=[""], encoding="utf-8")
            df = typed(df, fields)
        else:
            df = pd.read_json(path, lines=True, dtype=False, convert_dates=False, encoding="utf-8")
            if df.empty:
                df = pd.DataFrame(columns=[f["name"] for f in fields])
            df = typed(df, fields)
        first = {}
        for f in fields:
            if f["type"] == "datetime" and df[f["name"]].notna().any():
                first[f["name"]] = df[f["name"]].dropna().iloc[0].isoformat()
        out[r["name"]] = {
            "rows": int(len(df)),
            "dtypes": {c: str(t) for c, t in df.dtypes.items()},
            "missing": {c: int(df[c].isna().sum()) for c in df.columns},
            "firstDatetime": first,
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
