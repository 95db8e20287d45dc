"""Deadline, devices, power, energy, cost and serving replicas: Ch. 28 §28.9, Example 27.3
(Eq. 28.26-28.27).

A per-device token rate is an *end-to-end effective* rate (communication, checkpoint and failure
losses already included, as Example 27.3 stipulates): do not multiply it by the same loss again.
Currency is the book's abstract unit ``cu`` (货币单位).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics.storage import aggregate_token_rate, in_flight_requests
from fleetcalc.core.validate import count, magnitude, out

__all__ = [
    "training_time", "devices_lower_bound", "devices_for_deadline", "round_up_to_nodes",
    "it_power", "facility_power", "energy", "electricity_cost", "device_hour_cost",
    "replica_throughput", "replicas_needed", "kv_capacity_requests", "aggregate_token_rate",
    "in_flight_requests",
]


def _ceil(x):
    c = np.ceil(np.asarray(x) - 1e-9 * np.maximum(np.abs(x), 1.0))
    return int(c) if np.ndim(c) == 0 else c.astype(int)


def _whole(k):
    """A checked count as int (scalar) or int array."""
    return int(k) if np.ndim(k) == 0 else np.asarray(k).astype(int)


def training_time(tokens, devices, rate_per_device):
    """T = tokens / (devices x per-device effective token rate), Ch. 28 Eq. 28.27."""
    n = magnitude("tokens", tokens, "token", gt=0)
    d = count("devices", devices)
    r = magnitude("rate_per_device", rate_per_device, "token/s", gt=0)
    return out(n / (d * r), "s")


def devices_lower_bound(tokens, deadline, rate_per_device):
    """Continuous device count that meets the deadline: tokens / (rate x deadline) (Example 27.3: 61.73)."""
    n = magnitude("tokens", tokens, "token", gt=0)
    t = magnitude("deadline", deadline, "s", gt=0)
    r = magnitude("rate_per_device", rate_per_device, "token/s", gt=0)
    return out(n / (r * t), "")


def round_up_to_nodes(devices, per_node):
    """Whole nodes: ceil(devices / per_node) x per_node (Example 27.3: 62 -> 64 on 8-device nodes)."""
    d = count("devices", devices)
    k = _whole(count("per_node", per_node))
    return _ceil(d / k) * k


def devices_for_deadline(tokens, deadline, rate_per_device, per_node=1):
    """Least whole devices (rounded up to whole nodes of ``per_node``) that finish ``tokens`` by
    ``deadline`` (Ch. 28 Eq. 28.27 solved for the device count, Example 27.3)."""
    lb = devices_lower_bound(tokens, deadline, rate_per_device).magnitude
    k = _whole(count("per_node", per_node))
    whole = _ceil(lb)
    return _ceil(np.asarray(whole) / k) * k


def it_power(node_power, nodes, other_power):
    """IT power = nodes x node power + network/storage power (Example 27.3: 8 x 8 + 20 = 84 kW)."""
    p = magnitude("node_power", node_power, "W", ge=0)
    n = count("nodes", nodes, ge=0)
    o = magnitude("other_power", other_power, "W", ge=0)
    return out(n * p + o, "W").to("kW")


def facility_power(it_power, pue):
    """Facility power = PUE x IT power (PUE = facility energy / IT energy, Ch. 28 §28.9)."""
    p = magnitude("it_power", it_power, "W", ge=0)
    u = magnitude("pue", pue, "", ge=1)
    return out(p * u, "W").to("kW")


def energy(power, time):
    """E = integral of P dt = P T for a constant power, Ch. 28 Eq. 28.26."""
    p = magnitude("power", power, "W", ge=0)
    t = magnitude("time", time, "s", ge=0)
    return out(p * t / 3.6e6, "kWh")


def electricity_cost(energy, price):
    """Energy bill = E x price (price in cu/kWh; Example 27.3: 28000 kWh x 0.8 = 22400 cu)."""
    e = magnitude("energy", energy, "kWh", ge=0)
    c = magnitude("price", price, "cu/kWh", ge=0)
    return out(e * c, "cu")


def device_hour_cost(devices, time, price):
    """Depreciation + maintenance = devices x hours x price per device-hour (Example 27.3: 88888.89 cu)."""
    d = count("devices", devices)
    t = magnitude("time", time, "hour", ge=0)
    c = magnitude("price", price, "cu/device/hour", ge=0)
    return out(d * t * c, "cu")


def replica_throughput(output_rate, mean_output_tokens):
    """Requests/s one replica can finish: output token rate / mean output tokens (Example 27.3: 800/400 = 2)."""
    r = magnitude("output_rate", output_rate, "token/s", gt=0)
    n = magnitude("mean_output_tokens", mean_output_tokens, "token/request", gt=0)
    return out(r / n, "request/s")


def replicas_needed(demand, per_replica, max_utilisation=1.0):
    """ceil(demand / (per-replica throughput x allowed utilisation)) (Example 27.3: ceil(12/(2x0.75)) = 8)."""
    lam = magnitude("demand", demand, "request/s", ge=0)
    mu = magnitude("per_replica", per_replica, "request/s", gt=0)
    u = magnitude("max_utilisation", max_utilisation, "", gt=0, le=1)
    r = _ceil(lam / (mu * u))
    return np.maximum(r, 1) if np.ndim(r) else max(r, 1)


def kv_capacity_requests(kv_capacity, kv_per_request):
    """Active requests a replica's KV cache can hold: floor(capacity / per-request bound)
    (Example 27.3: 20 GiB / 0.5 GiB = 40)."""
    c = magnitude("kv_capacity", kv_capacity, "byte", ge=0)
    q = magnitude("kv_per_request", kv_per_request, "byte", gt=0)
    f = np.floor(c / q + 1e-9)
    return int(f) if np.ndim(f) == 0 else f.astype(int)
