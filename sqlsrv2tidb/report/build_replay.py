"""The replay section: target against achieved rate, latency per class against SQL Server, errors,
the ramp ceiling, hotspot evidence and the side-by-side designs of `sqlsrv2tidb experiment`.

The replay and experiment files belong to the replay stage; beyond the fields DESIGN.md fixes
(`target_qps`, `achieved_qps`, `latency_ms`, `per_query`, `timeline`, ...) their evidence is shown
generically, so a new field appears in the report without a change here.
"""

from __future__ import annotations

import re
from typing import Any

from . import charts, compare, labels
from . import formatting as fmt
from .links import Anchors
from .shape import obj, seq
from .viewmodel import Cell, CompareRow, Count, Evidence, Fact, GenericTable, ReplaySection


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _flatten(record: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in record.items():
        if str(key).casefold() in labels.HIDDEN_KEYS:
            continue
        if isinstance(value, dict) and not labels.FIELDS.get(str(key), labels.Field("")).kind:
            for sub, inner in value.items():
                if str(sub).casefold() not in labels.HIDDEN_KEYS:
                    out[f"{key} {sub}"] = inner
        else:
            out[str(key)] = value
    return out


def records_table(table_id: str, records: list[Any], first: tuple[str, ...] = ()) -> GenericTable | None:
    """Records as a table: columns labelled (`labels`), `first` ones first, columns with no value in any row left out."""
    rows = [_flatten(r) for r in records if isinstance(r, dict)]
    if not rows:
        return None
    columns = [c for c in first if any(c in r for r in rows)]
    for r in rows:
        columns.extend(k for k in r if k not in columns)
    columns = [c for c in columns if not all(labels.is_empty(r.get(c)) for r in rows)]
    numeric = tuple(all(_num(r.get(c)) is not None or r.get(c) is None for r in rows) for c in columns)
    cells = tuple(
        tuple(Cell(labels.value(c, r.get(c)), _sort(c, r.get(c)), num) for c, num in zip(columns, numeric, strict=True))
        for r in rows
    )
    return GenericTable(table_id, tuple(labels.label(c) for c in columns), numeric, cells)


def _sort(key: str, value: Any) -> str:
    return labels.value(key, value) if isinstance(value, (dict, list)) else fmt.sort_key(value)


def evidence_blocks(title: str, data: Any, table_id: str) -> tuple[Evidence, ...]:
    """Hotspot evidence in whatever shape the replay stage wrote it: a list, or named parts."""
    if isinstance(data, list):
        table = records_table(table_id, data, ("table", "name", "region_id", "store_id"))
        return (Evidence(title, table=table),) if table else ()
    if not isinstance(data, dict):
        return (Evidence(title, facts=(Fact(title, fmt.scalar(data)),)),) if data is not None else ()
    facts = labels.record_facts(data)
    blocks = [Evidence(title, facts=facts)] if facts else []
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            table = records_table(f"{table_id}-{len(blocks)}", value, ("table", "name", "region_id", "store_id"))
            if table:
                blocks.append(Evidence(f"{title}: {str(key).replace('_', ' ')}", table=table))
        elif isinstance(value, dict) and any(isinstance(v, (list, dict)) for v in value.values()):
            blocks.extend(evidence_blocks(f"{title}: {key}", value, f"{table_id}-{len(blocks)}"))
    return tuple(blocks)


def without_password(url: str) -> str:
    """`mysql://user@host:port/db`: replay.json never holds a password, and the page makes sure."""
    return re.sub(r"^(\w+://[^:/@\s]*):[^@/\s]*@", r"\1@", url)


def _error_rows(replay: dict[str, Any]) -> tuple[Fact, ...]:
    """`error_codes` [{code, count, samples: [{query, message}]}], most frequent first."""
    out = []
    for item in seq(replay.get("error_codes")):
        if not isinstance(item, dict):
            continue
        samples = [s for s in seq(item.get("samples")) if isinstance(s, dict)]
        sample = samples[0] if samples else {}
        text = f"{item.get('code', '?')}: {sample.get('message', '')}".rstrip(": ")
        if sample.get("query"):
            text += f" (query {sample['query']})"
        why = [str(w) for w in seq(item.get("why"))]
        if why:
            text += f". Why: {' / '.join(why)}"
        out.append(Fact(text, fmt.scalar(item.get("count"))))
    return tuple(out[:50])


def _ramp(replay: dict[str, Any]) -> tuple[tuple[Fact, ...], GenericTable | None, str | None]:
    raw = replay.get("ramp")
    if not isinstance(raw, dict):
        return (), None, None
    steps = [s for s in seq(raw.get("steps")) if isinstance(s, dict)]
    ceiling = _num(raw.get("ceiling_qps"))
    by_errors = raw.get("stopped_by") == "errors"
    facts = [Fact("ceiling", f"{fmt.qps(ceiling)} queries per second" if ceiling is not None else
                  "not measured: the first step's statements failed" if by_errors else
                  "none: not even the first step was sustained")]
    if by_errors:
        facts.append(Fact("stopped by", "errors: the target answered at the last step's rate, but statements failed "
                                        "(see the errors below), so the ceiling was not measured"))
    captured = _num(replay.get("captured_qps"))
    if captured is not None:
        facts.append(Fact("captured rate of the window", f"{fmt.qps(captured)} queries per second"))
    if _num(raw.get("p99_limit_ms")) is not None:
        facts.append(Fact("p99 limit per step", f"{fmt.ms(_num(raw.get('p99_limit_ms')))} ms"))
    table = records_table("ramp-steps", steps, ("target_qps", "achieved_qps", "p99_ms", "errors", "sustained"))
    return tuple(facts), table, charts.ramp(steps, ceiling)


def _store_share(by_store: Any) -> tuple[str, str]:
    if not isinstance(by_store, dict) or not by_store:
        return "—", "—"
    total = sum(v for v in by_store.values() if isinstance(v, (int, float))) or 0
    store, top = max(by_store.items(), key=lambda kv: (kv[1] if isinstance(kv[1], (int, float)) else 0, str(kv[0])))
    return str(store), fmt.percent(top, total, 0) if total else "—"


def _evidence(replay: dict[str, Any]) -> tuple[Evidence, ...]:
    """Regions and write placement of the most-written tables, before and after the run (TiDB only)."""
    raw = replay.get("evidence")
    if raw is None:
        return ()
    if not isinstance(raw, dict) or "before" not in raw and "after" not in raw:
        if isinstance(raw, dict) and raw.get("skipped"):
            return (Evidence("", note=f"Not collected: {raw['skipped']}"),)
        return evidence_blocks("Hotspot evidence", raw, "evidence")
    before, after = obj(raw.get("before")), obj(raw.get("after"))
    rows = []
    tables = [str(t) for t in seq(raw.get("tables"))] or sorted(str(t) for t in set(before) | set(after))
    for table in tables:
        b, a = obj(before.get(table)), obj(after.get(table))
        store, share = _store_share(a.get("written_bytes_by_store") or a.get("leaders_by_store"))
        hot = a.get("hot_regions")
        rows.append({
            "table": table, "regions_before": b.get("regions"), "regions_after": a.get("regions"),
            "busiest_store": store, "share_on_busiest_store": share,
            "leaders_by_store": a.get("leaders_by_store"),
            "hot_regions": len(hot) if isinstance(hot, list) else None,
            "error": a.get("error") or a.get("hot_regions_error"),
        })
    table = records_table("evidence", rows, ("table", "regions_before", "regions_after", "busiest_store", "share_on_busiest_store"))
    missing = [str(m) for m in seq(raw.get("not_measured"))]
    note = ("What this target cannot show: " + "; ".join(missing) + ".") if missing else ""
    if not table:
        return (Evidence("", note=note),) if note else ()
    return (Evidence("Regions and write placement of the most-written tables", table=table, note=note),)


WORKER_COLUMNS = ("share", "worker", "host", "state", "connections", "target_qps", "sent", "achieved_qps", "errors",
                  "late_sends", "missed", "client_cpu_s", "cpu_us_per_statement", "clock_offset_ms")


def _workers(replay: dict[str, Any]) -> tuple[GenericTable | None, str]:
    """A `--cluster` run: one row per Dask worker (its share of the connections), and what was lost."""
    cluster = obj(replay.get("cluster"))
    rows = [r for r in seq(cluster.get("workers")) if isinstance(r, dict)]
    if not rows:
        return None, ""
    table = records_table("replay-workers", rows, WORKER_COLUMNS)
    note = f"Sent by {len(rows)} Dask worker(s) through the scheduler at {cluster.get('scheduler') or '?'}; the figures " \
           "above are these rows added up."
    lost = [r for r in rows if r.get("state") not in ("done", None)]
    if lost:
        note += (" Lost: " + "; ".join(f"share {r.get('share')} ({r.get('worker')}): {r.get('note') or r.get('state')}"
                                       for r in lost)
                 + ". A lost share's measurements end when it was lost, so the achieved rate is short by the rest of "
                   "its share, whatever the target did.")
    return table, note


def _per_second(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """The timeline as target against achieved per second (the target of a ramp changes per step)."""
    steps = seq(obj(replay.get("ramp")).get("steps"))
    out = []
    for p in seq(replay.get("timeline")):
        if not isinstance(p, dict):
            continue
        if "achieved_qps" in p or "target_qps" in p:
            out.append(p)
            continue
        step = p.get("step")
        target = replay.get("target_qps")
        if steps and isinstance(step, int) and 0 <= step < len(steps) and isinstance(steps[step], dict):
            target = steps[step].get("target_qps", target)
        out.append({"t": p.get("second"), "target_qps": target, "achieved_qps": p.get("completed"),
                    "errors": p.get("errors"), "warmup": p.get("warmup")})
    return out


def _experiment(experiment: dict[str, Any] | None) -> tuple[Evidence | None, str | None]:
    if not experiment:
        return None, None
    designs_key = "variants" if isinstance(experiment.get("variants"), list) else next(
        (k for k, v in experiment.items() if isinstance(v, list) and v and isinstance(v[0], dict)), None)
    designs = [d for d in experiment.get(designs_key) or [] if isinstance(d, dict)] if designs_key else []
    # TiDB: each design's Region count when its replay started and ended (SHOW TABLE ... REGIONS).
    designs = [{**{k: v for k, v in d.items() if k != "regions"},
                **{f"regions_{k}": v for k, v in obj(d.get("regions")).items()}} for d in designs]
    table = records_table("experiment-designs", designs, ("strategy", "name", "design", "regions_at_start",
                                                          "regions_at_end", "achieved_qps", "target_qps",
                                                          "ceiling_qps", "p99_ms", "errors", "sustained"))
    facts = list(labels.record_facts(experiment, {"format", designs_key or "", "skipped"}))
    for s in seq(experiment.get("skipped")):
        if isinstance(s, dict):
            facts.append(Fact(f"not tried: {s.get('strategy', '?')}", str(s.get("reason") or "")))
    names, values = [], []
    for d in designs:
        name = d.get("strategy") or d.get("design") or d.get("name")
        value = _num(d.get("achieved_qps"))
        if name is not None and value is not None:
            names.append(str(name))
            values.append(value)
    chart = charts.bars(names, values, "achieved queries per second", "Achieved rate per table design") if names else None
    return Evidence("Experiment: one write-hot table, several designs", facts=tuple(facts), table=table), chart


def _fidelity_facts(replay: dict[str, Any]) -> list[Fact]:
    """Where the target's server-side times came from, and what was sent as prepared statements."""
    facts = []
    server = obj(replay.get("server_time"))
    if server:
        facts.append(Fact("Server-side time", str(server.get("source") or "not measured")
                          + (f": {server['note']}" if server.get("note") else "")))
    per_query = [p for p in seq(replay.get("per_query")) if isinstance(p, dict)]
    prepared = [p for p in per_query if p.get("protocol") == "prepared"]
    if prepared:
        hits = sum(int(_num(p.get("plan_cache_hits")) or 0) for p in prepared)
        sent = sum(int(_num(p.get("statements")) or 0) for p in prepared)
        facts.append(Fact("Sent as prepared statements", f"{len(prepared)} of {len(per_query)} classes"
                          + (f"; TiDB's plan cache served {fmt.number(hits)} of their {fmt.number(sent)} executions"
                             if any("plan_cache_hits" in p for p in prepared) else "")))
    return facts


def build_replay(inputs: Any, anchors: Anchors) -> ReplaySection | None:
    replay: dict[str, Any] | None = inputs.replay
    experiment, experiment_chart = _experiment(inputs.experiment)
    if replay is None:
        if experiment is None:
            return None
        return ReplaySection(
            facts=(), latency=(), chart=None, comparison=(), categories=(), comparison_method=compare.METHOD, errors=(),
            ramp_facts=(), ramp_table=None, ramp_chart=None, hotspots=(), notes=(), skipped=None,
            experiment=experiment, experiment_chart=experiment_chart,
        )
    target, achieved = _num(replay.get("target_qps")), _num(replay.get("achieved_qps"))
    statements, errors = _num(replay.get("statements")), _num(replay.get("errors"))
    server = replay.get("server") if isinstance(replay.get("server"), dict) else {}
    window = replay.get("window") if isinstance(replay.get("window"), dict) else {}
    facts = [
        Fact("Target", without_password(str(replay.get("target") or "—")) + (f" ({server.get('kind')} {server.get('version') or ''})".rstrip()
                                                           if server.get("kind") else "")),
        Fact("Window replayed", str(window.get("name") or "whole capture")),
        Fact("Target rate", f"{fmt.qps(target)} queries per second" + (f" (captured {fmt.qps(_num(replay.get('captured_qps')))})"
                                                                       if replay.get("captured_qps") is not None else "")),
        Fact("Achieved rate", f"{fmt.qps(achieved)} queries per second ({fmt.percent(achieved, target, 0)} of target)"),
        Fact("Sustained", fmt.scalar(replay.get("sustained")) if "sustained" in replay else "—"),
        Fact("Measured for", fmt.seconds(_num(replay.get("duration_s")))),
        Fact("Statements", fmt.number(statements)),
        Fact("Errors", f"{fmt.number(errors)} ({fmt.percent(errors, statements, 2)})"),
    ]
    held = replay.get("target_data") if isinstance(replay.get("target_data"), dict) else None
    if held and held.get("said"):
        facts.append(Fact("Data in the target", str(held["said"])))
    for key, label in (("mode", "Mode"), ("connections", "Connections"), ("workers", "Sending processes"),
                       ("driver", "Driver"), ("missed", "Sends missed"), ("late_sends", "Sends more than 10 ms late"),
                       ("reconnects", "Reconnects"),
                       ("stopped_by", "Stopped by")):
        if replay.get(key) not in (None, "", 0, False):
            facts.append(Fact(label, fmt.scalar(replay[key])))
    if replay.get("interrupted"):
        facts.append(Fact("Interrupted", "yes: the figures cover the time measured before Ctrl-C"))
    facts.extend(_fidelity_facts(replay))
    lat = replay.get("latency_ms") if isinstance(replay.get("latency_ms"), dict) else {}
    latency = tuple(Fact(k, f"{fmt.ms(_num(v))} ms") for k, v in lat.items())
    per_query = [p for p in seq(replay.get("per_query")) if isinstance(p, dict)]
    results = compare.classify([q for q in seq(inputs.assessment.get("queries")) if isinstance(q, dict)], per_query)
    rows = tuple(
        CompareRow(
            result=r,
            label=anchors.labels.get(r.id, ""),
            anchor=anchors.queries.get(r.id),
            target_ms=Cell(fmt.ms(r.target_ms), fmt.sort_key(r.target_ms if r.target_ms is not None else -1.0), True),
            captured_ms=Cell(fmt.ms(r.captured_ms), fmt.sort_key(r.captured_ms if r.captured_ms is not None else -1.0), True),
            ratio=Cell(fmt.ratio(r.ratio), fmt.sort_key(r.ratio if r.ratio is not None else -1.0), True),
            statements=Cell(fmt.number(r.statements), fmt.sort_key(r.statements), True),
        )
        for r in results
    )
    categories = tuple(Count(c, n, css=f"cat-{c.replace(' ', '-')}") for c, n in compare.counts(results).items())
    ramp_facts, ramp_table, ramp_chart = _ramp(replay)
    skipped = records_table("skipped", list(seq(replay.get("skipped"))), ("id", "kind", "status", "reason"))
    workers, workers_note = _workers(replay)
    return ReplaySection(
        facts=tuple(facts), latency=latency, chart=charts.replay_timeline(_per_second(replay)), comparison=rows,
        categories=categories, comparison_method=compare.METHOD, errors=_error_rows(replay), ramp_facts=ramp_facts,
        ramp_table=ramp_table, ramp_chart=ramp_chart, hotspots=_evidence(replay),
        notes=tuple(str(n) for n in seq(replay.get("notes"))), skipped=skipped,
        experiment=experiment, experiment_chart=experiment_chart, workers=workers, workers_note=workers_note,
    )
