"""The node: its bandwidth hierarchy, PCIe tree and local topology, Vol. 2 Ch. 2 §§ Node ...
(seed 001, lines 1919-2046; the cited lines run from the staircase to the stall share).

Symbols follow the Vol. 2 notation: ``D_vol`` bytes moved, ``BW`` a bandwidth (byte/s),
``T`` times. A bandwidth is **one direction** of a full-duplex link unless the
name says ``both_ways``; the book's NVLink "900 GB/s" is both directions summed (line 1931), so
the time to move one buffer one way uses 450 GB/s (line 2193). Where the book itself divides by
900 GB/s (the tensor-parallel AllReduce at line 2034), the notebook says so.

Formulas owned elsewhere are imported, not repeated: T = D/BW is
:func:`fleetcalc.physics.links.transfer_time`; one-way = both-ways / 2 is
:func:`fleetcalc.physics.links.one_way`; the compute share of a step is
:func:`fleetcalc.physics.parallel_scaling.compute_fraction`. The chapter's node reliability (node MTBF,
expected failures, restart overhead) lives in :mod:`fleetcalc.physics.reliability`, its data
feed (prefetch depth, NUMA penalty, step time after a network upgrade) in
:mod:`fleetcalc.physics.pipeline`.
"""
from __future__ import annotations

import functools

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.core.calculator import anything, calculator, num, one_value, qty, quantities, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.units import Quantity, ureg
from fleetcalc.core.validate import InputError, magnitude, nonempty_list, out
from fleetcalc.physics import links

__all__ = [
    "tier_array", "staircase_times", "pcie_encoding", "pcie_link_bandwidth",
    "pcie_generation_bandwidth", "pcie_lanes_left", "aggregate_bandwidth", "per_link_bandwidth",
    "ring_links", "full_mesh_links", "ring_max_hops", "hidden_tensor_bytes", "per_step_comm_time",
    "stall_fraction", "Layout", "layout", "socket_of", "route", "crosses_socket",
]


@functools.lru_cache(maxsize=None)
def _u(name):
    """A parsed unit, cached: pint re-parses prefixed unit strings ("GB", "kW") on every call."""
    return ureg.Unit(name)

# Line encodings of the PCIe generations (PCI-SIG base specifications; the book quotes only
# Gen5's 32 GT/s and ~64 GB/s, lines 1988 and 2008). Gen3-5: 128b/130b; Gen6: FLIT, 242 of
# 256 bytes carry payload (FEC + CRC take the rest).
_ENCODING = {3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 242 / 256}


_seq = nonempty_list


_PCIE_SYMBOLS = {"lanes": r"n_{\mathrm{lanes}}", "rate": r"r_{\mathrm{lane}}", "encoding": r"\eta_{\mathrm{enc}}",
                 "protocol_overhead": r"o_{\mathrm{proto}}", "gen": r"\mathrm{gen}"}

_TIERS = "list of bandwidths (byte/s quantities), fast to slow, or one Quantity array"
_TIER_LIST = quantities("byte/s", ge=0, doc="one bandwidth per tier")


@calculator(returns=None, bandwidths=anything(_TIERS), unit=anything("a bandwidth unit for the result"),
            equation=no_equation("gathers a list of bandwidths into one array in a chosen unit; no formula"))
def tier_array(bandwidths, unit="GB/s"):
    """A list of bandwidth Quantities as one Quantity array in ``unit`` (for plots and sweeps).
    A single Quantity (scalar or array) is taken as the tiers themselves."""
    u = _u(unit)
    if isinstance(bandwidths, Quantity):     # already one Quantity (array): check it as a whole
        return out(np.atleast_1d(magnitude("bandwidths", bandwidths, "byte/s", ge=0)), "byte/s").to(u)
    if not isinstance(bandwidths, (list, tuple, np.ndarray)):
        magnitude("bandwidths", bandwidths, "byte/s", ge=0)    # raises: names the unit wanted
    mags = _TIER_LIST.check("bandwidths", list(bandwidths))        # byte/s, each item checked by name
    if mags.ndim != 1:
        raise InputError(f"bandwidths must be a list of scalar bandwidths; got {bandwidths!r}")
    return out(mags, "byte/s").to(u)


@calculator(returns="s", D_vol=qty("byte", ge=0, doc="bytes moved"), bandwidths=anything(_TIERS),
            equation=no_equation("needs an expression over a list argument: one T = D_vol / BW_i per tier "
                                 "(links.transfer_time shows that equation)"))
def staircase_times(D_vol, bandwidths):
    """Time to move D_vol through each tier of a bandwidth hierarchy: D_vol / BW_i (line 1975).

    ``bandwidths`` is a sequence of byte/s quantities (fast to slow); returns an array of s
    (tiers along axis 0 when D_vol is an array)."""
    bandwidths = _seq("bandwidths", bandwidths, "staircase_times")
    bws = np.array([magnitude(f"bandwidths[{i}]", b, "byte/s", gt=0) for i, b in enumerate(bandwidths)])
    if bws.ndim != 1 or bws.size == 0:
        raise InputError(f"bandwidths must be a non-empty list of scalar bandwidths; got {bandwidths!r}")
    # tiers along axis 0, then the shape of D_vol
    return links.transfer_time.kernel(D_vol, bws.reshape(bws.shape + (1,) * np.ndim(D_vol)))


@calculator(returns="", gen=whole(ge=3, le=6, doc="PCIe generation, 3 to 6"),
            equation=no_equation("a look-up of the PCIe line code by generation (PCI-SIG base specifications)"))
def pcie_encoding(gen):
    """Payload fraction of the PCIe line code: 128/130 for Gen3-5, 242/256 (FLIT) for Gen6
    (PCI-SIG base specs; external to the book). One generation or an array of them."""
    codes = np.array([_ENCODING[g] for g in range(3, 7)])
    return codes[np.asarray(gen, dtype=int) - 3] if np.ndim(gen) else _ENCODING[int(gen)]


@calculator(returns="GB/s", rate=qty("Gbit/s", gt=0, doc="signalling rate per lane"), lanes=whole(),
            encoding=num(gt=0, le=1, doc="payload fraction of the line code"),
            protocol_overhead=num(ge=0, lt=1, doc="share lost to packet headers and flow control"),
            equation=eq(r"\mathrm{BW}_{\mathrm{PCIe}}", "lanes*rate*encoding*(1 - protocol_overhead)",
                        ref="Vol. 2 §2.4, the PCIe hierarchy within a node (PCIe Gen5 x16: ~64 GB/s per direction)",
                        symbols=_PCIE_SYMBOLS))
def pcie_link_bandwidth(rate, lanes=16, encoding=1.0, protocol_overhead=0.0):
    """Per-direction bandwidth of a PCIe link: lanes x rate x encoding x (1 - overhead).

    ``rate`` is the per-lane signalling rate in bit/s (32 Gbit/s for Gen5, line 1988). With the
    defaults (no encoding, no overhead) Gen5 x16 gives the book's "~64 GB/s per direction"
    (line 2008); the book's "~20 percent" protocol overhead (line 1988) leaves ~51 GB/s.
    """
    return lanes * rate * encoding * (1.0 - protocol_overhead)      # rate arrives in byte/s


@calculator(returns="GB/s", gen=whole(ge=3, le=6, doc="PCIe generation, 3 to 6"),
            rate=qty("Gbit/s", gt=0, doc="signalling rate per lane"), lanes=whole(),
            protocol_overhead=num(ge=0, lt=1, doc="share lost to packet headers and flow control"),
            equation=eq(r"\mathrm{BW}_{\mathrm{PCIe}}", "lanes*rate*encoding*(1 - protocol_overhead)",
                        where=[("encoding", "128/130 if gen <= 5 else 242/256")],
                        ref="Vol. 2 §2.4, the PCIe hierarchy within a node; line codes from the PCI-SIG base "
                            "specifications", symbols=_PCIE_SYMBOLS))
def pcie_generation_bandwidth(gen, rate, lanes=16, protocol_overhead=0.0):
    """Per-direction PCIe bandwidth after the generation's line code: :func:`pcie_link_bandwidth`
    with ``encoding = pcie_encoding(gen)`` (Gen5 x16: 63.0 GB/s before protocol overhead)."""
    return pcie_link_bandwidth.kernel(rate, lanes, pcie_encoding.kernel(gen), protocol_overhead)


@calculator(returns="", lanes_available=whole(), devices=whole(ge=0), lanes_per_device=whole(),
            equation=eq(r"n_{\mathrm{left}}", "lanes_available - devices*lanes_per_device",
                        ref="Vol. 2 §2.4, the PCIe hierarchy within a node (2 x 128 lanes, 16 x16 links)",
                        symbols={"lanes_available": r"n_{\mathrm{lanes}}", "devices": r"n_{\mathrm{dev}}",
                                 "lanes_per_device": r"n_{\mathrm{lanes/dev}}"}))
def pcie_lanes_left(lanes_available, devices, lanes_per_device=16):
    """Lanes left on the root complexes: available - devices x lanes per device (line 2010:
    2 x 128 lanes, 8 GPUs + 8 HCAs at x16 each use all 256). Negative means oversubscribed."""
    return lanes_available - devices * lanes_per_device


@calculator(returns="GB/s", links=whole(), per_link=qty("GB/s", gt=0),
            equation=eq(r"\mathrm{BW}_{\mathrm{agg}}", "links*per_link",
                        ref="Vol. 2 §2.4, the PCIe hierarchy within a node; Figure 2.11",
                        symbols={"links": r"n_{\mathrm{links}}", "per_link": r"\mathrm{BW}_{\mathrm{link}}"}))
def aggregate_bandwidth(links, per_link):
    """Sum over identical links: links x per-link bandwidth (line 2010: 16 x16 PCIe links;
    Figure 2.11: 18 NVLinks per GPU). Keep the direction of ``per_link``."""
    return links * per_link


@calculator(returns="GB/s", aggregate=qty("GB/s", gt=0), links=whole(),
            equation=eq(r"\mathrm{BW}_{\mathrm{link}}", "aggregate/links", ref="Vol. 2 §2.4, Figure 2.11",
                        symbols={"links": r"n_{\mathrm{links}}", "aggregate": r"\mathrm{BW}_{\mathrm{agg}}"}))
def per_link_bandwidth(aggregate, links):
    """Per-link bandwidth implied by an aggregate: aggregate / links (900 GB/s / 18 = 50 GB/s)."""
    return aggregate / links


@calculator(returns="", N=whole(ge=3, doc="devices in the ring"),
            equation=eq(r"n_{\mathrm{links}}", "N", ref="Vol. 2 §2.4, dense node design; Figure 2.11"))
def ring_links(N):
    """Links in a ring of N >= 3 devices: N (Figure 2.11 left; line 2020)."""
    return N


@calculator(returns="", N=whole(ge=2, doc="devices"),
            equation=eq(r"n_{\mathrm{links}}", "N*(N - 1)/2", ref="Vol. 2 §2.4, dense node design; Figure 2.11"))
def full_mesh_links(N):
    """Links in a full mesh: N (N - 1) / 2 (line 2022: 28 for 8 GPUs); each device needs N - 1 ports."""
    return N * (N - 1) / 2.0


@calculator(returns="", N=whole(ge=2, doc="devices in the ring"),
            equation=eq(r"h_{\max}", "floor(N/2)", ref="Vol. 2 §2.4, dense node design (4 hops in a ring of 8)"))
def ring_max_hops(N):
    """Hops to the opposite side of a bidirectional ring: floor(N / 2) (line 2022: 4 for 8 GPUs).
    A switched crossbar (NVSwitch) is one hop for every pair."""
    return np.floor(N / 2.0)


@calculator(returns="MB", b=whole(doc="batch"), s=whole(doc="sequence length"), h=whole(doc="hidden size"),
            bytes_per_value=qty("byte", gt=0),
            equation=eq(r"D_{\mathrm{vol}}", "b*s*h*bytes_per_value",
                        ref="Vol. 2 §2.4, the bandwidth hierarchy and dense node design (4 x 2,048 x 12,288 x 2 B)",
                        symbols={"b": "B", "s": "S", "h": "d", "bytes_per_value": r"s_{\mathrm{val}}"}))
def hidden_tensor_bytes(b, s, h, bytes_per_value):
    """Bytes of one activation tensor at a layer or stage boundary: b x s x h x bytes per value
    (lines 1998 and 2034: 4 x 2048 x 12288 x 2 B = 201 MB)."""
    return b * s * h * bytes_per_value


@calculator(returns="ms", t_collective=qty("ms", ge=0, doc="one collective"), layers=whole(),
            passes=whole(doc="2: forward and backward"),
            equation=eq(r"T_{\mathrm{comm}}", "passes*layers*t_collective",
                        ref="Vol. 2 §2.4, dense node design (2 x 96 = 192 AllReduces per step)",
                        symbols={"passes": r"n_{\mathrm{pass}}", "layers": r"N_{L}",
                                 "t_collective": r"t_{\mathrm{coll}}"}))
def per_step_comm_time(t_collective, layers, passes=2):
    """Communication per training step when every layer runs one collective in each pass:
    passes x layers x t (line 2036: 2 x 96 = 192 AllReduces per step)."""
    return passes * layers * t_collective


@calculator(returns="", t_comm=qty("s", ge=0), t_compute=qty("s", ge=0),
            equation=eq(r"f_{\mathrm{stall}}", "t_comm/(t_comm + t_compute)",
                        ref="Vol. 2 §2.4, PCIe vs. NVLink tensor-parallel diagnosis (604 / (604 + 200) = 75.1 %)",
                        symbols={"t_comm": r"T_{\mathrm{comm}}", "t_compute": r"T_{\mathrm{compute}}"}))
def stall_fraction(t_comm, t_compute):
    """Share of wall time the accelerator waits when communication is not overlapped:
    t_comm / (t_comm + t_compute) (line 2046: 604 / (604 + 200) = 75.1 %). Utilisation is
    1 minus this, the same as :func:`fleetcalc.physics.parallel_scaling.compute_fraction` with N = 1."""
    if np.any(t_comm + t_compute <= 0):
        raise InputError(f"t_comm + t_compute must be > 0 s; got {t_comm} s and {t_compute} s")
    return t_comm / (t_comm + t_compute)


# --- the node's component graph: which PCIe/memory route a transfer takes (Ch. 28 Fig. 28.3) ---
# A DGX H100-like node (Vol. 2 §2.6, lines 2010-2012): two CPUs, each a PCIe root complex with two
# PCIe switches; under each switch GPUs and NICs in pairs. Exercise 28.4's slow path is a transfer
# from memory on one socket to a GPU under the other, so it crosses the socket link; its bandwidth
# is :func:`fleetcalc.physics.pipeline.effective_bandwidth_numa`.

class Layout:
    """Components of the node and the links between them (an undirected tree plus the socket link)."""

    def __init__(self, gpus: int, cpus: int, nics: int):
        if cpus != 2:
            raise ValueError(f"cpus must be 2 (a dual-socket node, Fig. 28.3); got {cpus}")
        if gpus < 2 or gpus % 4:
            raise ValueError(f"gpus must be a multiple of 4 (two PCIe switches per socket); got {gpus}")
        if nics != gpus:
            raise ValueError(f"nics must equal gpus (one NIC per GPU, line 2010); got nics={nics}, gpus={gpus}")
        self.gpus, self.cpus, self.nics = gpus, cpus, nics
        per_switch = gpus // (2 * cpus)
        self.parent = {"cpu0": None, "cpu1": None, "dram0": "cpu0", "dram1": "cpu1"}
        for s in range(2 * cpus):
            self.parent[f"sw{s}"] = f"cpu{s // 2}"
            for j in range(per_switch):
                self.parent[f"gpu{s * per_switch + j}"] = f"sw{s}"
                self.parent[f"nic{s * per_switch + j}"] = f"sw{s}"
        self.per_switch = per_switch

    def up(self, node: str) -> list[str]:
        if node not in self.parent:
            raise KeyError(f"no component {node!r} in this node; components: {sorted(self.parent)}")
        path = [node]
        while self.parent[path[-1]] is not None:
            path.append(self.parent[path[-1]])
        return path


def layout(gpus=None, cpus=None, nics=None) -> Layout:
    """The node of the figure; defaults from the catalog's DGX H100 (8 GPUs, 2 CPUs, 8 HCAs)."""
    g = int(hw("dgx_h100.gpus").magnitude) if gpus is None else int(gpus)
    c = int(hw("dgx_h100.cpus").magnitude) if cpus is None else int(cpus)
    n = int(hw("dgx_h100.hcas").magnitude) if nics is None else int(nics)
    return Layout(g, c, n)


def socket_of(lay: Layout, node: str) -> int:
    """Which CPU socket (NUMA node) a component hangs under."""
    return int(lay.up(node)[-1][-1])


def route(lay: Layout, a: str, b: str) -> list[str]:
    """Components a PCIe/memory transfer from ``a`` to ``b`` passes, ends included (no NVLink).

    Up from ``a`` to the first common ancestor and down to ``b``; if the two hang under different
    CPUs, the route goes CPU -> socket link -> CPU.
    """
    ua, ub = lay.up(a), lay.up(b)
    common = next((x for x in ua if x in ub), None)
    if common is not None:
        return ua[:ua.index(common) + 1] + list(reversed(ub[:ub.index(common)]))
    return ua + ["socket link"] + list(reversed(ub))


def crosses_socket(lay: Layout, a: str, b: str) -> bool:
    """True when the transfer a -> b has to cross the socket interconnect (UPI / Infinity Fabric)."""
    return "socket link" in route(lay, a, b)
