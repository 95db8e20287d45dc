"""Storage data paths of Ch. 28 §28.6: IOPS vs bandwidth, Little's law, token reads,
checkpoint windows and restore bounds (Eq. 28.16-28.22, Example 27.2).

Request rates (IOPS) are in ``request/s`` (a plain ``1/s`` is accepted too); a request size is the
payload of one request in bytes. ``S_c`` is a checkpoint's size (byte). Every bound here counts
useful state bytes only: retries, checksums and redundancy coding add back-end traffic (§28.6).

A size over a bandwidth is :func:`fleetcalc.physics.links.transfer_time` (shard interval, window
time, restore bounds); a size over a time is :func:`transfer_bandwidth` (Eq. 28.19, 28.20).
"""
from __future__ import annotations

import numpy as np
import pint

from fleetcalc.core.calculator import WHOLE, anything, calculator, ceil_count, one_value, Param, qty, quantities, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError, UnitMismatch, magnitude, out
from fleetcalc.physics import links

__all__ = [
    "effective_bandwidth", "bandwidth_limit", "in_flight_requests", "aggregate_token_rate",
    "token_read_bandwidth", "request_rate", "requests_for_tokens", "shard_interval",
    "transfer_bandwidth", "checkpoint_average_bandwidth", "checkpoint_window_bandwidth",
    "per_share", "spare_bandwidth", "checkpoint_window_time", "restore_time_lower_bound",
    "restore_time_serial", "restore_bottleneck", "object_count",
]

_STAGES = "list of stage bandwidths (byte/s quantities > 0), or one Quantity array"


class _RequestRate(Param):
    """A request rate, declared in request/s; a plain 1/s quantity is read as requests per second."""

    def check(self, name, value):
        try:
            return super().check(name, value)
        except UnitMismatch:
            try:
                return magnitude(name, value, "1/s", gt=self.gt, ge=self.ge, lt=self.lt, le=self.le)
            except UnitMismatch:
                raise UnitMismatch(f"{name} needs a rate in request/s (e.g. Q_(10000, 'request/s')); "
                                   f"got {value!r}") from None


_AQ = {"iops": "a", "request_size": "q"}   # Eq. 28.16: a requests/s of q bytes each


def _request_rate(*, gt=None, ge=None, doc=""):
    """A request rate parameter (request/s, or 1/s read as requests per second)."""
    return _RequestRate("quantity", "request/s", gt=gt, ge=ge, doc=doc or "a plain 1/s is read as request/s")


@calculator(returns="byte/s", beta_io=qty("byte/s", gt=0, doc="link bandwidth"), iops=_request_rate(gt=0),
            request_size=qty("byte", gt=0),
            equation=eq(r"\beta_{\mathrm{effective}}", "min(beta_io, iops*request_size)", symbols=_AQ,
                        ref="Ch. 28 §28.6, Eq. 28.16", rel="≤"))
def effective_bandwidth(beta_io, iops, request_size):
    """beta_effective <= min(beta_io, a q): the link roof vs the request-rate roof, Ch. 28 Eq. 28.16."""
    return np.minimum(beta_io, iops * request_size)


_ONE_LABEL = "bandwidth_limit returns one label"


@calculator(returns=None, beta_io=one_value(qty("byte/s", gt=0, doc="link bandwidth"), _ONE_LABEL),
            iops=one_value(_request_rate(gt=0), _ONE_LABEL), request_size=one_value(qty("byte", gt=0), _ONE_LABEL),
            equation=no_equation("a classification: which roof of Eq. 28.16 binds, as a name"))
def bandwidth_limit(beta_io, iops, request_size) -> str:
    """Which roof of Eq. 28.16 binds: 'requests' (a q < beta_io), 'link', or 'both' (equal)."""
    b, a, q = float(beta_io), float(iops), float(request_size)
    if np.isclose(a * q, b, rtol=1e-12):
        return "both"
    return "requests" if a * q < b else "link"


@calculator(returns="request", rate=_request_rate(ge=0),
            latency=qty("s", ge=0),
            equation=eq(r"n_{\mathrm{flight}}", "rate*latency", symbols={"rate": "a", "latency": "l"},
                        ref="Ch. 28 §28.6 (queue depth, Little's law: a l)"))
def in_flight_requests(rate, latency):
    """Mean requests in flight ~= a l (Little's law), Ch. 28 §28.6 (queue depth)."""
    return rate * latency


@calculator(returns="token/s", devices=whole(), rate_per_device=qty("token/s", gt=0),
            equation=eq("r_t", "devices*rate_per_device", symbols={"devices": "N", "rate_per_device": r"r_{\mathrm{dev}}"},
                        ref="Ch. 28 §28.6, Eq. 28.17"))
def aggregate_token_rate(devices, rate_per_device):
    """r_t = devices x per-device token rate, Ch. 28 Eq. 28.17 (Example 27.2: 64 x 20000)."""
    return devices * rate_per_device


@calculator(returns="byte/s", token_rate=qty("token/s", ge=0), bytes_per_token=qty("byte/token", gt=0),
            equation=eq(r"\beta_{\mathrm{token}}", "bytes_per_token*token_rate",
                        symbols={"bytes_per_token": r"s_{\mathrm{tok}}", "token_rate": "r_t"},
                        ref="Ch. 28 §28.6, Eq. 28.18"))
def token_read_bandwidth(token_rate, bytes_per_token):
    """beta_token = s_tok r_t, the least read rate for token ids, Ch. 28 Eq. 28.18."""
    return token_rate * bytes_per_token


@calculator(returns="request/s", byte_rate=qty("byte/s", ge=0), request_size=qty("byte", gt=0),
            equation=eq("a", "byte_rate/request_size", symbols={"byte_rate": r"\beta", **_AQ},
                        ref="Ch. 28 §28.6, Example 27.2 (17.067 GiB/s in 64 MiB requests)"))
def request_rate(byte_rate, request_size):
    """Requests per second needed to carry byte_rate in requests of request_size: beta / q (§28.6)."""
    return byte_rate / request_size


@calculator(returns="request/s", token_rate=qty("token/s", ge=0), tokens_per_request=qty("token", gt=0),
            equation=eq("a", "token_rate/tokens_per_request",
                        symbols={"token_rate": "r_t", "tokens_per_request": r"n_{\mathrm{tok}}"},
                        ref="Ch. 28 §28.6, Example 27.2 (1.28e6 / 4096 = 312.5 request/s)"))
def requests_for_tokens(token_rate, tokens_per_request):
    """r_t / tokens per request (Example 27.2: 1.28e6 / 4096 = 312.5 request/s), Ch. 28 §28.6."""
    return token_rate / tokens_per_request


@calculator(returns="s", shard_size=qty("byte", gt=0), byte_rate=qty("byte/s", gt=0, doc="long-run read rate"),
            equation=eq(r"t_{\mathrm{shard}}", "shard_size/byte_rate",
                        symbols={"shard_size": "q", "byte_rate": r"\beta_{\mathrm{token}}"},
                        ref="Ch. 28 §28.6, Example 27.2 (a 64 MiB shard every 13.11 s)"))
def shard_interval(shard_size, byte_rate):
    """Mean time between shard reads at a long-run byte rate: q / beta (Example 27.2, §28.6)."""
    return links.transfer_time.kernel(shard_size, byte_rate)


@calculator(returns="byte/s", size=qty("byte", ge=0), time=qty("s", gt=0),
            equation=eq(r"\beta", "size/time", symbols={"size": "S", "time": "t"},
                        ref="Ch. 28 §28.6, Eq. 28.19/28.20"))
def transfer_bandwidth(size, time):
    """Bandwidth needed to move size bytes in time: size / time (Ch. 28 Eq. 28.19/28.20)."""
    return size / time


@calculator(returns="byte/s", S_c=qty("byte", ge=0, doc="checkpoint size"), period=qty("s", gt=0, doc="time between checkpoints"),
            equation=eq(r"\overline{\beta}_c", "S_c/period", symbols={"period": r"T_{\mathrm{ckpt}}"},
                        ref="Ch. 28 §28.6, Eq. 28.19"))
def checkpoint_average_bandwidth(S_c, period):
    """Long-run mean write rate of periodic checkpoints: S_c / period, Ch. 28 Eq. 28.19."""
    return transfer_bandwidth.kernel(S_c, period)


@calculator(returns="byte/s", S_c=qty("byte", ge=0, doc="checkpoint size"), window=qty("s", gt=0, doc="time allowed to persist it"),
            equation=eq(r"\beta_c", "S_c/window", symbols={"window": r"t_{\mathrm{window}}"},
                        ref="Ch. 28 §28.6, Eq. 28.20"))
def checkpoint_window_bandwidth(S_c, window):
    """Write rate needed to persist S_c within the window: S_c / window, Ch. 28 Eq. 28.20."""
    return transfer_bandwidth.kernel(S_c, window)


@calculator(returns=None, total=anything("a quantity >= 0 in any unit (the result keeps it)"), shares=whole(),
            equation=eq(r"x_{\mathrm{share}}", "total/shares", symbols={"total": "X", "shares": "n"},
                        ref="Ch. 28 §28.6, Example 27.2 (2 TiB over 8 nodes = 256 GiB each)"))
def per_share(total, shares):
    """An evenly split total: total / shares (per node, per process; Example 27.2). Keeps units."""
    if not hasattr(total, "units"):
        raise UnitMismatch(f"total needs a quantity (bytes, byte/s, ...); got the plain number {total!r}")
    mag = magnitude("total", total, str(total.units), ge=0)
    return out(mag / shares, str(total.units))


_SPARE = {"capacity": r"\beta_{\mathrm{path}}", "used": r"\beta_{\mathrm{used}}"}


@calculator(returns="byte/s", capacity=qty("byte/s", gt=0, doc="the shared path"), used=qty("byte/s", ge=0, doc="taken by others"),
            equation=eq(r"\beta_{\mathrm{spare}}", "capacity - used", symbols=_SPARE,
                        ref="Ch. 28 §28.6, Example 27.2 (40 - 24 = 16 GiB/s)"))
def spare_bandwidth(capacity, used):
    """What is left of a shared path: capacity - used (Example 27.2: 40 - 24 = 16 GiB/s)."""
    if np.any(used >= capacity):
        raise InputError(f"used must be < capacity ({np.min(capacity):.6g} byte/s) to leave spare bandwidth; "
                         f"got {np.max(used):.6g} byte/s")
    return capacity - used


@calculator(returns="s", S_c=qty("byte", ge=0, doc="checkpoint size"), capacity=qty("byte/s", gt=0, doc="the shared path"),
            used=qty("byte/s", ge=0, doc="taken by others (nothing by default)"),
            equation=eq(r"t_{c,\min}", "S_c/(capacity - used)", symbols=_SPARE, ref="Ch. 28 §28.6, Eq. 28.21"))
def checkpoint_window_time(S_c, capacity, used=0.0):
    """t_c,min = S_c / (capacity - used): least time to persist S_c on what others leave, Ch. 28 Eq. 28.21."""
    spare = spare_bandwidth.kernel(capacity, used)
    return links.transfer_time.kernel(S_c, spare)


_STAGE_BANDWIDTHS = quantities("byte/s", gt=0, doc=_STAGES)


def _stages(name, stages):
    """The stage bandwidths as one array, stages along axis 0 (a kernel may be called with a plain list)."""
    return np.asarray(stages, dtype=float) if not isinstance(stages, list) else np.stack(np.broadcast_arrays(*stages))


def _stage_times(S_c, stage_bandwidths):
    """S_c / beta_i for every stage (links.transfer_time), stages along axis 0 and then the shape of S_c."""
    b = _stages("stage_bandwidths", stage_bandwidths)
    extra = np.ndim(S_c) - (b.ndim - 1)
    if extra > 0:
        b = b.reshape(b.shape[:1] + (1,) * extra + b.shape[1:])
    try:
        return links.transfer_time.kernel(S_c, b)
    except ValueError:
        raise InputError(f"S_c (shape {np.shape(S_c)}) and each of stage_bandwidths (shape {b.shape[1:]}) "
                         f"must have shapes that broadcast together") from None


@calculator(returns="s", S_c=qty("byte", ge=0, doc="checkpoint size"), stage_bandwidths=_STAGE_BANDWIDTHS,
            equation=eq(r"t_{\mathrm{restore}}", "max(S_c/stage_bandwidths)", symbols={"stage_bandwidths": r"\beta_i"},
                        ref="Ch. 28 §28.6, Eq. 28.22 (stages fully pipelined)", rel="≥"))
def restore_time_lower_bound(S_c, stage_bandwidths):
    """t_restore >= max_i S_c / beta_i over fully pipelined stages (read, network, device load),
    Ch. 28 Eq. 28.22."""
    return np.max(_stage_times(S_c, stage_bandwidths), axis=0)


@calculator(returns="s", S_c=qty("byte", ge=0, doc="checkpoint size"), stage_bandwidths=_STAGE_BANDWIDTHS,
            equation=eq(r"t_{\mathrm{serial}}", "sum(S_c/stage_bandwidths)", symbols={"stage_bandwidths": r"\beta_i"},
                        ref="Ch. 28 §28.6, after Eq. 28.22 (stages one after another)"))
def restore_time_serial(S_c, stage_bandwidths):
    """Transfer time when the stages run one after another: sum_i S_c / beta_i (Ch. 28 §28.6, after Eq. 28.22)."""
    return np.sum(_stage_times(S_c, stage_bandwidths), axis=0)


@calculator(returns=None, stage_bandwidths=_STAGE_BANDWIDTHS,
            equation=no_equation("a search: the index of the slowest stage in a list"))
def restore_bottleneck(stage_bandwidths) -> int:
    """Index of the slowest stage in Eq. 28.22 (the one that sets the pipelined bound)."""
    b = _stages("stage_bandwidths", stage_bandwidths)
    if b.ndim != 1:
        raise InputError("restore_bottleneck takes one bandwidth per stage (no arrays)")
    return int(np.argmin(b))


@calculator(returns=WHOLE, S_c=qty("byte", gt=0, doc="checkpoint size"), object_size=qty("byte", gt=0),
            equation=eq(r"n_{\mathrm{obj}}", "ceil_count(S_c/object_size)", symbols={"object_size": "q"},
                        ref="Ch. 28 §28.6, Example 27.2 (2 TiB / 64 MiB = 32768 objects)"))
def object_count(S_c, object_size):
    """Objects per checkpoint: ceil(S_c / object size) (Example 27.2: 2 TiB / 64 MiB = 32768).
    Returns a whole number (an int, or an int array)."""
    return ceil_count(S_c / object_size)
