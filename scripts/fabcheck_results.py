"""Reads fabcheck run directories back: measurements.jsonl, findings.jsonl, summary.json and run.h5
(results/schema/README.md), strictly, naming the file and line of anything it cannot read.

    import fabcheck_results as fr
    run = fr.load_run("fabcheck-results/20261130T060926Z-node1")
    busbw = [m for m in run.measurements if m["metric"] == "busbw"]

Records come back as dicts with the JSON field names. Readers of schema versions they do not know
refuse them; fields this reader does not know are kept and ignored (the schema's rule: adding a
field does not raise the version). run.h5 is read with h5py into the same dict shape.
"""
import json
import math
import pathlib

SCHEMA_VERSIONS = (1,)  # the versions this reader understands

SEVERITIES = ("pass", "warn", "fail", "waived", "error")
VERDICTS = ("pass", "warn", "fail", "incomplete")
STATUSES = ("ok", "error", "waived")

# Field types per record kind: "str", "int", "num?" (number or null), "int?", "obj", "obj?",
# "list", "str?", or a tuple of allowed strings.
_MEASUREMENT = {
    "schema_version": "int", "kind": "str", "probe": "str", "metric": "str", "value": "num?",
    "unit": "str", "host": "str", "rank": "int", "subject": "str", "peer": "str",
    "size_bytes": "int?", "params": "obj", "stats": "obj?", "status": STATUSES, "message": "str",
    "time_utc": "str",
}
_FINDING = {
    "schema_version": "int", "kind": "str", "severity": SEVERITIES, "probe": "str",
    "metric": "str", "subject": "str", "host": "str", "rank": "int", "size_bytes": "int?",
    "unit": "str", "observed": "num?", "expected": "num?", "warn_at": "num?", "message": "str",
    "evidence": "str", "remedy": "str", "source": "str",
}
_SUMMARY = {
    "schema_version": "int", "kind": "str", "fabcheck_version": "str", "verdict": VERDICTS,
    "exit_code": "int", "counts": "obj", "probes": "obj", "hosts": "list", "ranks": "int",
    "command_line": "str", "profile": "obj", "started_utc": "str", "finished_utc": "str?",
    "incomplete_reason": "str?", "versions": "obj", "environment": "obj", "run_dir": "str",
}
FIELDS = {"measurement": _MEASUREMENT, "finding": _FINDING, "summary": _SUMMARY}

# The shapes inside a record's objects and arrays, where present (fields may be added, never
# retyped): ("map", SHAPE) an object whose every value has SHAPE, ("list", SHAPE) an array of them,
# a dict {key: SHAPE} an object whose named keys (when present) have theirs, else a field kind.
_NESTED = {
    "measurement": {
        "stats": {"count": "int", "min": "num?", "median": "num?", "max": "num?", "p99": "num?",
                  "mean": "num?", "cv": "num?"},
        "by_rank": ("list", {"rank": "int", "host": "str", "value": "num?"}),
    },
    "finding": {},
    "summary": {
        "counts": ("map", "int"),
        "hosts": ("list", "str"),
        "probes": {"run": ("list", "str"),
                   "waived": ("list", {"id": "str", "reason": "str"}),
                   "errored": ("list", {"id": "str", "message": "str"})},
        "profile": {"name": "str?", "path": "str?", "reason": "str?"},
        "versions": ("map", "str?"),
        "environment": ("map", "str"),
        "timing": {"wall_s": "num?", "probes": ("list", {"id": "str", "seconds": "num?"})},
        "nodes": ("list", {"host": "str", "verdict": "str", "counts": ("map", "int")}),
        "drain": ("list", {"host": "str", "reason": "str", "code": "str", "repair": "str"}),
        "hold": ("list", {"host": "str", "reason": "str", "code": "str", "repair": "str"}),
        "across_nodes": ("list", {"hosts": "str", "message": "str"}),
    },
}

# What the C++ readers and writers hold (lines over 1 MiB refused, integers of 64 bits); nesting
# deeper than any record has is refused before Python's recursion limit is reached.
MAX_LINE_BYTES = 1 << 20
MAX_SUMMARY_BYTES = 64 << 20
MAX_DEPTH = 64
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1


class RecordError(Exception):
    """A file fabcheck cannot read: str() is 'PATH:LINE: what' (LINE 0 for a whole file)."""

    def __init__(self, path, line, message):
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        self.path, self.line, self.message = str(path), line, message


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and _INT_MIN <= value <= _INT_MAX


def _is_number(value):
    return (_is_int(value) or isinstance(value, float)) and not (
        isinstance(value, float) and not math.isfinite(value))


def _shown(value):
    """A value as a message quotes it: bounded, whatever it is."""
    if isinstance(value, (dict, list)):
        return f"{'an object' if isinstance(value, dict) else 'an array'} of {len(value)}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_values(record, path, line):
    """Every value inside `record`, however nested (without recursion): nesting at most MAX_DEPTH,
    integers of 64 bits, finite numbers, strings without lone surrogates ("\\ud800" is JSON, not
    text); raises RecordError."""
    stack = [(record, 1, "")]
    while stack:
        value, depth, where = stack.pop()
        if depth > MAX_DEPTH:
            raise RecordError(path, line, f"nested deeper than {MAX_DEPTH} levels at {where or 'the top'}")
        if isinstance(value, dict):
            stack.extend((v, depth + 1, f"{where}.{k}" if where else str(k)) for k, v in value.items())
            for key in value:
                if any(0xD800 <= ord(c) <= 0xDFFF for c in key):
                    raise RecordError(path, line, f"a key at {where or 'the top'} holds a lone surrogate: not text")
        elif isinstance(value, list):
            stack.extend((v, depth + 1, f"{where}[{i}]") for i, v in enumerate(value))
        elif isinstance(value, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
                raise RecordError(path, line, f"{where or 'the record'} holds a lone surrogate escape: not text")
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, int):
            if not _INT_MIN <= value <= _INT_MAX:
                raise RecordError(path, line, f"{where or 'the record'} is an integer of "
                                              f"{len(str(abs(value)))} digits: more than 64 bits")
        elif isinstance(value, float) and not math.isfinite(value):
            raise RecordError(path, line, f"{where or 'the record'} is not a finite number")


def _check_shape(value, shape, path, line, where):
    if isinstance(shape, tuple) and shape and shape[0] in ("map", "list"):
        container, inner = shape
        if container == "map":
            if not isinstance(value, dict):
                raise RecordError(path, line, f"field {where!r} is {_shown(value)}, expected an object")
            for key, item in value.items():
                _check_shape(item, inner, path, line, f"{where}.{key}")
        else:
            if not isinstance(value, list):
                raise RecordError(path, line, f"field {where!r} is {_shown(value)}, expected an array")
            for index, item in enumerate(value):
                _check_shape(item, inner, path, line, f"{where}[{index}]")
    elif isinstance(shape, dict):
        if not isinstance(value, dict):
            raise RecordError(path, line, f"field {where!r} is {_shown(value)}, expected an object")
        for key, inner in shape.items():
            if key in value:
                _check_shape(value[key], inner, path, line, f"{where}.{key}")
    elif not _type_ok(shape, value):
        raise RecordError(path, line, f"field {where!r} is {_shown(value)}, expected {_describe(shape)}")


def _type_ok(kind, value):
    if isinstance(kind, tuple):
        return value in kind
    optional = kind.endswith("?")
    if optional and value is None:
        return True
    base = kind.rstrip("?")
    return {"str": lambda v: isinstance(v, str), "int": _is_int, "num": _is_number,
            "obj": lambda v: isinstance(v, dict), "list": lambda v: isinstance(v, list)}[base](value)


def _describe(kind):
    if isinstance(kind, tuple):
        return "one of " + ", ".join(kind)
    names = {"str": "a string", "int": "an integer", "num": "a number", "obj": "an object",
             "list": "an array"}
    text = names[kind.rstrip("?")]
    return text + " or null" if kind.endswith("?") else text


def check_record(record, kind, path, line):
    """Checks one record of `kind` ('measurement', 'finding', 'summary'); raises RecordError."""
    if not isinstance(record, dict):
        raise RecordError(path, line, f"a {kind} record must be a JSON object, got {type(record).__name__}")
    version = record.get("schema_version")
    if not _is_int(version):
        raise RecordError(path, line, f"schema_version missing or not an integer: {version!r}")
    if version not in SCHEMA_VERSIONS:
        raise RecordError(path, line, f"schema_version {version} is not one this reader knows "
                                      f"({', '.join(map(str, SCHEMA_VERSIONS))}); use a newer fabcheck-report")
    if record.get("kind") != kind:
        raise RecordError(path, line, f"kind {record.get('kind')!r}, expected {kind!r}")
    _check_values(record, path, line)
    for field, field_kind in FIELDS[kind].items():
        if field not in record:
            raise RecordError(path, line, f"missing field {field!r}")
        if not _type_ok(field_kind, record[field]):
            raise RecordError(path, line, f"field {field!r} is {_shown(record[field])}, expected {_describe(field_kind)}")
    if kind == "measurement":
        for key, value in record["params"].items():
            if not isinstance(value, str):
                raise RecordError(path, line, f"params[{key!r}] is {_shown(value)}, expected a string")
    for field, shape in _NESTED[kind].items():
        if field in record and record[field] is not None:
            _check_shape(record[field], shape, path, line, field)
    return record


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def read_jsonl(path, kind):
    """The records of a .jsonl file of `kind`, each checked; RecordError names the line."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise RecordError(path, 0, "missing or not a regular file")
    records = []
    with open(path, "rb") as stream:
        number = 0
        while True:
            # Bounded: a line is read up to MAX_LINE_BYTES and one byte more, never whole.
            raw = stream.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise RecordError(path, number, f"a line longer than {MAX_LINE_BYTES // (1 << 20)} MiB: "
                                                "no record is that long")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise RecordError(path, number, f"not UTF-8 ({error.reason} at byte {error.start})") from None
            if not text.strip():
                continue
            try:
                record = json.loads(text, parse_constant=_reject_constant)
            except ValueError as error:
                raise RecordError(path, number, f"not JSON: {error}") from None
            except RecursionError:
                raise RecordError(path, number, f"nested deeper than {MAX_DEPTH} levels") from None
            records.append(check_record(record, kind, path, number))
    return records


def read_summary(path):
    path = pathlib.Path(path)
    if not path.is_file():
        raise RecordError(path, 0, "missing or not a regular file")
    if path.stat().st_size > MAX_SUMMARY_BYTES:
        raise RecordError(path, 0, f"larger than {MAX_SUMMARY_BYTES >> 20} MiB: no summary is that large")
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_SUMMARY_BYTES + 1)
        if len(data) > MAX_SUMMARY_BYTES:
            raise RecordError(path, 0, f"larger than {MAX_SUMMARY_BYTES >> 20} MiB: no summary is that large")
        record = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as error:
        raise RecordError(path, 0, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise RecordError(path, error.lineno, f"not JSON: {error.msg}") from None
    except ValueError as error:
        raise RecordError(path, 0, f"not JSON: {error}") from None
    except RecursionError:
        raise RecordError(path, 0, f"nested deeper than {MAX_DEPTH} levels") from None
    return check_record(record, "summary", path, 0)


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _number_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None


def read_h5(path):
    """run.h5 as {'measurements': [...], 'findings': [...], 'pair_matrices': [...]} in the JSONL
    records' shape (NaN read back as None where JSON has null)."""
    import h5py  # Debian python3-h5py; only needed for run.h5
    path = pathlib.Path(path)
    try:
        handle = h5py.File(path, "r")
    except OSError as error:
        raise RecordError(path, 0, f"not an HDF5 file h5py can open: {error}") from None
    with handle as f:
        version = f.attrs.get("schema_version")
        if version is None or int(version) not in SCHEMA_VERSIONS:
            raise RecordError(path, 0, f"schema_version attribute {version!r} is not one this "
                                       f"reader knows ({SCHEMA_VERSIONS})")
        out = {"measurements": [], "findings": [], "pair_matrices": []}
        for table in ("measurements", "findings"):
            if table not in f:
                raise RecordError(path, 0, f"no /{table} dataset")
        for index, row in enumerate(f["measurements"][:]):
            names = row.dtype.names
            record = {"schema_version": int(version), "kind": "measurement"}
            for name in ("probe", "metric", "unit", "host", "subject", "peer", "status",
                         "message", "time_utc"):
                record[name] = _text(row[name])
            record["value"] = _number_or_none(row["value"])
            record["rank"] = int(row["rank"])
            record["size_bytes"] = int(row["size_bytes"]) if row["has_size"] else None
            try:
                record["params"] = json.loads(_text(row["params"]))
            except json.JSONDecodeError as error:
                raise RecordError(path, 0, f"/measurements row {index}: params not JSON: {error}") from None
            if "by_rank" in names:
                record["by_rank"] = json.loads(_text(row["by_rank"]))
            record["stats"] = None
            if row["has_stats"]:
                record["stats"] = {"count": int(row["stats_count"])}
                for key in ("min", "median", "max", "p99", "mean", "cv"):
                    record["stats"][key] = _number_or_none(row["stats_" + key])
            out["measurements"].append(record)
        for row in f["findings"][:]:
            record = {"schema_version": int(version), "kind": "finding"}
            for name in ("severity", "probe", "metric", "subject", "host", "unit", "message",
                         "evidence", "remedy", "source"):
                record[name] = _text(row[name])
            record["rank"] = int(row["rank"])
            record["size_bytes"] = int(row["size_bytes"]) if row["has_size"] else None
            for name in ("observed", "expected", "warn_at"):
                record[name] = _number_or_none(row[name])
            out["findings"].append(record)
        if "pair_matrices" in f:
            for name, dataset in f["pair_matrices"].items():
                attrs = {key: _text(value) for key, value in dataset.attrs.items() if key != "hosts"}
                out["pair_matrices"].append({
                    "name": name, "hosts": [_text(h) for h in dataset.attrs.get("hosts", [])],
                    "values": dataset[:].tolist(), **attrs})
    return out


class Run:
    """One run directory read back."""

    def __init__(self, directory, measurements, findings, summary, h5=None):
        self.dir = pathlib.Path(directory)
        self.measurements = measurements
        self.findings = findings
        self.summary = summary
        self.h5 = h5

    @property
    def name(self):
        return self.dir.name

    @property
    def verdict(self):
        return self.summary["verdict"] if self.summary else "incomplete"


def is_run_dir(path):
    path = pathlib.Path(path)
    return path.is_dir() and ((path / "summary.json").is_file() or (path / "measurements.jsonl").is_file())


def load_run(directory, with_h5=False):
    """A run directory: the JSONL files and summary.json (run.h5 too when with_h5 and present)."""
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        raise RecordError(directory, 0, "not a directory")
    measurements = read_jsonl(directory / "measurements.jsonl", "measurement")
    findings = read_jsonl(directory / "findings.jsonl", "finding")
    summary = read_summary(directory / "summary.json")
    h5 = None
    if with_h5 and (directory / "run.h5").is_file():
        h5 = read_h5(directory / "run.h5")
    return Run(directory, measurements, findings, summary, h5)


def find_run_dirs(paths, depth=3):
    """Run directories among `paths`: each is a run directory, or a folder holding run directories
    (searched `depth` levels down: a sweep's folder of per-node runs). RecordError when none."""
    found = []
    for path in map(pathlib.Path, paths):
        if not path.exists():
            raise RecordError(path, 0, "no such file or directory")
        if is_run_dir(path):
            found.append(path)
            continue
        if not path.is_dir():
            raise RecordError(path, 0, "not a run directory (no summary.json or measurements.jsonl)")
        level, inside = [path], []
        for _ in range(depth):
            children = sorted(child for folder in level for child in folder.iterdir() if child.is_dir())
            inside += [child for child in children if is_run_dir(child)]
            level = [child for child in children if not is_run_dir(child)]
        if not inside:
            raise RecordError(path, 0, "holds no run directory (none with summary.json or "
                                       "measurements.jsonl)")
        found += inside
    return found
