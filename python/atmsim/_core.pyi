"""Type stubs of the native module `atmsim._core` (crates/atmsim-py)."""

from typing import Any, TypedDict

__version__: str

# The exception classes are atmsim.errors' own (they pickle); the module re-exports them.
from atmsim.errors import Cancelled as Cancelled
from atmsim.errors import ScenarioError as ScenarioError
from atmsim.errors import SimulationError as SimulationError

class CancelToken:
    """Stops a run from another thread: `cancel()` makes a `run` given this token raise
    `Cancelled` within a few milliseconds."""

    def __init__(self) -> None: ...
    def cancel(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...

class SeriesDict(TypedDict):
    time_s: Any  # numpy.ndarray[float64], n samples
    columns: list[tuple[str, str, str]]  # (kind, entity, metric), c columns
    values: Any  # numpy.ndarray[float64], n * c, row major

class PortInfo(TypedDict):
    """One direction of a link: the output port at `node` towards `to`."""

    name: str  # "node->to", as the results' ports
    node: str
    to: str
    node_kind: str  # "switch" or "host"
    link: int  # index of its [[link]]
    line_rate_bps: float  # as written; a link given by its cell time: 424 bits / cell time
    framing: str  # "sonet" (cells fill 26/27 of the line rate) or "none"
    cell_time_s: float  # as simulated (whole picoseconds)
    cells_per_s: float  # 1 / cell_time_s
    payload_bps: float  # cells_per_s * 384
    delay_s: float  # propagation
    credits: int | None  # AN2 credits per VC on the link
    vc_buffer_cells: int | None  # None: unlimited (always for a host adapter)
    port_buffer_cells: int | None

class ConnectionInfo(TypedDict):
    """One connection's way through the network and what its path allows."""

    name: str
    service: str  # "cbr", "vbr", "abr", "ubr", "gfr"
    source: str  # "tcp", "cbr", "on_off", "greedy"
    tcp_variant: str | None
    path: list[str]  # node names
    route: list[str]  # port names of its data cells
    reverse_route: list[str]  # port names of its ACKs or backward RM cells
    mss_bytes: int | None
    header_bytes: int | None  # TCP/IP 40 (+ 8 LLC/SNAP)
    aal_overhead_bytes: int | None  # AAL5 trailer: 8
    segment_cells: int | None  # cells of a full segment's frame
    ack_cells: int | None  # cells of a bare ACK's frame
    peak_cells_per_s: float | None  # min(source rate, PCR)
    mean_cells_per_s: float | None  # CBR rate, or ON-OFF rate * on / period
    rtt_propagation_s: float
    rtt_switching_s: float
    bottleneck: str  # port name
    bottleneck_cells_per_s: float
    max_goodput_bps: float  # bottleneck cells/s * mss * 8 / segment_cells (cell source: * 384)
    bdp_cells: float  # bottleneck_cells_per_s * rtt_propagation_s
    congestion_control: str | None  # TCP: "reno" or "cubic"; None for a cell source
    ecn: bool | None  # TCP: tcp.ecn; None for a cell source
    hystart: bool | None  # TCP: tcp.hystart; None for a cell source

class Network(TypedDict):
    ports: list[PortInfo]
    connections: list[ConnectionInfo]

class Description(TypedDict):
    nodes: int
    hosts: int
    switches: int
    links: int
    connections: int
    duration_s: float
    warmup_s: float
    seed: int
    estimated_events: float
    estimated_events_largest: str
    max_events: int
    estimated_queued_cells: float
    estimated_queue_largest: str | None
    max_queued_cells: int
    network: Network

def run(
    text: str,
    source: str,
    overrides: list[tuple[str, str]] = ...,
    seed: int | None = None,
    cancel: CancelToken | None = None,
    progress: Any = None,
) -> tuple[str, SeriesDict]:
    """Run a scenario (TOML text); returns (summary JSON, series dict). Releases the GIL;
    every few milliseconds looks for Ctrl-C (KeyboardInterrupt, main thread) and `cancel`,
    and calls `progress(simulated_s, duration_s)` if given."""

def validate(text: str, source: str, overrides: list[tuple[str, str]] = ...) -> str:
    """Validate a scenario; returns its canonical TOML with every default written out."""

def describe(text: str, source: str, overrides: list[tuple[str, str]] = ...) -> Description:
    """Counts of the resolved network's parts, its run settings, its estimated cost, and the
    resolved network in numbers (`network`, atmsim.describe's docstring)."""

class BareRun(TypedDict):
    cell_hops: int
    events: int
    simulated_s: float
    wall_s: float

def bare_loop(text: str, source: str, overrides: list[tuple[str, str]] = ...) -> BareRun:
    """The scenario's network with its cells moved by the engine alone (atmsim bench's
    yardstick); releases the GIL."""

def series_write(columns: int, rows: int) -> float:
    """Seconds to write ``rows`` samples of ``columns`` float64 series values once into fresh
    memory, row by row (atmsim bench's floor for keeping a run's series); releases the GIL."""

def version() -> str:
    """The version of atmsim these bindings were built from."""

def build_id() -> str:
    """SHA-256 (64 hex digits) of the Rust sources these bindings were built from: every file
    under crates/*/src, every crates/*/Cargo.toml, the workspace Cargo.toml and Cargo.lock
    (crates/atmsim-py/build.rs). atmsim.build_id() combines it with the Python code's hash."""

# What the simulator hands to Python plug-ins (docs/plugins.md).

class PortView:
    """A port's queue as a policy plug-in sees it when a cell arrives (or leaves)."""

    @property
    def occupancy(self) -> int: ...  # cells queued in the cell's class
    @property
    def port_limit(self) -> int | None: ...  # that queue's size; None: unlimited
    @property
    def vc_count(self) -> int: ...  # cells of the cell's VC queued
    @property
    def vc_limit(self) -> int | None: ...  # the per-VC limit; None: unlimited
    @property
    def active_vcs(self) -> int: ...  # VCs with cells queued in the class

class RmCell:
    """An RM cell passing a rate-control plug-in's port; at a backward RM cell `er` (only
    lowered), `ci` and `ni` may be set."""

    er: float  # cells/s
    ci: bool
    ni: bool
    @property
    def ccr(self) -> float: ...  # cells/s
    @property
    def mcr(self) -> float: ...  # cells/s
    @property
    def bn(self) -> bool: ...

class Measurement:
    """What a rate-control plug-in's port counted in a measurement interval."""

    @property
    def duration_s(self) -> float: ...
    @property
    def abr_cells(self) -> int: ...  # ABR cells (data and RM) that entered the port
    @property
    def rt_cells(self) -> int: ...  # CBR/VBR cells the port sent
    @property
    def vc_cells(self) -> list[int]: ...  # ABR cells by VC label
