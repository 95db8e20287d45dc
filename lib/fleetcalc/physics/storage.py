"""Storage data paths of Ch. 28 §28.6: IOPS vs bandwidth, Little's law, token reads,
checkpoint windows and restore bounds (Eq. 28.16-28.22, Example 27.2).

Request rates (IOPS) are in ``request/s`` (a plain ``1/s`` is accepted too); a request size is the
payload of one request in bytes. ``S_c`` is a checkpoint's size (byte). Every bound here counts
useful state bytes only: retries, checksums and redundancy coding add back-end traffic (§28.6).
"""
from __future__ import annotations

import numpy as np
import pint

from fleetcalc.core.validate import InputError, UnitMismatch, count, magnitude, out

__all__ = [
    "effective_bandwidth", "bandwidth_limit", "in_flight_requests", "aggregate_token_rate",
    "token_read_bandwidth", "request_rate", "requests_for_tokens", "shard_interval",
    "transfer_bandwidth", "checkpoint_average_bandwidth", "checkpoint_window_bandwidth",
    "per_share", "spare_bandwidth", "checkpoint_window_time", "restore_time_lower_bound",
    "restore_time_serial", "restore_bottleneck", "object_count",
]


def _rate(name, value, **bounds):
    """A request rate in request/s; a plain 1/s quantity is read as requests per second."""
    try:
        return magnitude(name, value, "request/s", **bounds)
    except UnitMismatch:
        try:
            return magnitude(name, value, "1/s", **bounds)
        except UnitMismatch:
            raise UnitMismatch(f"{name} needs a rate in request/s (e.g. Q_(10000, 'request/s')); got {value!r}") from None


def effective_bandwidth(beta_io, iops, request_size):
    """beta_effective <= min(beta_io, a q): the link roof vs the request-rate roof, Ch. 28 Eq. 28.16."""
    b = magnitude("beta_io", beta_io, "byte/s", gt=0)
    a = _rate("iops", iops, gt=0)
    q = magnitude("request_size", request_size, "byte", gt=0)
    return out(np.minimum(b, a * q), "byte/s")


def bandwidth_limit(beta_io, iops, request_size) -> str:
    """Which roof of Eq. 28.16 binds: 'requests' (a q < beta_io), 'link', or 'both' (equal)."""
    b = magnitude("beta_io", beta_io, "byte/s", gt=0)
    a = _rate("iops", iops, gt=0)
    q = magnitude("request_size", request_size, "byte", gt=0)
    for name, v in (("beta_io", b), ("iops", a), ("request_size", q)):
        if np.ndim(v):
            raise InputError(f"bandwidth_limit takes one value per argument (it returns one label); "
                             f"got an array for {name}: {v}")
    b, a, q = float(b), float(a), float(q)
    if np.isclose(a * q, b, rtol=1e-12):
        return "both"
    return "requests" if a * q < b else "link"


def in_flight_requests(rate, latency):
    """Mean requests in flight ~= a l (Little's law), Ch. 28 §28.6 (queue depth)."""
    a = _rate("rate", rate, ge=0)
    l = magnitude("latency", latency, "s", ge=0)
    return out(a * l, "request")


def aggregate_token_rate(devices, rate_per_device):
    """r_t = devices x per-device token rate, Ch. 28 Eq. 28.17 (Example 27.2: 64 x 20000)."""
    n = count("devices", devices)
    r = magnitude("rate_per_device", rate_per_device, "token/s", gt=0)
    return out(n * r, "token/s")


def token_read_bandwidth(token_rate, bytes_per_token):
    """beta_token = s_tok r_t, the least read rate for token ids, Ch. 28 Eq. 28.18."""
    r = magnitude("token_rate", token_rate, "token/s", ge=0)
    s = magnitude("bytes_per_token", bytes_per_token, "byte/token", gt=0)
    return out(r * s, "byte/s")


def request_rate(byte_rate, request_size):
    """Requests per second needed to carry byte_rate in requests of request_size: beta / q (§28.6)."""
    b = magnitude("byte_rate", byte_rate, "byte/s", ge=0)
    q = magnitude("request_size", request_size, "byte", gt=0)
    return out(b / q, "request/s")


def requests_for_tokens(token_rate, tokens_per_request):
    """r_t / tokens per request (Example 27.2: 1.28e6 / 4096 = 312.5 request/s), Ch. 28 §28.6."""
    r = magnitude("token_rate", token_rate, "token/s", ge=0)
    n = magnitude("tokens_per_request", tokens_per_request, "token", gt=0)
    return out(r / n, "request/s")


def shard_interval(shard_size, byte_rate):
    """Mean time between shard reads at a long-run byte rate: q / beta (Example 27.2, §28.6)."""
    q = magnitude("shard_size", shard_size, "byte", gt=0)
    b = magnitude("byte_rate", byte_rate, "byte/s", gt=0)
    return out(q / b, "s")


def transfer_bandwidth(size, time):
    """Bandwidth needed to move size bytes in time: size / time (Ch. 28 Eq. 28.19/28.20)."""
    s = magnitude("size", size, "byte", ge=0)
    t = magnitude("time", time, "s", gt=0)
    return out(s / t, "byte/s")


def checkpoint_average_bandwidth(S_c, period):
    """Long-run mean write rate of periodic checkpoints: S_c / period, Ch. 28 Eq. 28.19."""
    s = magnitude("S_c", S_c, "byte", ge=0)
    t = magnitude("period", period, "s", gt=0)
    return out(s / t, "byte/s")


def checkpoint_window_bandwidth(S_c, window):
    """Write rate needed to persist S_c within the window: S_c / window, Ch. 28 Eq. 28.20."""
    s = magnitude("S_c", S_c, "byte", ge=0)
    t = magnitude("window", window, "s", gt=0)
    return out(s / t, "byte/s")


def per_share(total, shares):
    """An evenly split total: total / shares (per node, per process; Example 27.2). Keeps units."""
    n = count("shares", shares)
    if not hasattr(total, "units"):
        raise UnitMismatch(f"total needs a quantity (bytes, byte/s, ...); got the plain number {total!r}")
    mag = magnitude("total", total, str(total.units), ge=0)
    return out(mag / n, str(total.units))


def spare_bandwidth(capacity, used):
    """What is left of a shared path: capacity - used (Example 27.2: 40 - 24 = 16 GiB/s)."""
    c = magnitude("capacity", capacity, "byte/s", gt=0)
    u = magnitude("used", used, "byte/s", ge=0)
    if np.any(u >= c):
        raise InputError(f"used must be < capacity ({np.min(c):.6g} byte/s) to leave spare bandwidth; got {used}")
    return out(c - u, "byte/s")


def checkpoint_window_time(S_c, capacity, used=None):
    """t_c,min = S_c / (capacity - used): least time to persist S_c on what others leave, Ch. 28 Eq. 28.21."""
    s = magnitude("S_c", S_c, "byte", ge=0)
    spare = capacity if used is None else spare_bandwidth(capacity, used)
    b = magnitude("capacity" if used is None else "capacity - used", spare, "byte/s", gt=0)
    return out(s / b, "s")


def _stages(name, stages):
    if isinstance(stages, pint.Quantity):
        mags = magnitude(name, stages, "byte/s", gt=0)
        return np.atleast_1d(mags)
    if not isinstance(stages, (list, tuple)) or not stages:
        raise InputError(f"{name} needs a non-empty list of bandwidths (byte/s); got {stages!r}")
    return np.stack(np.broadcast_arrays(*[np.asarray(magnitude(f"{name}[{i}]", s, "byte/s", gt=0))
                                           for i, s in enumerate(stages)]))


def restore_time_lower_bound(S_c, stage_bandwidths):
    """t_restore >= max_i S_c / beta_i over fully pipelined stages (read, network, device load),
    Ch. 28 Eq. 28.22."""
    s = magnitude("S_c", S_c, "byte", ge=0)
    b = _stages("stage_bandwidths", stage_bandwidths)
    return out(np.max(s / b, axis=0), "s")


def restore_time_serial(S_c, stage_bandwidths):
    """Transfer time when the stages run one after another: sum_i S_c / beta_i (Ch. 28 §28.6, after Eq. 28.22)."""
    s = magnitude("S_c", S_c, "byte", ge=0)
    b = _stages("stage_bandwidths", stage_bandwidths)
    return out(np.sum(s / b, axis=0), "s")


def restore_bottleneck(stage_bandwidths) -> int:
    """Index of the slowest stage in Eq. 28.22 (the one that sets the pipelined bound)."""
    b = _stages("stage_bandwidths", stage_bandwidths)
    if b.ndim != 1:
        raise InputError("restore_bottleneck takes one bandwidth per stage (no arrays)")
    return int(np.argmin(b))


def object_count(S_c, object_size):
    """Objects per checkpoint: ceil(S_c / object size) (Example 27.2: 2 TiB / 64 MiB = 32768)."""
    s = magnitude("S_c", S_c, "byte", gt=0)
    q = magnitude("object_size", object_size, "byte", gt=0)
    n = np.ceil(s / q - 1e-9)
    return int(n) if np.ndim(n) == 0 else n.astype(int)
