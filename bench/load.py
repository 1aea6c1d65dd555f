"""Load benchmark: many matches played at once over the JSON API, watched over SSE.

Run with ``.venv/bin/python bench/load.py`` (not part of CI; see docs/benchmarks.md).
By default it migrates a fresh SQLite database in a temporary directory, starts uvicorn
on a free loopback port and plays against it; ``--database-url postgresql+psycopg://…``
does the same on PostgreSQL (a fresh database is created on that server and dropped
afterwards), ``--url`` plays against a server that is already running (start it with
``RATE_LIMITS=off``: every client here shares one address).

Each of ``--matches`` matches (Morris, Bobail and Bashni in turn) is played by two HTTP
clients, each with its own seat cookie, making random legal moves: ``GET /legal`` then
``POST /moves`` by the client whose turn it is. One task drives both clients of a match,
so a client only ever moves on its turn: a 409 is counted, and should not happen. A
finished match is followed by a new one. ``--spectators`` event streams per match listen
on ``/matches/{id}/events``. ``--rate`` paces the moves: together the matches offer that
many moves per second (default the target, 300), each at most one move every
``matches / rate`` seconds; ``--rate 0`` moves as fast as the answers come.

Reported, over the measured window only (after every match is created and every stream
subscribed): moves per second, POST /moves round-trip p50/p99, GET /legal p50/p99, SSE
delivery delay (from a move's 200 at its client to the first spectator event whose id is
at least that move's version: events may coalesce; negative when the event arrives
first), errors (non-2xx answers and exceptions), and the CPU used by the server, the
database, this client and the whole machine, also as milliseconds of CPU per move: on a
shared machine that figure moves far less than the rates do.

``--clients N`` splits the matches and the offered rate over N client processes, which
open their windows together (one process near 150 moves/s is a saturated core, and its
own queue would be measured as latency); their figures are merged.

``--py-spy PATH`` samples the server during the window and prints where its CPU went;
``--app-dir`` serves the ``app`` of another checkout (a candidate change) with the same
client. Bounded: ``--seconds`` of play after a setup of at most ``--setup-seconds``, at
most ``--max-moves`` moves, and a timeout on every request.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from harness import ROOT, Server, cpu_seconds, descendants, machine_busy, postgres_postmaster, served
from machine import cpu_model  # bench/: scripts here run with bench/ on sys.path

TARGET_MOVES_PER_SECOND = 300
TARGET_P99_MS = 200
GAMES = ("morris", "bobail", "bashni")
#: Requests that are not event streams: generous, so a slow answer is measured, not lost.
REQUEST_TIMEOUT = httpx.Timeout(30.0)
#: Event streams: idle between moves, with a keep-alive every 15 s from the server.
STREAM_TIMEOUT = httpx.Timeout(30.0, read=60.0)


# ------------------------------------------------------------------ measuring


@dataclass
class Stats:
    move_ms: list[float] = field(default_factory=list)
    legal_ms: list[float] = field(default_factory=list)
    #: (match id, version) -> perf_counter() when that move's 200 arrived
    acked: dict[tuple[str, int], float] = field(default_factory=dict)
    #: match id -> [(event id, perf_counter() at arrival)], in arrival order
    events: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    conflicts: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    games_finished: int = 0
    #: the measured window; moves outside it are made but not counted
    window: tuple[float, float] = (0.0, 0.0)
    #: SSE delays and uncovered moves already worked out (merged from client processes)
    delays: list[float] | None = None
    missed: int = 0

    def in_window(self, moment: float) -> bool:
        return self.window[0] <= moment <= self.window[1]


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def delivery_delays(stats: Stats) -> tuple[list[float], int]:
    """Per acknowledged move: ms from its 200 to the first event id >= its version.

    Negative when the event beat the 200 to the client (the server publishes before it
    writes the answer). Returns the delays and how many moves no event ever covered.
    """
    delays, missed = [], 0
    for (match_id, version), acked_at in stats.acked.items():
        arrival = next((t for ident, t in stats.events.get(match_id, ()) if ident >= version), None)
        if arrival is None:
            missed += 1
        else:
            delays.append((arrival - acked_at) * 1000)
    return delays, missed


@dataclass
class Probe:
    """CPU counters, read when the measured window opens and when it closes."""

    server_root: int | None
    postmaster: int | None

    def read(self) -> dict[str, Any]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "at": time.perf_counter(),
            "server": cpu_seconds(descendants(self.server_root)) if self.server_root else {},
            # Backends come and go: each is counted from its first sighting.
            "postgres": cpu_seconds(descendants(self.postmaster)) if self.postmaster else {},
            "client": usage.ru_utime + usage.ru_stime,
            "machine": machine_busy()[0],
        }

    def cores(self, start: dict[str, Any], end: dict[str, Any]) -> dict[str, float | None]:
        """CPU used between two readings, in cores (1.0 = one core busy all the time);
        None for what this run cannot see (a server given by ``--url``, a remote database)."""
        seconds = end["at"] - start["at"]

        def spent(name: str) -> float:
            return sum(v - start[name].get(pid, 0.0) for pid, v in end[name].items())

        return {
            "server_cores": spent("server") / seconds if self.server_root else None,
            "postgres_cores": spent("postgres") / seconds if self.postmaster else None,
            "client_cores": (end["client"] - start["client"]) / seconds,
            "machine_busy_cores": (end["machine"] - start["machine"]) / seconds,
        }


# ------------------------------------------------------------------ the clients


class Pace:
    """At most one move every ``interval`` seconds for one match slot (0: no limit).

    A slot that falls behind does not burst to catch up, so the achieved rate shows what
    the server sustained; the first move is at a random phase, so the slots spread out.
    """

    def __init__(self, interval: float, rng: random.Random) -> None:
        self.interval = interval
        self.rng = rng
        self.next_at: float | None = None

    async def wait(self) -> None:
        if self.interval <= 0:
            return
        now = time.perf_counter()
        if self.next_at is None:
            self.next_at = now + self.rng.uniform(0, self.interval)
        if self.next_at > now:
            await asyncio.sleep(self.next_at - now)
        self.next_at = max(self.next_at, time.perf_counter()) + self.interval


@dataclass
class Run:
    base_url: str
    stats: Stats
    seconds: float
    max_moves: int
    seed: int
    #: total moves per second offered over all matches (0: as fast as the server answers)
    rate: float
    spectators: int
    games: tuple[str, ...]
    ready: asyncio.Event
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    matches_wanted: int = 0
    ready_count: int = 0
    matches: int = 0
    #: shared by every spectator: one connection per stream
    watchers: httpx.AsyncClient | None = None
    #: every spectator task still running, hung up at the end
    streams: set[asyncio.Task[None]] = field(default_factory=set)


def record_error(stats: Stats, what: str, response: httpx.Response | None, exc: BaseException | None) -> None:
    if exc is not None:
        stats.errors[f"{what}: {type(exc).__name__}"] += 1
    elif response is not None:
        stats.errors[f"{what}: HTTP {response.status_code}"] += 1


async def watch(run: Run, match_id: str, subscribed: asyncio.Event) -> None:
    """One spectator's event stream: record each event's id and arrival time."""
    assert run.watchers is not None
    arrivals = run.stats.events.setdefault(match_id, [])
    try:
        async with run.watchers.stream("GET", f"/matches/{match_id}/events") as response:
            if response.status_code != 200:
                record_error(run.stats, "events", response, None)
                return
            async for line in response.aiter_lines():
                if line.startswith("retry:"):
                    subscribed.set()  # sent from inside the broker's subscription
                elif line.startswith("id: "):
                    arrivals.append((int(line[4:]), time.perf_counter()))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        if not run.stopping.is_set():
            record_error(run.stats, "events", None, exc)
    finally:
        subscribed.set()


async def start_match(
    run: Run, game: str, alice: httpx.AsyncClient, bob: httpx.AsyncClient
) -> tuple[str, dict[str, httpx.AsyncClient]] | None:
    """A match created by Alice and joined by Bob: its id and the client of each side."""
    stats = run.stats
    try:
        created = await alice.post("/api/matches", json={"game": game, "name": "Alice", "side": "random"})
        if created.status_code != 201:
            record_error(stats, "create", created, None)
            return None
        match_id = created.json()["id"]
        joined = await bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
        if joined.status_code != 200:
            record_error(stats, "join", joined, None)
            return None
    except httpx.HTTPError as exc:
        record_error(stats, "create/join", None, exc)
        return None
    return match_id, {created.json()["seat"]: alice, joined.json()["seat"]: bob}


async def play_one_move(
    run: Run, match_id: str, clients: dict[str, httpx.AsyncClient], state: dict[str, Any], rng: random.Random
) -> dict[str, Any] | None:
    """The side to move asks for its legal moves and plays one at random; the new state."""
    stats = run.stats
    client = clients[state["to_move"]]
    try:
        began = time.perf_counter()
        legal = await client.get(f"/api/matches/{match_id}/legal")
        answered = time.perf_counter()
        if legal.status_code != 200:
            record_error(stats, "legal", legal, None)
            return None
        if run.stats.in_window(answered):
            stats.legal_ms.append((answered - began) * 1000)
        body = legal.json()
        if not body["moves"]:
            return None
        move = rng.choice(body["moves"])
        began = time.perf_counter()
        response = await client.post(
            f"/api/matches/{match_id}/moves", json={"move": move, "ply": body["ply"]}
        )
        answered = time.perf_counter()
    except httpx.HTTPError as exc:
        record_error(stats, "move", None, exc)
        return None
    if response.status_code == 409:
        stats.conflicts += 1
        return None
    if response.status_code != 200:
        record_error(stats, "move", response, None)
        return None
    new_state = response.json()
    if stats.in_window(answered):
        stats.moves += 1
        stats.move_ms.append((answered - began) * 1000)
        # No one else moves in this match meanwhile, so the answer's version is this move's.
        stats.acked[(match_id, new_state["version"])] = answered
    return new_state


async def drive(run: Run, index: int) -> None:
    """One match slot: play matches one after another until the run stops."""
    rng = random.Random(run.seed * 1000003 + index)
    pace = Pace(run.matches_wanted / run.rate if run.rate > 0 else 0.0, rng)
    game = run.games[index % len(run.games)]
    first_game = True
    async with (
        httpx.AsyncClient(base_url=run.base_url, timeout=REQUEST_TIMEOUT) as alice,
        httpx.AsyncClient(base_url=run.base_url, timeout=REQUEST_TIMEOUT) as bob,
    ):
        while not run.stopping.is_set():
            started = await start_match(run, game, alice, bob)
            if started is None:
                await asyncio.sleep(0.5)  # counted as an error; do not spin on it
                if first_game:
                    break
                continue
            match_id, clients = started
            run.matches += 1
            watchers = []
            for _ in range(run.spectators):
                subscribed = asyncio.Event()
                task = asyncio.create_task(watch(run, match_id, subscribed))
                run.streams.add(task)
                task.add_done_callback(run.streams.discard)
                watchers.append((task, subscribed))
            for _task, subscribed in watchers:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(subscribed.wait(), timeout=30)
            if first_game:
                first_game = False
                run.ready_count += 1
                await run.ready.wait()
            try:
                await play_match(run, match_id, clients, rng, pace)
            finally:
                # The spectators hang up a second later (their last event may be on its
                # way), while this slot already starts its next match.
                loop = asyncio.get_running_loop()
                for task, _subscribed in watchers:
                    loop.call_later(1.0, task.cancel)


async def play_match(
    run: Run, match_id: str, clients: dict[str, httpx.AsyncClient], rng: random.Random, pace: Pace
) -> None:
    stats = run.stats
    try:
        state = (await clients[next(iter(clients))].get(f"/api/matches/{match_id}")).json()
    except httpx.HTTPError as exc:
        record_error(stats, "state", None, exc)
        return
    failures = 0
    while state["status"] == "playing" and not run.stopping.is_set():
        if stats.moves >= run.max_moves:
            run.stopping.set()
            break
        await pace.wait()
        if run.stopping.is_set():
            break
        new_state = await play_one_move(run, match_id, clients, state, rng)
        if new_state is None:
            failures += 1
            if failures > 3:
                return  # this match is broken (counted); start another
            await asyncio.sleep(0.1)
            with contextlib.suppress(httpx.HTTPError, ValueError):
                state = (await clients[state["to_move"]].get(f"/api/matches/{match_id}")).json()
            continue
        state = new_state
    if state["status"] == "finished":
        stats.games_finished += 1


async def bench(
    args: argparse.Namespace,
    base_url: str,
    probe: Probe,
    on_open: Callable[[], None] = lambda: None,
    barrier: Callable[[], Awaitable[None]] | None = None,
) -> tuple[Stats, dict[str, float | None]]:
    stats = Stats()
    run = Run(
        base_url=base_url,
        stats=stats,
        seconds=args.seconds,
        max_moves=args.max_moves,
        seed=args.seed,
        rate=args.rate,
        spectators=args.spectators,
        games=tuple(args.games.split(",")),
        ready=asyncio.Event(),
        matches_wanted=args.matches,
    )
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=base_url, timeout=STREAM_TIMEOUT, limits=limits) as watchers:
        run.watchers = watchers
        # Until the window opens no move is counted: stats.window is (0, 0) until then.
        # The matches start ten at a time, so the setup is not one burst of 600 requests.
        tasks = []
        for index in range(args.matches):
            tasks.append(asyncio.create_task(drive(run, index)))
            if index % 10 == 9:
                await asyncio.sleep(0.05)
        setup_deadline = time.perf_counter() + args.setup_seconds
        while run.ready_count < args.matches and time.perf_counter() < setup_deadline:
            if all(task.done() for task in tasks):
                break
            await asyncio.sleep(0.1)
        if run.ready_count < args.matches:
            print(f"only {run.ready_count} of {args.matches} matches ready in time", file=sys.stderr)
        if barrier is not None:
            await barrier()  # the other client processes open their windows at the same moment
        start = probe.read()
        on_open()
        opened = start["at"]
        stats.window = (opened, opened + args.seconds)
        run.ready.set()
        while time.perf_counter() < stats.window[1] and not run.stopping.is_set():
            await asyncio.sleep(0.1)
        end = probe.read()
        stats.window = (opened, end["at"])
        run.stopping.set()
        # In-flight requests finish (each has a timeout); the drivers then hang up.
        done, pending = await asyncio.wait(tasks, timeout=60)
        for task in pending:
            task.cancel()
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                stats.errors[f"driver: {type(task.exception()).__name__}"] += 1
        for stream in list(run.streams):
            stream.cancel()
        await asyncio.gather(*run.streams, return_exceptions=True)
    return stats, probe.cores(start, end)


# ------------------------------------------------------------------ profiling


def start_profiler(py_spy: str, pid: int, seconds: float, output: Path) -> subprocess.Popen[bytes]:
    """py-spy sampling the server (and its worker processes) for the measured window.

    Not a dependency of the project: install it anywhere (``pip install py-spy``) and
    pass its path. ``--nonblocking`` samples without pausing the server, so the figures
    of a profiled run stay close to an unprofiled one.
    """
    # --gil: only samples that hold the GIL, i.e. where the server's CPU goes (one
    # process runs Python on one core at a time, whatever its thread count).
    command = [py_spy, "record", "--pid", str(pid), "--subprocesses", "--gil", "--nonblocking"]
    command += ["--rate", "100"]
    command += ["--duration", str(max(1, int(seconds))), "--format", "raw", "--output", str(output)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def profile_summary(raw: Path, top: int = 30) -> str:
    """The functions the server's threads spent their samples in, from py-spy's raw
    (collapsed) stacks: inclusive (anywhere on the stack) and self (innermost) shares.

    Idle threads (waiting for work, for the event loop's selector) are left out, so the
    shares are of the time the server was doing something.
    """
    idle = ("wait (threading.py", "select (selectors.py", "_worker (concurrent/futures/thread.py")
    inclusive: Counter[str] = Counter()
    innermost: Counter[str] = Counter()
    busy = 0
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = [f.split(":")[0] + ")" if ":" in f else f for f in stack.split(";")]
        if any(frames[-1].startswith(mark) for mark in idle):
            continue
        count = int(count_text)
        busy += count
        for frame in set(frames):
            inclusive[frame] += count
        innermost[frames[-1]] += count
    lines = [f"busy samples: {busy}", "inclusive:"]
    lines += [f"  {100 * n / busy:5.1f}%  {frame}" for frame, n in inclusive.most_common(top)]
    lines += ["self:"]
    lines += [f"  {100 * n / busy:5.1f}%  {frame}" for frame, n in innermost.most_common(top)]
    return "\n".join(lines)


# ------------------------------------------------------------------ client processes
#
# One asyncio process drives every match by default, and near 150 moves/s it uses a whole
# core: the latencies it reports then include its own queue. ``--clients N`` splits the
# matches and the offered rate over N processes (each this script with ``--url``). They
# set up their matches, wait at a barrier of files, and open their windows at one moment,
# in which this process reads the server's CPU; their raw figures are then merged.


def barrier_of(folder: Path, index: int) -> Callable[[], Awaitable[None]]:
    async def wait() -> None:
        (folder / f"ready-{index}").touch()
        go = folder / "go"
        while not go.exists():
            await asyncio.sleep(0.05)
        await asyncio.sleep(max(0.0, float(go.read_text()) - time.perf_counter()))

    return wait


def raw_figures(stats: Stats, cpu: dict[str, float | None]) -> dict[str, Any]:
    delays, missed = delivery_delays(stats)
    seconds = stats.window[1] - stats.window[0]
    return {
        "move_ms": stats.move_ms,
        "legal_ms": stats.legal_ms,
        "delays": delays,
        "missed": missed,
        "conflicts": stats.conflicts,
        "errors": dict(stats.errors),
        "moves": stats.moves,
        "games_finished": stats.games_finished,
        "client_cpu_seconds": (cpu["client_cores"] or 0.0) * seconds,
    }


def run_clients(
    args: argparse.Namespace, base_url: str, probe: Probe, folder: Path
) -> tuple[Stats, dict[str, float | None]]:
    """Play with ``args.clients`` processes; their merged figures, and the CPU of the window."""
    n = args.clients
    children = []
    for index in range(n):
        command = [sys.executable, str(Path(__file__).resolve()), "--url", base_url]
        command += ["--matches", str(args.matches // n + (index < args.matches % n))]
        command += ["--rate", str(args.rate / n), "--seconds", str(args.seconds)]
        command += ["--spectators", str(args.spectators), "--games", args.games]
        command += ["--seed", str(args.seed + index)]
        command += ["--setup-seconds", str(args.setup_seconds), "--max-moves", str(args.max_moves // n)]
        command += ["--barrier", str(folder), "--child-index", str(index)]
        command += ["--raw", str(folder / f"raw-{index}.json")]
        children.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
    deadline = time.perf_counter() + args.setup_seconds + 60
    while len(list(folder.glob("ready-*"))) < n:
        if time.perf_counter() > deadline or any(c.poll() is not None for c in children):
            for child in children:
                child.kill()
            raise SystemExit("the client processes did not all get ready")
        time.sleep(0.05)
    opened = time.perf_counter() + 0.3
    (folder / "go").write_text(repr(opened))
    time.sleep(max(0.0, opened - time.perf_counter()))
    start = probe.read()
    time.sleep(args.seconds)
    end = probe.read()
    for child in children:
        child.wait(timeout=args.seconds + 120)
    stats = Stats(window=(start["at"], end["at"]), delays=[])
    client_seconds = 0.0
    for index in range(n):
        part = json.loads((folder / f"raw-{index}.json").read_text())
        stats.move_ms += part["move_ms"]
        stats.legal_ms += part["legal_ms"]
        assert stats.delays is not None
        stats.delays += part["delays"]
        stats.missed += part["missed"]
        stats.conflicts += part["conflicts"]
        stats.errors.update(part["errors"])
        stats.moves += part["moves"]
        stats.games_finished += part["games_finished"]
        client_seconds += part["client_cpu_seconds"]
    cpu = probe.cores(start, end)
    cpu["client_cores"] = client_seconds / (end["at"] - start["at"])
    return stats, cpu


# ------------------------------------------------------------------ reporting


def summary(stats: Stats, cpu: dict[str, float | None], args: argparse.Namespace) -> dict[str, Any]:
    seconds = stats.window[1] - stats.window[0]
    delays, missed = delivery_delays(stats) if stats.delays is None else (stats.delays, stats.missed)
    return {
        "database": args.database_label,
        "workers": args.workers,
        "matches": args.matches,
        "spectator_streams": args.matches * args.spectators,
        "seconds": round(seconds, 1),
        "offered_moves_per_second": args.rate or "unpaced",
        "moves": stats.moves,
        "moves_per_second": round(stats.moves / seconds, 1) if seconds > 0 else 0.0,
        "move_p50_ms": round(percentile(stats.move_ms, 0.50), 1),
        "move_p99_ms": round(percentile(stats.move_ms, 0.99), 1),
        "move_max_ms": round(max(stats.move_ms, default=float("nan")), 1),
        "legal_p50_ms": round(percentile(stats.legal_ms, 0.50), 1),
        "legal_p99_ms": round(percentile(stats.legal_ms, 0.99), 1),
        "sse_delay_p50_ms": round(percentile(delays, 0.50), 1),
        "sse_delay_p99_ms": round(percentile(delays, 0.99), 1),
        "sse_events_missing": missed,
        "conflicts_409": stats.conflicts,
        "errors": sum(stats.errors.values()),
        "error_kinds": dict(stats.errors),
        "games_finished": stats.games_finished,
        **{f"cpu_{name}": None if value is None else round(value, 2) for name, value in cpu.items()},
        # What one move costs the server (its /legal, its POST, its events), whatever else
        # runs on the machine: the figure to compare between versions of the app.
        "server_cpu_ms_per_move": per_move(cpu["server_cores"], seconds, stats.moves),
        "postgres_cpu_ms_per_move": per_move(cpu["postgres_cores"], seconds, stats.moves),
        "client_cpu_ms_per_move": per_move(cpu["client_cores"], seconds, stats.moves),
    }


def per_move(cores: float | None, seconds: float, moves: int) -> float | None:
    """Milliseconds of CPU per move counted, from cores used over the window."""
    if cores is None or not moves:
        return None
    return round(1000 * cores * seconds / moves, 2)


def machine() -> dict[str, Any]:
    return {
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "nproc": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="an already running server (else one is started here)")
    parser.add_argument("--database-url", help="default: a fresh SQLite file in a temporary directory")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (SQLite: 1)")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--spectators", type=int, default=1, help="event streams per match")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the measured window")
    parser.add_argument(
        "--rate",
        type=float,
        default=TARGET_MOVES_PER_SECOND,
        help="moves per second offered over all matches; 0: as fast as the server answers",
    )
    parser.add_argument("--setup-seconds", type=float, default=120.0)
    parser.add_argument("--max-moves", type=int, default=200_000)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="append the result as one JSON line to this file")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="serve the app of another checkout")
    parser.add_argument("--uvicorn-args", default="", help='more uvicorn options, e.g. "--http httptools"')
    parser.add_argument("--py-spy", help="path of a py-spy executable: profile the server's window")
    parser.add_argument("--profile", type=Path, help="where py-spy writes its raw stacks")
    parser.add_argument("--clients", type=int, default=1, help="client processes sharing the matches")
    # set by --clients for each client process
    parser.add_argument("--barrier", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--raw", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.seconds > 600:
        parser.error("--seconds must be in (0, 600]")

    if args.workers > 1 and not args.url and not (args.database_url or "").startswith("postgresql"):
        # The in-process event broker does not cross processes: SSE would go quiet.
        parser.error("SQLite serves one process: use --workers 1")

    with contextlib.ExitStack() as cleanup:
        workdir = cleanup.enter_context(tempfile.TemporaryDirectory(prefix="tablero-load-"))
        server: Server | None = None
        postmaster: int | None = None
        if args.url:
            base_url = args.url.rstrip("/")
            args.database_label = "given server"
        else:
            extra = args.uvicorn_args.split()
            # A new database (PostgreSQL: on that server), dropped at exit.
            server = cleanup.enter_context(
                served(args.database_url, workers=args.workers, app_dir=args.app_dir, uvicorn_args=extra)
            )
            if server.database_url.startswith("postgresql"):
                postmaster = postgres_postmaster(server.database_url)
            args.database_label = server.database_url.split(":", 1)[0]
            base_url = server.url
        info = machine()
        server_pid = server.process.pid if server and server.process else None
        probe = Probe(server_pid, postmaster)
        profiler: list[subprocess.Popen[bytes]] = []
        raw = args.profile or Path(workdir) / "profile.txt"

        def on_open() -> None:
            if args.py_spy and server_pid:
                profiler.append(start_profiler(args.py_spy, server_pid, args.seconds, raw))

        if args.clients > 1:
            stats, cpu = run_clients(args, base_url, probe, Path(workdir))
        else:
            barrier = barrier_of(args.barrier, args.child_index) if args.barrier else None
            stats, cpu = asyncio.run(bench(args, base_url, probe, on_open, barrier))
            if args.raw:
                args.raw.write_text(json.dumps(raw_figures(stats, cpu)))
        for process in profiler:
            process.wait(timeout=args.seconds + 60)
            if raw.exists():
                print(profile_summary(raw), file=sys.stderr)
        result = {
            **info,
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
            **summary(stats, cpu, args),
        }
        result["command"] = " ".join([Path(sys.executable).name, "bench/load.py", *(argv or sys.argv[1:])])
        met = (
            result["moves_per_second"] >= TARGET_MOVES_PER_SECOND
            and result["move_p99_ms"] < TARGET_P99_MS
            and result["errors"] == 0
            and result["conflicts_409"] == 0
        )
        result["target_met"] = met
        print(json.dumps(result, indent=2))
        if args.json:
            with args.json.open("a", encoding="utf-8") as out:
                out.write(json.dumps(result) + "\n")
        return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
