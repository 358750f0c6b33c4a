"""A strict parser of the Prometheus text exposition format (0.0.4) as node_exporter's textfile
collector and promtool read it, for fabcheck's tests. Anything they would reject, or that
`promtool check metrics` lints, raises PromError naming the line:

- UTF-8 text ending in a newline; HELP and TYPE at most once per family and before its samples;
  every sample's family has both; the samples of a family form one contiguous group;
- metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* not starting with
  "__", no label twice in one sample; label values quoted, with only \\\\ \\" \\n escapes; HELP text
  with only \\\\ and \\n escapes; values as Go's ParseFloat reads them (NaN, +Inf, -Inf);
- no timestamps (node_exporter's textfile collector refuses them); no two samples of one family
  with the same label set (an empty value counts as an absent label);
- lint: snake_case names without ':', a gauge not named like a counter or a histogram part
  (_total, _count, _sum, _bucket), base units only (seconds, bytes; not milliseconds, kilobytes).
"""
import re

METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
FLOAT = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[Ii]nf|NaN)\Z")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
NON_BASE_UNITS = ("milliseconds", "microseconds", "nanoseconds", "minutes", "hours", "days",
                  "kilobytes", "megabytes", "gigabytes", "terabytes", "kibibytes", "mebibytes",
                  "gibibytes", "percent", "fahrenheit")


class PromError(Exception):
    def __init__(self, line, message):
        super().__init__(f"line {line}: {message}")
        self.line = line


class Family:
    def __init__(self, name):
        self.name, self.help, self.type, self.samples, self.series = name, None, None, [], set()


def _unescape(text, line, allowed):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 >= len(text) or text[i + 1] not in allowed:
                raise PromError(line, f"invalid escape sequence {text[i:i + 2]!r}")
            out.append({"\\": "\\", "n": "\n", '"': '"'}[text[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _parse_labels(text, i, line):
    """Labels from text[i] == '{'; returns (dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == "}":
            return labels, i + 1
        match = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*").match(text, i)
        if not match:
            raise PromError(line, f"invalid label name at {text[i:i + 20]!r}")
        name = match.group(0)
        if name.startswith("__"):
            raise PromError(line, f"label name {name!r} is reserved (starts with __)")
        i = match.end()
        while i < len(text) and text[i] in " \t":
            i += 1
        if text[i:i + 2] != '="':
            raise PromError(line, f"label {name!r}: expected =\"")
        i += 2
        start = i
        while i < len(text) and text[i] != '"':
            i += 2 if text[i] == "\\" else 1
        if i >= len(text):
            raise PromError(line, f"label {name!r}: unterminated value")
        value = _unescape(text[start:i], line, '\\"n')
        if name in labels:
            raise PromError(line, f"label {name!r} twice in one sample")
        labels[name] = value
        i += 1
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == ",":
            i += 1
        elif i < len(text) and text[i] == "}":
            continue
        else:
            raise PromError(line, f"expected , or }} after label {name!r}")


def _parse_value(text, line):
    if not FLOAT.match(text):
        raise PromError(line, f"invalid sample value {text!r}")
    return float(text)


def _lint(name, type_, line):
    if name != name.lower():
        raise PromError(line, f"{name}: metric names are snake_case")
    if ":" in name:
        raise PromError(line, f"{name}: ':' is reserved for recording rules")
    if type_ == "gauge" and re.search(r"_(total|count|sum|bucket)\Z", name):
        raise PromError(line, f"{name}: a gauge named like a counter or histogram part")
    for unit in NON_BASE_UNITS:
        if re.search(rf"(^|_){unit}(_|\Z)", name):
            raise PromError(line, f"{name}: use base units (seconds, bytes, ratio), not {unit}")


def parse(text):
    """Families by name, in order of appearance; each sample is (labels dict, value)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise PromError(0, f"not UTF-8: {error}") from None
    if text and not text.endswith("\n"):
        raise PromError(text.count("\n") + 1, "the last line has no newline")
    families = {}
    closed = set()  # families whose group of samples has ended
    current = None
    for number, raw in enumerate(text.split("\n")[:-1], 1):
        if raw.strip() == "":
            continue
        if raw.startswith("#"):
            parts = raw.split(None, 3)
            if len(parts) >= 2 and parts[1] in ("HELP", "TYPE"):
                if len(parts) < 3:
                    raise PromError(number, f"{parts[1]} without a metric name")
                name = parts[2]
                if not METRIC_NAME.match(name):
                    raise PromError(number, f"invalid metric name {name!r}")
                family = families.setdefault(name, Family(name))
                if family.samples or name in closed:
                    raise PromError(number, f"{parts[1]} for {name} after its samples")
                rest = parts[3] if len(parts) > 3 else ""
                if parts[1] == "HELP":
                    if family.help is not None:
                        raise PromError(number, f"second HELP for {name}")
                    family.help = _unescape(rest, number, "\\n")
                else:
                    if family.type is not None:
                        raise PromError(number, f"second TYPE for {name}")
                    if rest.strip() not in TYPES:
                        raise PromError(number, f"unknown type {rest!r} for {name}")
                    family.type = rest.strip()
                    _lint(name, family.type, number)
                if current is not None and current != name:
                    closed.add(current)
                current = name
            continue  # any other '#' line is a comment
        match = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*").match(raw)
        if not match:
            raise PromError(number, f"invalid metric name at {raw[:30]!r}")
        name = match.group(0)
        i = match.end()
        labels = {}
        if i < len(raw) and raw[i] == "{":
            labels, i = _parse_labels(raw, i, number)
        rest = raw[i:].split()
        if not raw[i:i + 1].isspace() or len(rest) == 0:
            raise PromError(number, f"{name}: expected a space and a value")
        if len(rest) > 1:
            raise PromError(number, f"{name}: a timestamp or extra text ({rest[1:]!r}); "
                                    "node_exporter's textfile collector refuses timestamps")
        value = _parse_value(rest[0], number)
        family = families.get(name)
        if family is None or family.type is None or family.help is None:
            raise PromError(number, f"sample of {name} without HELP and TYPE before it")
        if name in closed or (current is not None and current != name):
            raise PromError(number, f"samples of {name} are not one contiguous group")
        current = name
        key = frozenset((k, v) for k, v in labels.items() if v != "")
        if key in family.series:
            raise PromError(number, f"duplicate series {name}{labels}")
        family.series.add(key)
        family.samples.append((labels, value))
    return families
