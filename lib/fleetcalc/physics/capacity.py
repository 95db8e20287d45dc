"""Deadline, devices, power, energy, cost and serving replicas: Ch. 28 §28.9, Example 27.3
(Eq. 28.26-28.27).

A per-device token rate is an *end-to-end effective* rate (communication, checkpoint and failure
losses already included, as Example 27.3 stipulates): do not multiply it by the same loss again.
Currency is the book's abstract unit ``cu`` (货币单位).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import CEIL_TOLERANCE, WHOLE, amount, ceil_count, calculator, fraction, num, qty, whole
from fleetcalc.core.equation import eq

__all__ = [
    "training_time", "devices_lower_bound", "devices_for_deadline", "round_up_to_nodes",
    "it_power", "facility_power", "energy", "electricity_cost", "device_hour_cost",
    "replica_throughput", "replicas_needed", "kv_capacity_requests",
]



_TOKENS = qty("token", gt=0, doc="tokens to train on")
_RATE = qty("token/s", gt=0, doc="end-to-end effective token rate per device")


# Example 27.3 names no symbols; these follow Vol. 2's notation (D tokens, N devices)
_SYM = {"tokens": "D", "devices": "N", "rate_per_device": r"r_{\mathrm{dev}}", "deadline": r"T_{\mathrm{max}}"}


@calculator(returns="s", tokens=_TOKENS, devices=whole(), rate_per_device=_RATE,
            equation=eq("T", "tokens/(devices*rate_per_device)", symbols=_SYM, ref="Ch. 28 §28.9, Eq. 28.27"))
def training_time(tokens, devices, rate_per_device):
    """T = tokens / (devices x per-device effective token rate), Ch. 28 Eq. 28.27."""
    return tokens / (devices * rate_per_device)


@calculator(returns="", tokens=_TOKENS, deadline=qty("s", gt=0), rate_per_device=_RATE,
            equation=eq(r"N_{\min}", "tokens/(rate_per_device*deadline)", symbols=_SYM,
                        ref="Ch. 28 §28.9, Example 27.3 (Eq. 28.27 solved for N)"))
def devices_lower_bound(tokens, deadline, rate_per_device):
    """Continuous device count that meets the deadline: tokens / (rate x deadline) (Example 27.3: 61.73)."""
    return tokens / (rate_per_device * deadline)


@calculator(returns=WHOLE, devices=whole(), per_node=whole(doc="devices per node"),
            equation=eq(r"N_{\mathrm{nodes}}", "ceil_count(devices/per_node)*per_node",
                        symbols={"devices": "N", "per_node": "k"}, ref="Ch. 28 §28.9, Example 27.3 (whole nodes)"))
def round_up_to_nodes(devices, per_node):
    """Whole nodes: ceil(devices / per_node) x per_node (Example 27.3: 62 -> 64 on 8-device nodes)."""
    return ceil_count(devices / per_node) * per_node


@calculator(returns=WHOLE, tokens=_TOKENS, deadline=qty("s", gt=0), rate_per_device=_RATE,
            per_node=whole(doc="devices per node"),
            equation=eq("N", "ceil_count(ceil_count(tokens/(rate_per_device*deadline))/per_node)*per_node",
                        symbols={**_SYM, "per_node": "k"},
                        ref="Ch. 28 §28.9, Example 27.3 (Eq. 28.27 solved for N, whole nodes)"))
def devices_for_deadline(tokens, deadline, rate_per_device, per_node=1):
    """Least whole devices (rounded up to whole nodes of ``per_node``) that finish ``tokens`` by
    ``deadline`` (Ch. 28 Eq. 28.27 solved for the device count, Example 27.3)."""
    whole_devices = ceil_count(devices_lower_bound.kernel(tokens, deadline, rate_per_device))
    return round_up_to_nodes.kernel(whole_devices, per_node)


@calculator(returns="kW", node_power=qty("kW", ge=0, doc="power of one unit: a node, a GPU or a rack"),
            nodes=whole(ge=0, doc="identical units"),
            other_power=qty("kW", ge=0, doc="network, storage, CPUs and other shared gear"),
            equation=eq(r"P_{\mathrm{IT}}", "nodes*node_power + other_power",
                        symbols={"nodes": "n", "node_power": r"P_{\mathrm{node}}", "other_power": r"P_{\mathrm{other}}"},
                        ref="Ch. 28 §28.9, Example 27.3 (IT power)"))
def it_power(node_power, nodes, other_power=0.0):
    """IT power = nodes x node power + network/storage power (Example 27.3: 8 x 8 + 20 = 84 kW).
    The same sum gives a rack (Vol. 2 Ch. 2 line 2232: 32 GPUs x 700 W + 11.1 kW = 33.5 kW), a
    cluster of racks (line 2228: 32 x 33.5 kW = 1.07 MW) and GPUs alone (line 1740: 8 x 2,000 W)."""
    return nodes * node_power + other_power


@calculator(returns="kW", it_power=qty("kW", ge=0), pue=num(ge=1),
            equation=eq(r"P_{\mathrm{facility}}", "pue*it_power",
                        symbols={"pue": r"\mathrm{PUE}", "it_power": r"P_{\mathrm{IT}}"},
                        ref="Ch. 28 §28.9 (PUE); Vol. 2 Ch. 2, Eq. 2.2"))
def facility_power(it_power, pue):
    """Facility power = PUE x IT power (PUE = facility energy / IT energy, Ch. 28 §28.9)."""
    return pue * it_power


@calculator(returns="kWh", power=qty("kW", ge=0), time=qty("hour", ge=0),
            equation=eq("E", "power*time", symbols={"power": "P", "time": "T"},
                        ref="Ch. 28 §28.9, Eq. 28.26 (constant P)"))
def energy(power, time):
    """E = integral of P dt = P T for a constant power, Ch. 28 Eq. 28.26."""
    return power * time


@calculator(returns="cu", energy=qty("kWh", ge=0), price=qty("cu/kWh", ge=0),
            equation=eq(r"\mathrm{Cost}_{E}", "energy*price", symbols={"energy": "E", "price": r"c_{E}"},
                        ref="Ch. 28 §28.9, Example 27.3 (energy bill)"))
def electricity_cost(energy, price):
    """Energy bill = E x price (price in cu/kWh; Example 27.3: 28000 kWh x 0.8 = 22400 cu)."""
    return energy * price


@calculator(returns="cu", devices=whole(), time=qty("hour", ge=0), price=qty("cu/device/hour", ge=0),
            equation=eq(r"\mathrm{Cost}_{\mathrm{dev}}", "devices*time*price",
                        symbols={"devices": "N", "time": "T", "price": r"c_{\mathrm{dev}}"},
                        ref="Ch. 28 §28.9, Example 27.3 (depreciation and upkeep per device-hour)"))
def device_hour_cost(devices, time, price):
    """Depreciation + maintenance = devices x hours x price per device-hour (Example 27.3: 88888.89 cu)."""
    return devices * time * price


@calculator(returns="request/s", output_rate=qty("token/s", gt=0),
            mean_output_tokens=qty("token/request", gt=0),
            equation=eq(r"\mu", "output_rate/mean_output_tokens",
                        symbols={"output_rate": r"r_{\mathrm{out}}", "mean_output_tokens": r"\bar{L}_{\mathrm{out}}"},
                        ref="Ch. 28 §28.9, Example 27.3 (serving)"))
def replica_throughput(output_rate, mean_output_tokens):
    """Requests/s one replica can finish: output token rate / mean output tokens (Example 27.3: 800/400 = 2)."""
    return output_rate / mean_output_tokens


@calculator(returns=WHOLE, demand=qty("request/s", ge=0), per_replica=qty("request/s", gt=0),
            max_utilisation=fraction(open_low=True),
            equation=eq("n", "max(ceil_count(demand/(per_replica*max_utilisation)), 1)",
                        symbols={"demand": "a", "per_replica": r"\mu", "max_utilisation": r"\rho_{\max}"},
                        ref="Ch. 28 §28.9, Example 27.3 (serving)"))
def replicas_needed(demand, per_replica, max_utilisation=1.0):
    """ceil(demand / (per-replica throughput x allowed utilisation)) (Example 27.3: ceil(12/(2x0.75)) = 8)."""
    return np.maximum(ceil_count(demand / (per_replica * max_utilisation)), 1.0)


@calculator(returns=WHOLE, kv_capacity=qty("byte", ge=0), kv_per_request=qty("byte", gt=0),
            equation=eq(r"n_{\mathrm{active}}", "floor(kv_capacity/kv_per_request)",
                        symbols={"kv_capacity": r"C_{\mathrm{KV}}", "kv_per_request": r"S_{\mathrm{KV}}"},
                        ref="Ch. 28 §28.9, Example 27.3 (KV-cache capacity)"))
def kv_capacity_requests(kv_capacity, kv_per_request):
    """Active requests a replica's KV cache can hold: floor(capacity / per-request bound)
    (Example 27.3: 20 GiB / 0.5 GiB = 40)."""
    return np.floor(kv_capacity / kv_per_request + CEIL_TOLERANCE)   # a whole quotient nudged below stays


# --- appended for the capstone (chapters/capstone): the per-device rate behind Eq. 28.27 ----------


@calculator(returns="token/s", P=amount("param", doc="parameters"),
            R_peak=qty("FLOP/s", gt=0, doc="peak rate of one device"),
            mfu=fraction(open_low=True, doc="model FLOPs utilisation"),
            equation=eq(r"r_{\mathrm{dev}}", "mfu*R_peak/(6*P)",
                        symbols={"mfu": r"\mathrm{MFU}", "R_peak": r"R_{\mathrm{peak}}"},
                        ref="Ch. 28 §28.9, Eq. 28.27's per-device rate, from C = 6 P D (Vol. 2 Ch. 2)"))
def token_rate_per_device(P, R_peak, mfu):
    """Training tokens one device sustains per second: MFU x R_peak / (6 P), since each token costs
    6 P FLOPs forward and backward (70e9 parameters at 40 % of 989 TFLOP/s: 941.9 token/s)."""
    return mfu * R_peak / (6.0 * P)


__all__ += ["token_rate_per_device"]
