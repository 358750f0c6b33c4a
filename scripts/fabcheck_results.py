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


class RecordError(Exception):
    """A file fabcheck cannot read: str() is 'PATH:LINE: what' (LINE 0 for a whole file)."""

    def __init__(self, path, line, message):
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        self.path, self.line, self.message = str(path), line, message


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return (_is_int(value) or isinstance(value, float)) and not (
        isinstance(value, float) and not math.isfinite(value))


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
    for field, field_kind in FIELDS[kind].items():
        if field not in record:
            raise RecordError(path, line, f"missing field {field!r}")
        if not _type_ok(field_kind, record[field]):
            raise RecordError(path, line, f"field {field!r} is {record[field]!r}, expected {_describe(field_kind)}")
    if kind == "measurement":
        for key, value in record["params"].items():
            if not isinstance(value, str):
                raise RecordError(path, line, f"params[{key!r}] is {value!r}, expected a string")
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
        for number, raw in enumerate(stream, 1):
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
            records.append(check_record(record, kind, path, number))
    return records


def read_summary(path):
    path = pathlib.Path(path)
    if not path.is_file():
        raise RecordError(path, 0, "missing or not a regular file")
    try:
        record = json.loads(path.read_text(encoding="utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as error:
        raise RecordError(path, 0, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise RecordError(path, error.lineno, f"not JSON: {error.msg}") from None
    except ValueError as error:
        raise RecordError(path, 0, f"not JSON: {error}") from None
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
