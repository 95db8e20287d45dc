"""Vol. 2 Ch. 2, accelerators (seed lines 1217-1918): exercises 2a.1-2a.8.

Scenarios come from the chapter (the 13B diagnosis of line 1655, the 70B deployment of line 1915,
H100 vs H200 of lines 1541-1547, the energy of data movement, the TDP trend, the silicon lottery,
the MoE example of line 1784); inputs the text does not give are stated here as assumptions.
Answers are computed by lib calls from the inputs, never stored.
"""
from .. import devices, energy, fabric, inference, roofline
from ..exercises import Answer, Exercise, register
from ..units import Q_

H100_R, H100_BW = Q_(989, "TFLOP/s"), Q_(3.35, "TB/s")      # catalog h100.peak_fp16, h100.hbm_bandwidth

# ---------------------------------------------------------------- 2a.1 the 13B diagnosis (line 1655)
register(Exercise(
    id="2a.1", chapter="v2_ch2", title="25 ms per token: is a faster GPU the answer?",
    source="Vol. 2 Ch. 2, roofline diagnosis scenario (line 1655)",
    inputs={"N": 13e9, "s": Q_(2, "byte"), "observed": Q_(25, "ms"), "beta_mem": H100_BW, "R_peak": H100_R,
            "beta_new": Q_(8, "TB/s")},
    answers={
        "t_floor": Answer(lambda N, s, beta_mem: inference.token_latency_floor(inference.weight_bytes(N, s), beta_mem),
                          unit="ms", hint="every FP16 weight is read once per token: bytes / HBM bandwidth.",
                          label="bandwidth floor per token"),
        "t_compute": Answer(lambda N, R_peak: inference.compute_time(inference.decode_flops(N), R_peak), unit="ms",
                            hint="2 FLOP per parameter per token, divided by the FP16 peak.", label="compute term"),
        "bw_share": Answer(lambda N, s, beta_mem, observed:
                           inference.token_latency_floor(inference.weight_bytes(N, s), beta_mem) / observed,
                           unit="", hint="the floor divided by the observed time is the share of HBM bandwidth used.",
                           label="share of HBM bandwidth achieved"),
        "t_floor_new": Answer(lambda N, s, beta_new: inference.token_latency_floor(inference.weight_bytes(N, s), beta_new),
                              unit="ms", hint="the same bytes over the new device's bandwidth.",
                              label="floor on an 8 TB/s device"),
    },
    ranges={"N": (1e9, 70e9), "observed": (10, 60)},
    valid=lambda N, s, beta_mem, observed, **kw: (N * s / beta_mem).to("ms") < observed,
))

# ---------------------------------------------------------------- 2a.2 one 70B model, two jobs (line 1915)
register(Exercise(
    id="2a.2", chapter="v2_ch2", title="One 70B model, two jobs: which ceiling binds?",
    source="Vol. 2 Ch. 2, decision-matrix scenario (line 1915)",
    inputs={"N": 70e9, "B_train": 2048, "s16": Q_(2, "byte"), "s4": Q_(0.5, "byte"),
            "R_peak": H100_R, "beta_mem": H100_BW},
    answers={
        "I_train": Answer(lambda B_train, s16: roofline.matmul_intensity_weight_dominated(B_train, s16), unit="FLOP/byte",
                          hint="I ~ 2B/s (Eq. 28.5) with B = 2048 and 2 bytes per weight.", label="training intensity"),
        "ridge": Answer(lambda R_peak, beta_mem: roofline.ridge_point(R_peak, beta_mem), unit="FLOP/byte",
                        hint="R_peak / BW (Eq. 2.1).", label="H100 FP16 ridge"),
        "t_fp16": Answer(lambda N, s16, beta_mem: inference.token_latency_floor(inference.weight_bytes(N, s16), beta_mem),
                         unit="ms", hint="FP16 weight bytes over one H100's bandwidth.", label="batch-1 floor, FP16"),
        "t_int4": Answer(lambda N, s4, beta_mem: inference.token_latency_floor(inference.weight_bytes(N, s4), beta_mem),
                         unit="ms", hint="INT4 weights are half a byte each.", label="batch-1 floor, INT4"),
    },
    ranges={"N": (7e9, 180e9), "B_train": (256, 4096, 256)},
))

# ---------------------------------------------------------------- 2a.3 H100 -> H200 (lines 1541-1547)
register(Exercise(
    id="2a.3", chapter="v2_ch2", title="H100 to H200: what changes for decode?",
    source="Vol. 2 Ch. 2, H100 vs H200 (lines 1541-1547); H200 capacity assumed (NVIDIA datasheet)",
    inputs={"N": 70.6e9, "s": Q_(2, "byte"), "beta_old": H100_BW, "beta_new": Q_(4.8, "TB/s"),
            "capacity_new": Q_(141, "GB")},
    answers={
        "speedup": Answer(lambda beta_old, beta_new: devices.ratio(beta_new, beta_old), unit="",
                          hint="decode is memory-bound: the speed-up is the bandwidth ratio.", label="decode speed-up"),
        "t_new": Answer(lambda N, s, beta_new: inference.token_latency_floor(inference.weight_bytes(N, s), beta_new),
                        unit="ms", hint="141.2 GB over 4.8 TB/s.", label="H200 floor"),
        "n_devices": Answer(lambda N, s, capacity_new: inference.devices_to_hold(inference.weight_bytes(N, s), capacity_new),
                            unit="", rel=0, abs=0, hint="compare 141.2 GB of weights with 141 GB of HBM, then round up.",
                            label="H200s needed to hold the FP16 weights"),
    },
    ranges={"N": (7e9, 200e9)},
))

# ---------------------------------------------------------------- 2a.4 energy per token (lines 1832-1856)
register(Exercise(
    id="2a.4", chapter="v2_ch2", title="Energy per token with two HBM figures",
    source="Vol. 2 Ch. 2, energy of data movement (lines 1832-1856); HBM energies of lines 1434 and 1832",
    inputs={"N": 70.6e9, "s": Q_(2, "byte"), "e_hbm_a": Q_(4, "pJ/bit"), "e_hbm_b": Q_(2, "pJ/bit"),
            "e_mac": Q_(1, "pJ")},
    answers={
        "E_a": Answer(lambda N, s, e_hbm_a: energy.movement_energy(inference.weight_bytes(N, s), e_hbm_a), unit="J",
                      hint="bytes x 8 bit x 4 pJ/bit.", label="weight traffic per token at 4 pJ/bit"),
        "E_b": Answer(lambda N, s, e_hbm_b: energy.movement_energy(inference.weight_bytes(N, s), e_hbm_b), unit="J",
                      hint="the same bytes at 2 pJ/bit.", label="... at 2 pJ/bit"),
        "E_mac": Answer(lambda N, e_mac: energy.mac_energy(N, e_mac), unit="J",
                        hint="one MAC per weight per token at batch 1.", label="arithmetic per token"),
        "B_equal": Answer(lambda N, s, e_hbm_a, e_mac: energy.movement_to_compute(inference.weight_bytes(N, s), e_hbm_a, N, e_mac),
                          unit="", hint="at batch B the MACs grow B-fold while the weights move once: solve B x E_mac = E_move.",
                          label="batch at which arithmetic energy equals weight-traffic energy (4 pJ/bit)"),
    },
    ranges={"N": (1e9, 400e9)},
))

# ---------------------------------------------------------------- 2a.5 the TDP trend (lines 1738-1740)
register(Exercise(
    id="2a.5", chapter="v2_ch2", title="How fast is TDP growing?",
    source="Vol. 2 Ch. 2, power wall (lines 1738-1740), Table 2.2",
    inputs={"p_start": Q_(400, "W"), "p_end": Q_(1000, "W"), "years": Q_(4, "year"), "target": Q_(2000, "W")},
    answers={
        "growth": Answer(lambda p_start, p_end, years: devices.annual_growth(p_start, p_end, years), unit="",
                         hint="(end / start)^(1/years) - 1.", label="A100 -> B200 growth per year"),
        "years_to_target": Answer(lambda p_start, p_end, years, target: devices.years_to_reach(
                                      p_end, target, devices.annual_growth(p_start, p_end, years)),
                                  unit="year", hint="solve p_end (1 + g)^t = target for t: t = ln(target/p_end) / ln(1 + g).",
                                  label="years from 1000 W to 2000 W at that rate"),
    },
))

# ---------------------------------------------------------------- 2a.6 the slowest chip (line 1350)
register(Exercise(
    id="2a.6", chapter="v2_ch2", title="One slow chip in a synchronous job",
    source="Vol. 2 Ch. 2, silicon lottery (line 1350); clock implied by Table 2.6 and line 1665",
    inputs={"R_peak": H100_R, "units": 528, "macs": 512, "deficit": Q_(100, "MHz"), "gpus": 1024},
    answers={
        "f": Answer(lambda R_peak, units, macs: devices.implied_clock(R_peak, units, macs), unit="GHz",
                    hint="R_peak = 2 x units x MACs per clock x f; solve for f.", label="implied clock"),
        "loss": Answer(lambda R_peak, units, macs, deficit: devices.slowest_member_loss(
                           devices.implied_clock(R_peak, units, macs), deficit), unit="",
                       hint="every step waits for the slowest member: deficit / clock.", label="throughput lost"),
        "wasted": Answer(lambda R_peak, units, macs, deficit, gpus: fabric.straggler_gpu_steps(
                             gpus, devices.slowest_member_loss(devices.implied_clock(R_peak, units, macs), deficit)),
                         unit="", hint="the other gpus - 1 each wait that fraction of a step.",
                         label="GPU-steps wasted per step"),
    },
    ranges={"deficit": (10, 300, 10), "gpus": (64, 16384, 64)},
))

# ---------------------------------------------------------------- 2a.7 batch for half the peak
register(Exercise(
    id="2a.7", chapter="v2_ch2", title="The batch that reaches half the peak, FP16 and FP8",
    source="Vol. 2 Ch. 2, roofline and batching (lines 1617-1619), Table 2.6",
    inputs={"u": 0.5, "R16": H100_R, "R8": Q_(1979, "TFLOP/s"), "beta_mem": H100_BW,
            "s16": Q_(2, "byte"), "s8": Q_(1, "byte")},
    answers={
        "B16": Answer(lambda u, R16, beta_mem, s16: inference.batch_for_utilisation(u, R16, beta_mem, s16), unit="",
                      rel=0, abs=0, hint="I = 2B/s must reach u x ridge; round up.", label="least batch, FP16 weights and math"),
        "B8": Answer(lambda u, R8, beta_mem, s8: inference.batch_for_utilisation(u, R8, beta_mem, s8), unit="",
                     rel=0, abs=0, hint="the FP8 ridge is twice as high, but each weight is half the bytes.",
                     label="least batch, FP8 weights and math"),
    },
    ranges={"u": (0.1, 1.0)},
))

# ---------------------------------------------------------------- 2a.8 MoE (line 1784)
register(Exercise(
    id="2a.8", chapter="v2_ch2", title="Mixture of experts: bytes per token",
    source="Vol. 2 Ch. 2, accelerator selection, MoE (line 1784)",
    inputs={"N_total": 46.7e9, "N_active": 12.9e9, "s": Q_(2, "byte"), "beta_mem": H100_BW},
    answers={
        "active_share": Answer(lambda N_total, N_active: devices.ratio(N_active, N_total), unit="",
                               hint="active parameters / total parameters.", label="share of parameters per token"),
        "t_active": Answer(lambda N_active, s, beta_mem: inference.token_latency_floor(inference.weight_bytes(N_active, s), beta_mem),
                           unit="ms", hint="at batch 1 only the routed experts' weights are read.",
                           label="batch-1 floor, active weights"),
        "t_all": Answer(lambda N_total, s, beta_mem: inference.token_latency_floor(inference.weight_bytes(N_total, s), beta_mem),
                        unit="ms", hint="once a batch touches every expert, all weights are read.",
                        label="floor when every expert is read"),
    },
    ranges={"N_active": (5e9, 20e9)},
))
