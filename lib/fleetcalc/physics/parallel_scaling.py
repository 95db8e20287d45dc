"""Parallel scaling across a fleet: the fleet law, Amdahl's law and scaling efficiency.

Also the ring all-reduce tax, barrier vs independent throughput, the 3-D parallel device count
and feeding the fleet from storage.

Vol. 2 notation (lines 454, 490, 524) and Ch. 1 Eq. 1.3-1.4, lines 724 and 1018-1035, Part I
principles line 1199 (seed 001; line numbers point into that seed text).

Symbols follow Vol. 2: ``N`` devices, ``T_compute`` the single-device compute time of one step,
``T_comm``/``T_sync``/``T_overlap`` the fleet law's other terms, ``M`` the message payload (bytes).
Ch. 28 writes ``p`` for processes and ``m`` for message bytes; ring all-reduce times come from
:mod:`fleetcalc.physics.collectives` and are imported, not rewritten.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import WHOLE, ceil_count, calculator, fraction, num, qty, whole
from fleetcalc.core.equation import eq
from fleetcalc.core.validate import InputError
from fleetcalc.physics import collectives

__all__ = [
    # fleet law, scaling efficiency
    "fleet_step_time", "compute_fraction", "comm_compute_ratio", "scaling_efficiency", "speedup",
    "amdahl_speedup", "amdahl_limit", "implied_compute_time", "ring_fleet_terms",
    "ring_scaling_efficiency",
    # how many devices, and how busy they stay
    "devices_3d", "storage_utilization", "barrier_throughput", "independent_throughput",
]

_FLEET = dict(T_compute=qty("s", ge=0, doc="single-device compute time of one step"),
              N=whole(doc="devices"), T_comm=qty("s", ge=0, doc="exposed communication time"),
              T_sync=qty("s", ge=0, doc="synchronisation time; None = 0"),
              T_overlap=qty("s", ge=0, doc="communication hidden behind compute; None = 0"))

#: the fleet law's symbols as Vol. 2 writes them (Ch. 1, Eq. 1.3)
_SYM = {"T_comm": r"T_{\mathrm{comm}}(N)", "serial_fraction": "f"}
#: Eq. 1.3 without its optional terms: a worked step is shown only when T_sync and T_overlap are left out
_WITHOUT = "(T_sync = T_overlap = 0)"
#: the ring all-reduce time of the M-byte gradient over N devices, Ch. 28 Eq. 28.12 (0 at N = 1)
_RING_COMM = "2*(N - 1)*alpha + 2*(N - 1)/N * (M/beta_net)"
_RING_WHERE = [("T_comm", _RING_COMM), ("T_overlap", "overlap*min(T_comm, T_compute/N)")]
_RING_REF = "Vol. 2 Ch. 1, Eq. 1.3 (T_sync = 0); Ch. 28 §28.5, Eq. 28.12 (T_comm, p = N, m = M)"


# --------------------------------------------------------------------------------------------
# the fleet law and scaling efficiency (Eq. 1.3, 1.4, line 1018, line 454)


@calculator(returns="s", **_FLEET, equation=eq(
    r"T_{\mathrm{step}}(N)", "T_compute/N + T_comm", symbols=_SYM, ref=f"Vol. 2 Ch. 1, Eq. 1.3 {_WITHOUT}"))
def fleet_step_time(T_compute, N, T_comm, T_sync=None, T_overlap=None):
    """T_step(N) = T_compute/N + T_comm(N) + T_sync(N) - T_overlap, Ch. 1 Eq. 1.3 (the fleet law).

    ``T_compute`` is the single-device compute time of one step; ``T_overlap`` (communication
    hidden behind compute) may not exceed min(T_comm, T_compute/N).
    """
    ts = 0.0 if T_sync is None else T_sync
    to = 0.0 if T_overlap is None else T_overlap
    lim = np.minimum(T_comm, T_compute / N)
    if np.any(to > lim * (1 + 1e-12) + 1e-300):
        raise InputError(
            f"T_overlap must be <= min(T_comm, T_compute/N) = {np.min(lim):.6g} s (only communication "
            f"that runs during compute is hidden, Eq. 1.3); got {to} s")
    return T_compute / N + T_comm + ts - to


@calculator(returns="", **_FLEET, equation=eq(
    r"f_{\mathrm{compute}}", "(T_compute/N)/T_step", where=[("T_step", "T_compute/N + T_comm")],
    symbols={**_SYM, "T_step": r"T_{\mathrm{step}}(N)"}, ref=f"Vol. 2 Ch. 1, Eq. 1.4 with Eq. 1.3 {_WITHOUT}"))
def compute_fraction(T_compute, N, T_comm, T_sync=None, T_overlap=None):
    """f_compute = (T_compute/N) / T_step(N), Ch. 1 Eq. 1.4: the share of wall-clock time doing
    useful math. Below 0.5 more than half of the fleet's silicon idles (line 996)."""
    step = fleet_step_time.kernel(T_compute, N, T_comm, T_sync, T_overlap)
    if np.any(step <= 0):
        raise InputError("T_step must be > 0 s; T_compute, T_comm and T_sync are all zero")
    return (T_compute / N) / step


@calculator(returns="", T_comm=qty("s", ge=0), T_compute=qty("s", gt=0), N=whole(),
            equation=eq(r"\rho", "T_comm/(T_compute/N)", symbols=_SYM,
                        ref="Vol. 2 notation conventions (ρ, the communication-to-computation ratio)"))
def comm_compute_ratio(T_comm, T_compute, N):
    """rho = T_comm(N) / (T_compute / N) (dimensionless), Vol. 2 notation line 454: near or above 1
    the scaling is communication-bound."""
    return T_comm / (T_compute / N)


@calculator(returns="", T_1=qty("s", gt=0, doc="time on one device"), N=whole(),
            T_N=qty("s", gt=0, doc="time on N devices"),
            equation=eq(r"\eta_{\mathrm{scaling}}", "T_1/(N*T_N)",
                        ref="Vol. 2 notation conventions (scaling efficiency); Ch. 1 (the fleet law)"))
def scaling_efficiency(T_1, N, T_N):
    """eta_scaling = T_1 / (N x T_N) <= 1, Vol. 2 notation line 490 and Ch. 1 line 1018.

    Values above 1 (super-linear speed-up, e.g. from cache effects) are returned as computed; the
    book's bound assumes the same work and no such effects.
    """
    return T_1 / (N * T_N)


@calculator(returns="", T_1=qty("s", gt=0), T_N=qty("s", gt=0),
            equation=eq("S(N)", "T_1/T_N", ref="speed-up, the usual definition (Vol. 2 notation conventions: η_scaling = S(N)/N)"))
def speedup(T_1, T_N):
    """S(N) = T_1 / T_N: how many times faster N devices finish the same work (= N eta_scaling)."""
    return T_1 / T_N


@calculator(returns="", N=whole(), serial_fraction=fraction(doc="share of time that does not shrink with N"),
            equation=eq("S(N)", "1/(serial_fraction + (1 - serial_fraction)/N)", symbols=_SYM,
                        ref="Amdahl's law (Vol. 2 Ch. 1: the fleet law is a special form of it)"))
def amdahl_speedup(N, serial_fraction):
    """S(N) = 1 / (f + (1 - f)/N) for a fraction f of time that does not shrink with N (Amdahl's
    law; Ch. 1 line 1022 calls the fleet law a special form of it)."""
    return 1.0 / (serial_fraction + (1.0 - serial_fraction) / N)


@calculator(returns="", serial_fraction=fraction(open_low=True),
            equation=eq(r"S_{\max}", "1/serial_fraction", symbols=_SYM,
                        ref="Amdahl's law as N grows without bound (Vol. 2 Ch. 1: 20 % waiting caps the speed-up at 5x)"))
def amdahl_limit(serial_fraction):
    """S_max = 1 / f as N grows without bound (Ch. 1 line 1022: 20 % waiting on the network caps the
    speed-up at 5x)."""
    return 1.0 / serial_fraction


@calculator(returns="s", f_compute=fraction(open_high=True), T_comm=qty("s", ge=0),
            equation=eq(r"T_{\mathrm{compute}}/N", "f_compute*T_comm/(1 - f_compute)", symbols=_SYM,
                        ref=f"Vol. 2 Ch. 1, Eq. 1.4 solved for T_compute/N {_WITHOUT}"))
def implied_compute_time(f_compute, T_comm):
    """The per-device compute time that gives compute fraction f with exposed communication T_comm:
    f = t/(t + T_comm)  =>  t = f T_comm / (1 - f) (Eq. 1.4 solved for T_compute/N, no sync or
    overlap). Used to recover the input a printed efficiency implies."""
    return f_compute * T_comm / (1.0 - f_compute)


_RING = dict(N=whole(), T_compute=qty("s", gt=0, doc="single-device compute time of one step"),
             M=qty("byte", ge=0, doc="gradient bytes all-reduced per step"),
             alpha=qty("s", ge=0, doc="per-message latency"), beta_net=qty("byte/s", gt=0),
             T_sync=qty("s", ge=0, doc="None = 0"),
             overlap=fraction(doc="share of min(T_comm, T_compute/N) hidden behind compute"))


@calculator(returns={"compute": "s", "comm": "s", "sync": "s", "overlap": "s", "step": "s"}, **_RING, equation={
    "comm": eq(r"T_{\mathrm{comm}}(N)", _RING_COMM, ref=_RING_REF),
    "step": eq(r"T_{\mathrm{step}}(N)", "T_compute/N + T_comm - T_overlap", where=_RING_WHERE, symbols=_SYM,
               ref=_RING_REF)})
def ring_fleet_terms(N, T_compute, M, alpha, beta_net, T_sync=None, overlap=0.0):
    """Fleet-law terms for data parallelism with a ring all-reduce of the M-byte gradient per step.

    T_compute/N is the local math; T_comm(N) = collectives.ring_allreduce_time(N, M, alpha,
    beta_net) (Ch. 28 Eq. 28.12, 2(N-1)/N M bytes per device, Ch. 1 line 748) and 0 at N = 1;
    ``overlap`` in [0, 1] is the share of min(T_comm, T_compute/N) hidden behind compute.
    Returns a dict of Quantities (s): compute, comm, sync, overlap, step.
    """
    ts = 0.0 if T_sync is None else T_sync
    ring = collectives.ring_allreduce_time.kernel(np.maximum(N, 2), M, alpha, beta_net)
    comm = np.where(N >= 2, ring, 0.0)
    local = T_compute / N
    hidden = overlap * np.minimum(comm, local)
    step = local + comm + ts - hidden
    z = 0.0 * step
    return {"compute": local + z, "comm": comm + z, "sync": ts + z, "overlap": hidden + z, "step": step}


@calculator(returns="", **_RING, equation=eq(
    r"\eta_{\mathrm{scaling}}(N)", "T_compute/(N*T_step)",
    where=_RING_WHERE + [("T_step", "T_compute/N + T_comm - T_overlap")],
    symbols={**_SYM, "T_step": r"T_{\mathrm{step}}(N)"},
    ref="Vol. 2 notation conventions (η_scaling, T_1 = T_compute); " + _RING_REF))
def ring_scaling_efficiency(N, T_compute, M, alpha, beta_net, T_sync=None, overlap=0.0):
    """eta_scaling(N) = T_1 / (N T_step(N)) with T_1 = T_compute (one device does not communicate)
    and T_step from :func:`ring_fleet_terms` (Ch. 1 line 1018 with Eq. 1.3): the communication tax
    as a function of fleet size."""
    terms = ring_fleet_terms.kernel(N, T_compute, M, alpha, beta_net, T_sync, overlap)
    return T_compute / (N * terms["step"])


# --------------------------------------------------------------------------------------------
# how many devices, and how busy they stay (lines 524, 724, 1199)


@calculator(returns=WHOLE, d=whole(doc="data-parallel replicas"), p=whole(doc="pipeline stages"),
            t=whole(doc="tensor-parallel degree"),
            equation=eq(r"N_{\mathrm{total}}", "d*p*t", ref="Vol. 2 notation conventions (3-D parallelism)"))
def devices_3d(d, p, t):
    """N_total = d x p x t: data-parallel replicas x pipeline stages x tensor-parallel degree
    (Vol. 2 notation, line 524). A whole number (an int array for array inputs)."""
    return d * p * t


@calculator(returns="", BW_storage=qty("byte/s", ge=0), N_GPU=whole(),
            R_consumption=qty("byte/s", gt=0, doc="bytes each accelerator consumes per second"),
            equation=eq(r"\mathrm{Utilization}", "min(1, BW_storage/(N_GPU*R_consumption))",
                        ref="Vol. 2 fleet principles (the storage invariant)"))
def storage_utilization(BW_storage, N_GPU, R_consumption):
    """Utilization = min(1, BW_storage / (N_GPU x R_consumption)), Vol. 2 Part I principles
    (line 1199): accelerators idle when storage cannot deliver what they consume."""
    return np.minimum(1.0, BW_storage / (N_GPU * R_consumption))


_SLOW = dict(N=whole(doc="workers"), slowdown=num(ge=0, doc="extra time of a slow worker (0.1 = 10 % slower)"),
             n_slow=whole(ge=0, doc="slow workers, <= N"))


def _check_slow(N, n_slow):
    if np.any(n_slow > N):
        raise InputError(f"n_slow must be <= N = {N}; got {n_slow}")


@calculator(returns="", **_SLOW, equation=eq(
    r"X_{\mathrm{barrier}}/X_{\mathrm{ideal}}", "1/(1 + slowdown) if n_slow > 0 else 1",
    ref="Vol. 2 Ch. 1 (Figure 1.4: barrier synchronisation; one 10 % slower node slows the whole cluster by 10 %)"))
def barrier_throughput(N, slowdown, n_slow=1):
    """Cluster throughput relative to ideal when n_slow of N workers take (1 + slowdown) times as
    long and every step waits at a barrier: 1 / (1 + slowdown) if any worker is slow (Ch. 1
    line 724: "a 10 % slower node slows the whole cluster by 10 %")."""
    _check_slow(N, n_slow)
    return np.where(n_slow > 0, 1.0 / (1.0 + slowdown), 1.0) + 0.0 * N


@calculator(returns="", **_SLOW, equation=eq(
    r"X_{\mathrm{indep}}/X_{\mathrm{ideal}}", "(N - n_slow + n_slow/(1 + slowdown))/N",
    ref="Vol. 2 Ch. 1 (Figure 1.4: independent tasks; a straggler delays only its own output)"))
def independent_throughput(N, slowdown, n_slow=1):
    """Throughput relative to ideal when workers run independent tasks (MapReduce, Figure 1.4):
    the slow workers lose only their own share, (N - n_slow + n_slow / (1 + slowdown)) / N."""
    _check_slow(N, n_slow)
    return (N - n_slow + n_slow / (1.0 + slowdown)) / N
