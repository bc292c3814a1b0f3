"""The `lrworld` command: trace a number back to its inputs, and check those inputs still match.

    lrworld explain results/tables/ml100k.csv random attr_genre [--records] [--json]
    lrworld verify [TABLE ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

from lrworld.provenance import trace


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="lrworld", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("explain", help="walk from one table cell to the raw data, with hashes and rules")
    ex.add_argument("table", help="results/tables/<dataset>.csv (or .md), or a dataset name")
    ex.add_argument("row", help="the row: a model name")
    ex.add_argument("column", help="the column: a measure, or measure@variant")
    ex.add_argument("--records", action="store_true", help="also list the per-question records behind the number")
    ex.add_argument("--json", action="store_true", help="print JSON")
    ex.add_argument("-d", "--directory", help="the workflow directory (default: the table's, or the current one)")
    ve = sub.add_parser("verify", help="re-hash every file behind the tables' numbers; exit 1 on any mismatch")
    ve.add_argument("tables", nargs="*", help="tables to check (default: every table with provenance)")
    ve.add_argument("--json", action="store_true", help="print JSON")
    ve.add_argument("-d", "--directory", help="the workflow directory (default: the current one)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "explain":
            res = trace.explain(args.table, args.row, args.column, args.directory, records=args.records)
            print(json.dumps(res, indent=2, sort_keys=True) if args.json else trace.format_explain(res))
            return 0
        res = trace.verify(args.directory, args.tables or None)
        print(json.dumps(res, indent=2, sort_keys=True) if args.json else trace.format_verify(res))
        return 0 if res["ok"] else 1
    except trace.TraceError as exc:
        print(f"lrworld {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `lrworld explain ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
