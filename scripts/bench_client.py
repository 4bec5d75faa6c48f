#!/usr/bin/env python3
"""Helpers of scripts/bench: timed HTTP clients (cold start, sync pull, sync push) and the report.

Standard library only; every timing subcommand prints one JSON object.
"""
import argparse
import datetime
import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.parse
import uuid

try:  # a faster parser when installed; the stdlib one otherwise
    from orjson import loads
except ImportError:
    from json import loads


def free_port(_args):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


def db_info(args):
    """The seeded database's row counts and file size."""
    db = sqlite3.connect(args.db)
    one = lambda sql: db.execute(sql).fetchone()[0]
    data = (f"{one('SELECT COUNT(*) FROM oak_entries')} species, "
            f"{one('SELECT COUNT(*) FROM species_sources WHERE source_id IN (1, 2)')} species sources, "
            f"{one('SELECT COUNT(*) FROM species_sources WHERE source_id NOT IN (1, 2)')} notes, "
            f"{one('SELECT COUNT(*) FROM change_log')} change-log rows")
    print(json.dumps({"data": data, "db_mb": round(os.path.getsize(args.db) / 2**20, 1)}))


def summary(times_ms, **extra):
    """The median and every run, in milliseconds."""
    return {"median_ms": round(statistics.median(times_ms), 2), "runs_ms": [round(t, 2) for t in times_ms], **extra}


def request(conn, method, path, body=None, key=None):
    """One request on a kept-alive connection; fails loudly on an unexpected status."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status >= 300:
        sys.exit(f"{method} {path}: HTTP {response.status}: {data[:300]!r}")
    return data


def coldstart(args):
    """Time from spawning `oak serve` to /health/ready answering 200, median of --runs."""
    times = []
    for _ in range(args.runs):
        port = args.port
        start = time.perf_counter()
        server = subprocess.Popen(
            [args.oak, "serve", "--db", args.db, "--port", str(port), "--no-rate-limit", "--no-daily-backup",
             "--backup-dir", args.backup_dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while True:
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    conn.request("GET", "/health/ready")
                    if conn.getresponse().status == 200:
                        break
                except OSError:
                    pass
                if server.poll() is not None:
                    sys.exit(f"oak serve exited with status {server.returncode} before it was ready")
                if time.perf_counter() - start > 30:
                    sys.exit("oak serve was not ready within 30 s")
                time.sleep(0.001)
            times.append((time.perf_counter() - start) * 1000)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait()
    print(json.dumps(summary(times)))


def alternating(args, once, summarize):
    """Runs `once(port, run)` --runs times on --port and, with --beside, as often on that port too, their order
    reversed every other run (A B, B A, A B, …) so that a drift in the machine's speed weighs on both alike; prints
    `summarize` of --port's results in run order, with --beside's under "beside"."""
    ports = ([args.beside] if args.beside else []) + [args.port]
    results = {port: [] for port in ports}
    for run in range(args.runs):
        for port in ports if run % 2 == 0 else ports[::-1]:
            results[port].append(once(port, run))
    summaries = {port: summarize(runs) for port, runs in results.items()}
    print(json.dumps({**summaries[args.port], **({"beside": summaries[args.beside]} if args.beside else {})}))


def pull(args):
    """A full sync pull from no cursor, following `cursor` until `hasMore` is false; median of --runs.
    Each run's pages carry a query parameter of their own (`run`, which the route ignores), so the response
    cache never answers one: every run is a new device's first sync. On PostgreSQL the runs after the first find
    the notes in the pulled notes' cache, as a second device's first sync does; the first run, which reads every
    note from the database, is reported too (`first_ms`).
    The client's own JSON parsing is timed apart: the server's share is the end-to-end time minus it. With
    --beside, the runs alternate with the same pulls from that server, reported under "beside"."""
    def once(port, run):
        parsing = 0.0
        start = time.perf_counter()
        conn = http.client.HTTPConnection(args.host, port)
        cursor, changes, pages = None, 0, 0
        while True:
            body = request(conn, "GET", f"/api/v1/sync/pull?run={run}" + (f"&since={cursor}" if cursor else ""))
            parse_start = time.perf_counter()
            page = loads(body)
            parsing += time.perf_counter() - parse_start
            changes += len(page["changes"])
            pages += 1
            cursor = page["cursor"]
            if not page["hasMore"]:
                break
        conn.close()
        return (time.perf_counter() - start) * 1000, parsing * 1000, changes, pages

    def pulled(runs):
        times, parse_times = [r[0] for r in runs], [r[1] for r in runs]
        shares = [total - parse for total, parse in zip(times, parse_times)]
        return summary(
            times, changes=runs[-1][2], pages=runs[-1][3], first_ms=round(times[0], 1),
            parse_ms=round(statistics.median(parse_times), 1), server_ms=round(statistics.median(shares), 1),
            first_server_ms=round(shares[0], 1))

    alternating(args, once, pulled)


def push(args):
    """Pushes --notes new notes in batches of --batch; times the batches only; median of --runs. With --beside, the
    runs alternate with the same pushes to that server, reported under "beside".

    Each run first creates fresh sources (untimed), so every note is new for its (species, source) pair.
    """
    conns, species = {}, {}
    batches = -(-args.notes // args.batch)

    def once(port, run):
        if port not in conns:
            conns[port] = http.client.HTTPConnection(args.host, port)
            species[port] = [s["scientific_name"] for s in loads(request(conns[port], "GET", "/api/v1/species?limit=1000"))["data"]]
        conn, names = conns[port], species[port]
        sources = [
            loads(request(conn, "POST", "/api/v1/sources", json.dumps(
                {"source_type": "personal", "name": f"Bench push {os.getpid()}-{run}-{i}"}), args.key))["id"]
            for i in range(-(-args.notes // len(names)))]
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        changes = [{
            "id": str(uuid.uuid4()), "op": "upsert", "baseVersion": None, "updatedAt": now,
            "note": {"scientificName": names[i % len(names)], "sourceId": sources[i // len(names)],
                     "fields": {"commonNames": "Bench oak", "leaf": f"Leaf note {i}", "fieldNotes": f"Pushed note {i} of run {run}"}},
        } for i in range(args.notes)]
        bodies = [json.dumps({"changes": changes[i:i + args.batch]}) for i in range(0, len(changes), args.batch)]
        start = time.perf_counter()
        results = [loads(request(conn, "POST", "/api/v1/sync/push", body, args.key))["results"] for body in bodies]
        elapsed = (time.perf_counter() - start) * 1000
        statuses = {r["status"] for batch in results for r in batch}
        if statuses != {"applied"}:
            sys.exit(f"push: expected every change applied, got {statuses}")
        return elapsed

    alternating(args, once, lambda times: summary(times, notes=args.notes, batches=batches))


def urls(args):
    """Writes the URL lists of the read benchmarks: every species record (species.txt), and a mix of every
    species, full record, page of 50 and a search per species (mix.txt); and the ids of the notes the write
    mix edits (notes.txt); prints how many of each."""
    conn = http.client.HTTPConnection(args.host, args.port)
    names = [s["scientific_name"] for s in loads(request(conn, "GET", "/api/v1/species?limit=1000"))["data"]]
    quote = lambda text: urllib.parse.quote(text, safe="")
    species = [f"/api/v1/species/{quote(n)}" for n in names]
    mix = species + [f"{path}/full" for path in species]
    mix += [f"/api/v1/species?limit=50&offset={offset}" for offset in range(0, len(names), 50)]
    mix += [f"/api/v1/search?q={quote(n.replace('× ', '')[:4])}" for n in names]
    listed = loads(request(conn, "GET", "/api/v1/notes"))
    notes = [note["id"] for note in (listed["data"] if isinstance(listed, dict) else listed)]
    for file, lines in (("species.txt", species), ("mix.txt", mix), ("notes.txt", notes)):
        with open(os.path.join(args.dir, file), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(json.dumps({"species": len(species), "mix": len(mix), "distinct_mix": len(set(mix))}))


def combine(args):
    """One wrk result from the JSON lines of several slices of a measure: requests over their total time, the
    worse p50 and p99 of the slices, the errors summed."""
    slices = [json.loads(line) for line in args.lines]
    requests, seconds = sum(s["requests"] for s in slices), sum(s["seconds"] for s in slices)
    print(json.dumps({
        "requests": requests, "seconds": round(seconds, 3), "rps": round(requests / seconds, 1),
        "p50_ms": max(s["p50_ms"] for s in slices), "p99_ms": max(s["p99_ms"] for s in slices),
        "socket_errors": sum(s["socket_errors"] for s in slices), "http_errors": sum(s["http_errors"] for s in slices)}))


# Targets by result name: (field, comparison, limit, label).
TARGETS = {
    "species_alba": [("ratio", ">=", 0.75, "≥ 75% of baseline"), ("p99_ms", "<=", 5.0, "p99 ≤ 5 ms")],
    "species_list": [("ratio", ">=", 0.3, "≥ 30% of baseline")],
    "species_full": [("ratio", ">=", 0.3, "≥ 30% of baseline")],
    "web_species": [("of_species_alba", ">=", 0.5, "≥ 50% of GET /species/alba"), ("p99_ms", "<=", 10.0, "p99 ≤ 10 ms")],
    "export_304": [("ratio", ">=", 0.5, "≥ 50% of baseline")],
    "search": [("ratio", ">=", 0.2, "≥ 20% of baseline")],
    "search_infix": [("ratio", ">=", 0.5, "≥ 50% of baseline")],
    "species_uncached": [("rps", ">=", 25000.0, "≥ 25k req/s")],
    "read_mix": [("rps", ">=", 20000.0, "≥ 20k req/s"), ("p99_ms", "<=", 10.0, "p99 ≤ 10 ms")],
    "write_mix": [("rps", ">=", 10000.0, "≥ 10k req/s"), ("p99_ms", "<=", 10.0, "p99 ≤ 10 ms")],
    "export_rebuild": [("median_ms", "<=", 10.0, "≤ 10 ms")],
    "sync_pull": [("median_ms", "<=", 300.0, "≤ 300 ms (uncached)")],
    "sync_pull_server": [("median_ms", "<=", 80.0, "≤ 80 ms (uncached)")],
    "sync_push": [("median_ms", "<=", 100.0, "≤ 100 ms")],
    "cold_start": [("median_ms", "<=", 50.0, "≤ 50 ms")],
    "peak_rss": [("mb", "<=", 64.0, "≤ 64 MB")],
    "first_sync": [("median_ms", "<=", 500.0, "≤ 500 ms")],
    "first_sync_peak": [("mb", "<=", 60.0, "≤ 60 MB")],
    "no_change_sync": [("median_ms", "<=", 3.0, "≤ 3 ms")],
}


def verdict(name, result):
    """The targets of a result and whether each is met."""
    checks = []
    for field, op, limit, label in TARGETS.get(name, []):
        value = result[field]
        checks.append((label, value >= limit if op == ">=" else value <= limit))
    target = "; ".join(label for label, _ in checks) or "–"
    met = " ".join("yes" if ok else "**no**" for _, ok in checks) or "–"
    return target, met


# Marks a paired measure's label in the table.
PAIRED_MARK = " †"
# Marks a PostgreSQL measure whose runs alternated with SQLite's.
ALTERNATED_MARK = " ‡"


def markdown(results):
    """The results as two markdown tables: wrk endpoints, then end-to-end measures."""
    meta = results["meta"]
    lines = [
        f"Run {meta['date']} ({meta['label']} mode) on {meta['machine']}; {meta['build']} build; wrk 1 thread, {meta['connections']} connections, "
        f"{meta['duration']} per endpoint over loopback; database: {meta['data']} ({meta['db_mb']} MB).",
        "",
        "| Endpoint | req/s | × baseline | p50 ms | p99 ms | Target | Met |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for name, r in results["endpoints"].items():
        target, met = verdict(name, r)
        lines.append(f"| {r['label']} | {r['rps']:,.0f} | {r['ratio']:.2f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {target} | {met} |")
    paired = [r["baseline_rps"] for r in results["endpoints"].values() if "baseline_rps" in r]
    if paired:
        lines += ["", f"{PAIRED_MARK.strip()} Measured in four slices, baseline, endpoint, endpoint, baseline, and the ratio is to the baseline "
                  f"of those slices ({min(paired):,.0f}–{max(paired):,.0f} req/s in this run), so a drift in the machine's speed "
                  "weighs on both sides of it; p50 and p99 are the worse of the endpoint's slices."]
    lines += ["", "| Measure | Result | Target | Met |", "|---|---:|---|---|"]
    for name, r in results["measures"].items():
        target, met = verdict(name, r)
        lines.append(f"| {r['label']} | {r['text']} | {target} | {met} |")
    postgres = results.get("postgres", {})
    if postgres:
        lines += ["", "PostgreSQL beside SQLite, in the same run, on a copy of the same data (`oak migrate`); a private cluster on loopback:", "",
                  "| Measure | PostgreSQL | SQLite | PostgreSQL ÷ SQLite |", "|---|---:|---:|---:|"]
        for name, r in postgres.items():
            lines.append(f"| {r['label']} | {r['postgres']} | {r['sqlite']} | {r['ratio']:.2f} |")
        if any(r["label"].endswith(PAIRED_MARK) for r in postgres.values()):
            lines += ["", f"{PAIRED_MARK.strip()} Both servers running side by side, measured in two rounds of four slices, SQLite, PostgreSQL, "
                      "PostgreSQL, SQLite, so that a drift in the machine's speed weighs on both sides of the ratio; the SQLite server is the one "
                      "above started again on its file after its own runs."]
        if any(r["label"].endswith(ALTERNATED_MARK) for r in postgres.values()):
            lines += ["", f"{ALTERNATED_MARK.strip()} The runs alternate between the two servers, SQLite, PostgreSQL, PostgreSQL, SQLite, …, "
                      "the SQLite one serving a copy of the seeded file made with PostgreSQL's, so that both sides of the ratio ran "
                      "in the same minutes on the same data."]
    return "\n".join(lines)


def report(args):
    """Combines the raw JSON lines of a run into the results file, prints the tables, updates BENCHMARKS.md."""
    raw = [json.loads(line) for line in open(args.raw) if line.strip()]
    by_name = {r["name"]: r for r in raw}
    baseline = by_name["baseline"]["wrk"]["rps"]
    failures = [r["name"] for r in raw for key in ("wrk", "baseline_wrk", "sqlite_wrk")
                if key in r and (r[key]["socket_errors"] or r[key]["http_errors"] or not r[key]["requests"])]
    # A paired measure's ratio is to the baseline measured around it (scripts/bench, `paired`).
    endpoints = {
        r["name"]: {"label": r["label"] + (PAIRED_MARK if "baseline_wrk" in r else ""), **r["wrk"],
                    "ratio": round(r["wrk"]["rps"] / r.get("baseline_wrk", {"rps": baseline})["rps"], 3),
                    **({"baseline_rps": r["baseline_wrk"]["rps"]} if "baseline_wrk" in r else {})}
        for r in raw if "wrk" in r and not r["name"].startswith("pg_")}
    # The page's target is a share of the API's answer for the same species, measured in the same run.
    if "web_species" in endpoints and "species_alba" in endpoints:
        endpoints["web_species"]["of_species_alba"] = round(endpoints["web_species"]["rps"] / endpoints["species_alba"]["rps"], 3)
    postgres = {}
    for r in raw:
        if not r["name"].startswith("pg_"):
            continue
        sqlite = by_name.get(r["name"][3:])
        if sqlite is None:
            continue
        if "wrk" in r:
            # Against the SQLite slices measured around PostgreSQL's (scripts/bench, `versus`) where there are some.
            beside = r.get("sqlite_wrk", sqlite["wrk"])
            postgres[r["name"]] = {"label": r["label"] + " (req/s)" + (PAIRED_MARK if "sqlite_wrk" in r else ""),
                                   "postgres": f"{r['wrk']['rps']:,.0f}", "sqlite": f"{beside['rps']:,.0f}", "ratio": r["wrk"]["rps"] / beside["rps"]}
        else:
            # Against the SQLite runs alternating with PostgreSQL's (scripts/bench, `--beside`) where there are some.
            beside = r.get("beside", sqlite)
            postgres[r["name"]] = {"label": r["label"] + " (median ms)" + (ALTERNATED_MARK if "beside" in r else ""),
                                   "postgres": f"{r['median_ms']:.1f}", "sqlite": f"{beside['median_ms']:.1f}",
                                   "ratio": r["median_ms"] / beside["median_ms"]}
            # The pull's first run apart: PostgreSQL's later runs find the notes in its pulled notes' cache.
            if "first_ms" in r and "first_ms" in beside:
                postgres[r["name"] + "_first"] = {
                    "label": r["label"] + " (first run ms: every note read from the database)" + (ALTERNATED_MARK if "beside" in r else ""),
                    "postgres": f"{r['first_ms']:.1f}", "sqlite": f"{beside['first_ms']:.1f}", "ratio": r["first_ms"] / beside["first_ms"]}
    measures = {}
    for r in raw:
        if r["name"].startswith("pg_"):
            continue
        if "median_ms" in r:
            detail = ", ".join(f"{k.replace('_ms', ' ms')} {r[k]}" for k in ("cold_ms", "first_ms", "changes", "pages", "notes", "batches", "bytes") if k in r)
            measures[r["name"]] = {**r, "text": f"{r['median_ms']:.1f} ms" + (f" ({detail})" if detail else "")}
            if "server_ms" in r:
                measures[r["name"] + "_server"] = {
                    "label": "Full sync pull, server share (end to end minus the client's JSON parsing)",
                    "median_ms": r["server_ms"], "first_server_ms": r["first_server_ms"],
                    "text": f"{r['server_ms']:.1f} ms (median of {len(r['runs_ms'])} runs, first {r['first_server_ms']} ms; end to end {r['median_ms']:.1f} ms, "
                            f"client parsing {r['parse_ms']} ms)"}
        elif "mb" in r:
            start = f" (process started at {r['start_mb']:.1f} MB)" if "start_mb" in r else ""
            measures[r["name"]] = {**r, "text": f"{r['mb']:.1f} MB{start}"}
    results = {"meta": by_name["meta"], "endpoints": endpoints, "measures": measures, "postgres": postgres}
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    table = markdown(results)
    print(table)
    if args.update:
        text = open(args.update).read()
        start, end = "<!-- bench:results -->", "<!-- /bench:results -->"
        text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: f"{start}\n{table}\n{end}", text, flags=re.S)
        with open(args.update, "w") as f:
            f.write(text)
    if failures:
        sys.exit(f"errors or non-2xx/3xx answers in: {', '.join(failures)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(required=True)
    commands.add_parser("free-port", help="print a free loopback port").set_defaults(run=free_port)

    p = commands.add_parser("db-info", help="print a database's row counts and size")
    p.add_argument("--db", required=True)
    p.set_defaults(run=db_info)

    p = commands.add_parser("coldstart", help="time oak serve from spawn to ready")
    p.add_argument("--oak", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--backup-dir", required=True)
    p.add_argument("--runs", type=int, default=5)
    p.set_defaults(run=coldstart)

    for name, run in (("pull", pull), ("push", push)):
        p = commands.add_parser(name, help=f"time a sync {name}")
        p.add_argument("--host", default="127.0.0.1")
        p.add_argument("--port", type=int, required=True)
        p.add_argument("--runs", type=int, default=5)
        p.add_argument("--beside", type=int, help="another server's port: the runs alternate between the two")
        p.set_defaults(run=run)
        if name == "push":
            p.add_argument("--key", required=True)
            p.add_argument("--notes", type=int, default=1000)
            p.add_argument("--batch", type=int, default=100)

    p = commands.add_parser("urls", help="write the URL lists of the read benchmarks")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--dir", required=True)
    p.set_defaults(run=urls)

    p = commands.add_parser("combine", help="combine the wrk JSON lines of a measure's slices into one")
    p.add_argument("lines", nargs="+")
    p.set_defaults(run=combine)

    p = commands.add_parser("report", help="write the results JSON and print the tables")
    p.add_argument("--raw", required=True, help="the run's JSON lines")
    p.add_argument("--out", required=True, help="results JSON to write")
    p.add_argument("--update", help="a markdown file whose bench:results section gets the tables")
    p.set_defaults(run=report)

    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
