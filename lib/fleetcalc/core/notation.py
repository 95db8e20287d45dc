"""The symbol table of MLSysBook Vol. 2 as data (front matter "notation conventions" and Ch. 1).

Source: seed ``001_500bbf168f63cec3.txt``; ``source_line`` is the line where the book defines or
first uses the symbol (the notation section runs from line 228 to line 620, with Ch. 1's
introduction interleaved at lines 566-584 by the translation). ``needle`` is the text as that
line writes it, so a test can prove every line number.

* :data:`SYMBOLS`: every symbol the notation conventions define, plus the symbols Ch. 1 and the
  Part I principles introduce in their equations (``group`` says which).
* :data:`CLASHES`: where one letter means two things. ``stated=True`` when the book resolves or
  flags the clash itself (B batch vs BW bandwidth, eta learning rate vs eta_hw, D dataset vs
  D_vol, ...); ``stated=False`` where it reuses a symbol without saying so.
* :data:`LIB_ONLY`: symbols the library uses that the book's span does not define.
* :data:`PRECISIONS`: bytes per element of each number format the book lists.

``lib_name`` is the parameter name fleetcalc uses for the quantity ("a|b" when two modules
use different names); empty when no calculator takes it.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Symbol", "Clash", "Precision", "SYMBOLS", "CLASHES", "LIB_ONLY", "PRECISIONS", "GROUPS",
           "lookup", "by_group", "clashes", "table_rows", "SOURCE"]

SOURCE = "001_500bbf168f63cec3.txt"

#: kinds allowed in ``Symbol.unit`` besides pint unit strings
KINDS = {"count", "dimensionless", "distribution", "scalar", "vector/matrix", "probability", "index",
         "function", "label"}


@dataclass(frozen=True)
class Symbol:
    symbol: str          # plain text, as we write it in code comments and prose
    latex: str           # for the generated notation page
    meaning: str         # in English, our words
    unit: str            # a pint unit string, "" for a pure number, or a kind from KINDS
    source_line: int     # line of the seed text that defines or first uses it
    lib_name: str = ""   # fleetcalc's parameter name(s), "a|b" for two; "" if none
    group: str = ""      # the notation table (or chapter equation) it belongs to
    chinese: str = ""    # the book's term
    needle: str = ""     # the symbol as written on source_line (defaults to ``symbol``)
    note: str = ""

    @property
    def written(self) -> str:
        return self.needle or self.symbol


@dataclass(frozen=True)
class Clash:
    symbol: str
    meanings: tuple[str, ...]
    resolution: str
    source_lines: tuple[int, ...]
    stated: bool         # True: the book flags or resolves it; False: reused without saying so
    note: str = ""


@dataclass(frozen=True)
class Precision:
    name: str
    bits: int            # bits per stored element
    source_line: int
    note: str = ""

    @property
    def bytes(self) -> float:
        return self.bits / 8


GROUPS = {
    "iron": "The iron law of ML systems (line 257)",
    "degradation": "The degradation equation (line 308)",
    "energy": "The energy corollary (line 326)",
    "dl": "Deep-learning notation (lines 336-366)",
    "fleet": "Distributed systems: the fleet law (lines 368-378)",
    "serving": "Performance, serving and memory (lines 380-390, 592-598)",
    "probability": "Probability and distributions (lines 392-402)",
    "matrix": "Local matrix algebra (lines 404-406)",
    "timing": "Timing components (lines 448-454)",
    "alphabeta": "The communication model (lines 456-474)",
    "loggp": "The LogGP extension (lines 476-486)",
    "scaling_eff": "Scaling efficiency (lines 488-498)",
    "reliability": "Fault tolerance and reliability (lines 500-518)",
    "parallel": "Parallel dimensions (lines 520-540)",
    "units": "Additional units (lines 616-619)",
    "ch1": "Chapter 1 equations and text (lines 566-1140)",
    "part1": "Part I principles (lines 1160-1216)",
}

_S = Symbol
SYMBOLS: tuple[Symbol, ...] = (
    # --- the iron law ------------------------------------------------------------------------
    _S("T", "T", "wall-clock time of an operation", "s", 265, "", "iron", "时间",
       note="the iron law's result: iron_law.iron_law_time"),
    _S("D_vol", r"D_{\text{vol}}", "bytes moved through memory or network (data volume)", "byte", 267,
       "D_vol", "iron", "数据量"),
    _S("BW", r"\text{BW}", "bandwidth", "byte/s", 269, "BW", "iron", "带宽"),
    _S("O", "O", "total floating-point operations", "FLOP", 271, "O", "iron", "操作"),
    _S("η_hw", r"\eta_{\text{hw}}", "hardware efficiency (utilisation), 0 <= eta_hw <= 1", "", 273,
       "eta_hw", "iron", "效率"),
    _S("L_lat", r"L_{\text{lat}}", "fixed overhead time (kernel launch, network round trip)", "s", 275,
       "L_lat", "iron", "延迟"),
    _S("R_peak", r"R_{\text{peak}}", "peak compute rate of the device", "FLOP/s", 257, "R_peak", "iron",
       "峰值速率", needle="R_{\\text{peak}}",
       note="appears in the iron law but has no row in its table; line 438 names it as the cure for P"),
    _S("BW_disk", r"\text{BW}_{\text{disk}}", "storage (disk) bandwidth", "byte/s", 298, "", "iron"),
    _S("BW_network", r"\text{BW}_{\text{network}}", "network bandwidth", "byte/s", 298,
       "BW_net|beta_net", "iron", note="the alpha-beta model calls the same quantity beta (line 470)"),
    _S("BW_accelerator", r"\text{BW}_{\text{accelerator}}", "accelerator memory bandwidth", "byte/s", 298,
       "beta_mem", "iron", note="Ch. 28 calls it beta_mem"),
    _S("E_move", r"E_{\text{move}}", "energy per byte moved", "J/byte", 300, "E_move", "energy", needle="E_move"),
    _S("E_compute", r"E_{\text{compute}}", "energy per operation (per FLOP); in Eq. 1.5 the energy of the compute itself (J)",
       "J/FLOP", 300, "E_compute", "energy"),
    _S("E_total", r"E_{\text{total}}", "total energy of an ML workload", "J", 332, "", "energy", "总能量",
       note="iron_law.energy_total"),
    # --- the degradation equation -----------------------------------------------------------
    _S("Accuracy_0", r"\text{Accuracy}_0", "accuracy at deployment (t = 0)", "dimensionless", 308, "",
       "degradation"),
    _S("λ (sensitivity)", r"\lambda", "sensitivity of a model to distribution shift", "scalar", 314, "",
       "degradation", "敏感度", needle="λ", note="not a wavelength; also the failure rate (line 518)"),
    _S("𝒟", r"\mathcal{D}", "divergence between the current and the training distribution", "scalar", 308,
       "", "degradation"),
    _S("P[t]", r"P_t", "data distribution at time t", "distribution", 316, "", "degradation", "当前分布",
       note="not parameters"),
    _S("P[0]", r"P_0", "training-time data distribution", "distribution", 318, "", "degradation", "训练分布"),
    _S("τ (drift)", r"\tau", "drift threshold: retrain when the divergence exceeds it", "scalar", 320, "",
       "degradation", "漂移阈值", needle="τ"),
    # --- deep-learning notation --------------------------------------------------------------
    _S("B", "B", "batch size (never bandwidth)", "count", 342, "B", "dl", "批量大小"),
    _S("P", "P", "number of trainable parameters (never peak FLOP/s)", "param", 344, "P", "dl", "参数"),
    _S("D", "D", "dataset size in samples or tokens (never bytes)", "token", 346, "D|D_avail", "dl", "数据集大小"),
    _S("S", "S", "sequence length", "count", 348, "", "dl", "序列长度"),
    _S("d (hidden)", "d", "hidden dimension", "count", 350, "d", "dl", "隐藏维度", needle="d",
       note="roofline.matmul_* take d as a matrix dimension"),
    _S("d_head", r"d_{\text{head}}", "per-head hidden dimension", "count", 352, "", "dl", "注意力头维度"),
    _S("N_L", r"N_L", "number of layers", "count", 354, "", "dl", "层数"),
    _S("N_heads", r"N_{\text{heads}}", "number of attention heads", "count", 356, "", "dl", "注意力头数"),
    _S("H_KV", r"H_{KV}", "number of key-value heads (GQA/MQA)", "count", 358, "", "dl", "键值头数"),
    _S("ℓ", r"\ell", "layer index (instead of a bare L)", "index", 360, "", "dl", "层索引"),
    _S("ℒ", r"\mathcal{L}", "loss function", "scalar", 362, "", "dl", "损失函数"),
    _S("η", r"\eta", "learning rate (never hardware efficiency)", "scalar", 364, "", "dl", "学习率"),
    _S("θ", r"\theta", "model weights", "vector/matrix", 366, "", "dl", "模型权重"),
    # --- distributed: the fleet law ------------------------------------------------------------
    _S("T_step(N)", r"T_{\text{step}}(N)", "time of one distributed step on N devices", "s", 372, "",
       "fleet", needle="T_{\\text{step}}", note="parallel_scaling.fleet_step_time (Eq. 1.3)"),
    _S("T_compute", r"T_{\text{compute}}", "compute time of one step on one device", "s", 372, "T_compute",
       "fleet", needle="T_{\\text{compute}}"),
    _S("T_comm(N)", r"T_{\text{comm}}(N)", "communication time per step on N devices", "s", 372, "T_comm",
       "fleet", needle="T_{\\text{comm}}"),
    _S("T_sync(N)", r"T_{\text{sync}}(N)", "synchronisation time per step (barriers, scheduling, recovery)",
       "s", 372, "T_sync", "fleet", needle="T_{\\text{sync}}"),
    _S("T_overlap", r"T_{\text{overlap}}", "communication time hidden behind compute", "s", 372, "T_overlap",
       "fleet", needle="T_{\\text{over"),
    _S("N", "N", "number of devices (accelerators) in a distributed job; not parameters", "count", 378,
       "N|n", "fleet", "设备数量", note="Ch. 28 calls it p; reliability.mtbf_of_n calls it n"),
    # --- performance, serving, memory ---------------------------------------------------------
    _S("Q_req", r"Q_{\text{req}}", "request count (instead of overloading N)", "count", 382, "", "serving"),
    _S("ρ_(queue)", r"\rho_{\ldots}", "queue utilisation: always subscripted so that bare rho stays free",
       "dimensionless", 382, "", "serving", needle="下标 ρ",
       note="the span gives no concrete subscript"),
    _S("MFU", r"\text{MFU}", "model FLOPs utilisation: useful model FLOP/s over available peak FLOP/s",
       "dimensionless", 388, "", "serving", "模型 FLOPs 利用率"),
    _S("r_comp", r"r_{\text{comp}}", "compression ratio: uncompressed over compressed size", "dimensionless",
       390, "", "serving", "压缩比"),
    _S("M[KV]", r"M_{\text{KV}}", "KV-cache memory of autoregressive serving", "byte", 598, "", "serving",
       "KV 缓存内存"),
    # --- probability ---------------------------------------------------------------------------
    _S("p(x)", "p(x)", "probability mass/density of a random variable", "distribution", 398, "",
       "probability", "分布"),
    _S("p(y ∣ x)", r"p(y \mid x)", "conditional distribution", "distribution", 400, "", "probability",
       "条件分布"),
    _S("Pr(E)", r"\Pr(E)", "probability of an event E", "probability", 402, "", "probability", "事件概率"),
    # --- local matrix algebra ------------------------------------------------------------------
    _S("A, B, C (GEMM)", r"C = \alpha A B + \beta C", "matrix operands of a local GEMM", "vector/matrix",
       406, "", "matrix", needle="C = αAB + βC",
       note="local only; alpha and beta are GEMM scalars here"),
    # --- timing --------------------------------------------------------------------------------
    _S("ρ", r"\rho", "communication-to-computation ratio T_comm(N) / (T_compute/N); near or above 1 "
       "means communication-bound scaling", "dimensionless", 454, "", "timing", "通信计算比",
       note="parallel_scaling.comm_compute_ratio"),
    # --- alpha-beta ----------------------------------------------------------------------------
    _S("T(n)", "T(n)", "time to send an n-byte message over one link", "s", 466, "", "alphabeta",
       "通信时间", note="collectives.alpha_beta_time"),
    _S("α", r"\alpha", "fixed per-message latency (network latency)", "s", 468, "alpha", "alphabeta",
       "网络延迟"),
    _S("β", r"\beta", "effective per-link bandwidth", "byte/s", 470, "beta_net", "alphabeta", "链路带宽"),
    _S("n", "n", "message size (payload bytes)", "byte", 472, "m|k", "alphabeta", "消息大小",
       note="Ch. 28 and collectives call it m; LogGP functions call it k"),
    _S("n*", r"n^{*} = \alpha\beta", "crossover size: below it latency-bound, above it bandwidth-bound",
       "byte", 474, "", "alphabeta", "交叉点", needle="n^(\\*)",
       note="collectives.latency_bandwidth_threshold"),
    # --- LogGP ---------------------------------------------------------------------------------
    _S("g", "g", "minimum gap between consecutive message injections", "s", 484, "g", "loggp", "消息注入间隙"),
    _S("G", "G", "per-byte gap for long messages (inverse bandwidth, not beta)", "s/byte", 486, "G", "loggp",
       "长消息每字节间隙"),
    # --- scaling efficiency --------------------------------------------------------------------
    _S("η_scaling", r"\eta_{\text{scaling}}", "scaling efficiency T_1 / (N T_N) <= 1", "dimensionless", 490,
       "", "scaling_eff", "扩展效率", needle="\\eta_{\\text{scaling}}",
       note="parallel_scaling.scaling_efficiency"),
    _S("T_1", "T_1", "wall-clock time on one device", "s", 496, "T_1", "scaling_eff", "单设备时间"),
    _S("T_N", "T_N", "wall-clock time on N devices", "s", 498, "T_N", "scaling_eff", "N 设备时间"),
    # --- reliability ---------------------------------------------------------------------------
    _S("R_system(t)", r"R_{\text{system}}(t)", "probability that a system of N independent parts survives "
       "a window t", "probability", 504, "", "reliability", needle="R_{\\text{system}}"),
    _S("λ (failure rate)", r"\lambda", "failure rate of one component (per hour; FIT x 1e-9)", "1/hour", 518,
       "rate_one", "reliability", "单组件故障率", needle="λ"),
    _S("t (time)", "t", "time window (same unit as 1/lambda)", "hour", 504, "duration", "reliability",
       needle="t}"),
    _S("FIT", r"\text{FIT}", "failures per 1e9 device-hours", "count", 518, "", "reliability"),
    _S("τ_opt", r"\tau_{\text{opt}}", "optimal checkpoint interval sqrt(2 T_write MTBF_system)", "s", 510, "",
       "reliability", needle="\\tau_{\\text{opt}}", note="reliability.young_daly_interval (Ch. 28 tau*)"),
    _S("T_write", r"T_{\text{write}}", "time to write one checkpoint", "s", 510, "C", "reliability",
       needle="T_{\\text{write}}", note="Ch. 28 and reliability call it C"),
    _S("MTBF_system", r"\text{MTBF}_{\text{system}}", "mean time between failures of the whole job", "hour",
       510, "M|mtbf", "reliability", needle="\\text{MTBF}_{\\text{system}}",
       note="reliability.mtbf_of_n; Ch. 28 calls it M"),
    # --- parallel dimensions -------------------------------------------------------------------
    _S("N_total", r"N_{\text{total}} = d \times p \times t", "devices in a 3D-parallel job", "count", 524,
       "", "parallel", needle="N_{\\text{total}}"),
    _S("d (data parallel)", "d", "data-parallel degree (model replicas)", "count", 530, "", "parallel",
       "数据并行", needle="d"),
    _S("p (pipeline)", "p", "physical pipeline stages", "count", 532, "", "parallel", "物理流水线阶段",
       needle="p"),
    _S("t (tensor parallel)", "t", "tensor-parallel degree (intra-layer split)", "count", 534, "", "parallel",
       "张量并行", needle="t"),
    _S("m (micro-batches)", "m", "micro-batches that fill and drain the pipeline", "count", 536, "",
       "parallel", "微批次数量", needle="m"),
    _S("V", "V", "virtual pipeline stages per device (interleaving)", "count", 538, "", "parallel"),
    _S("M", "M", "message payload: gradients, state, activations or compressed messages", "byte", 540, "M",
       "parallel", "消息有效载荷大小", note="parallel_scaling.ring_fleet_terms takes M"),
    # --- units ---------------------------------------------------------------------------------
    _S("P[...]", r"P_{\ldots}", "physical power with an explicit subscript (P_IT, P_dynamic, P_average)", "W",
       619, "", "units", needle="P[IT]", note="bare P stays the parameter count"),
    # --- Chapter 1 -----------------------------------------------------------------------------
    _S("Pr(failure before t)", r"\Pr(\text{failure before } t) = 1 - e^{-t/\text{MTBF}_{\text{system}}}",
       "probability of at least one failure within t", "probability", 582, "", "ch1",
       needle="Pr(failure before t)", note="reliability.failure_probability"),
    _S("BW[bisect]", r"\text{BW}_{\text{bisect}}", "bisection bandwidth of the fleet's network", "byte/s",
       685, "", "ch1", "双向带宽 / 剖分带宽", needle="BW[bisect]"),
    _S("𝒪(S²)", r"\mathcal{O}(S^2)", "attention cost grows with the square of sequence length", "function",
       782, "", "ch1", needle="𝒪(S²)"),
    _S("X", "X", "a scaling resource: parameters, tokens or compute", "dimensionless", 812, "X", "ch1"),
    _S("A_ℒ", r"A_{\mathcal{L}}", "task-dependent scale of the power-law term", "dimensionless", 812, "A_L",
       "ch1", needle="A[ℒ]"),
    _S("α_scale", r"\alpha_{\text{scale}}", "scaling exponent: how fast loss falls with the resource",
       "dimensionless", 812, "alpha_scale", "ch1", needle="α[scale]"),
    _S("C_ℒ", r"C_{\mathcal{L}}", "irreducible loss floor of the power law", "dimensionless", 812, "C_L",
       "ch1", needle="C[ℒ]"),
    _S("R_component(t)", r"R_{\text{component}}(t)", "probability one component survives the window t",
       "probability", 908, "", "ch1", needle="R_component(t)"),
    _S("CI", r"\text{CI}", "communication intensity: network bytes per local FLOP", "byte/FLOP", 924, "CI",
       "ch1", "通信强度", note="iron_law.communication_intensity (Eq. 1.2)"),
    _S("C₁, C₂, C₃", r"C_1, C_2, C_3", "the C³ taxonomy: computation, communication, coordination",
       "label", 974, "", "ch1", needle="C₁"),
    _S("f_compute", r"f_{\text{compute}}", "compute fraction (T_compute/N) / T_step(N)", "dimensionless", 994,
       "f_compute", "ch1", "计算时间比例", note="parallel_scaling.compute_fraction (Eq. 1.4)"),
    _S("η_program, η_runtime, η_scheduling", r"\eta_{\text{program}}, \eta_{\text{runtime}}, \eta_{\text{scheduling}}",
       "the three multiplicative factors of ML Productivity Goodput", "dimensionless", 998, "", "ch1",
       needle="η[program]"),
    _S("ρ_energy", r"\rho_{\text{energy}}", "fleet energy productivity: useful FLOP per joule", "FLOP/J", 1010,
       "", "ch1", needle="ρ_energy", note="iron_law.energy_productivity (Eq. 1.5)"),
    _S("O_useful", r"O_{\text{useful}}", "useful operations", "FLOP", 1010, "O_useful", "ch1"),
    _S("E_cooling", r"E_{\text{cooling}}", "cooling energy", "J", 1010, "E_cooling", "ch1"),
    _S("E_network", r"E_{\text{network}}", "network energy", "J", 1010, "E_network", "ch1"),
    # --- Part I principles ---------------------------------------------------------------------
    _S("Q̇_limit", r"\dot{Q}_{\text{limit}} = \Delta Q / \Delta t", "maximum rate at which heat can be removed",
       "W", 1169, "", "part1", needle="Q̇[limit]"),
    _S("ρ[energy,specific]", r"\rho_{\text{energy,specific}}", "energy productivity of a specialised device",
       "FLOP/J", 1193, "", "part1", needle="ρ[energy,specific]"),
    _S("BW_storage", r"\text{BW}_{\text{storage}}", "aggregate storage bandwidth", "byte/s", 1199,
       "BW_storage", "part1", needle="BW[storage]"),
    _S("N_GPU", r"N_{\text{GPU}}", "number of accelerators fed by the storage", "count", 1199, "N_GPU",
       "part1", needle="N[GPU]"),
    _S("R_consumption", r"R_{\text{consumption}}", "data each accelerator consumes per second", "byte/s",
       1199, "R_consumption", "part1", needle="R[consumption]"),
)

_C = Clash
CLASHES: tuple[Clash, ...] = (
    # ---- resolved by the book ----
    _C("B", ("batch size (ML)", "bandwidth (systems)"), "B is batch size; bandwidth is BW", (269, 342, 436), True),
    _C("P", ("parameter count (ML)", "peak FLOP/s (systems)"), "P is parameters; peak rate is R_peak",
       (344, 438), True),
    _C("D", ("dataset size / tokens (ML)", "bytes moved (systems)"), "D is dataset size; bytes moved are D_vol",
       (267, 346, 440), True),
    _C("L", ("loss (ML)", "latency (systems)", "layer index"), "loss is ℒ, latency L_lat, layer index ℓ",
       (275, 360, 442), True),
    _C("η", ("learning rate (ML)", "hardware efficiency (systems)"), "η is the learning rate; efficiency is η_hw",
       (273, 364, 444), True),
    _C("N", ("device count", "parameter count (scaling-law papers)"), "N counts devices; parameters are P",
       (378, 608), True,
       note="Kaplan and Chinchilla write C = 6ND with N = parameters; fleetcalc writes 6PD"),
    _C("α", ("network latency (α-β model)", "learning rate in some texts"), "context disambiguates", (468, 610),
       True),
    _C("λ", ("sensitivity to drift (degradation)", "failure rate (reliability)", "wavelength"),
       "context disambiguates; never a wavelength", (314, 518, 612), True),
    _C("t", ("tensor-parallel degree", "time"), "context disambiguates", (534, 614), True),
    _C("d", ("data-parallel degree", "hidden dimension"), "context disambiguates", (350, 530), True),
    _C("P[t] / p(x)", ("data distribution", "parameter count P"), "distributions are P[t], P[0] or lower-case p(·)",
       (316, 398), True),
    _C("A, B, C", ("GEMM operands", "batch size B"), "local matrix algebra only; B stays batch size globally",
       (406,), True),
    _C("C", ("compression (bare C)", "other uses of C"), "compression ratio is r_comp", (390,), True),
    _C("G", ("LogGP per-byte gap (s/byte)", "link bandwidth β (byte/s)"), "G is an inverse bandwidth, kept apart from β",
       (486,), True),
    _C("P[...]", ("physical power", "parameter count"), "power always carries a subscript: P_IT, P_dynamic",
       (619,), True),
    _C("N / ρ", ("request count", "queue utilisation"), "requests are Q_req; queue utilisation is a subscripted ρ",
       (382,), True),
    _C("η (MFU)", ("model FLOPs utilisation", "η"), "MFU is written as an acronym, not as another η", (388,), True),
    # ---- reused without saying so ----
    _C("BW / β", ("bandwidth in the iron law (BW)", "link bandwidth in the α-β model (β)"),
       "one quantity, two symbols; the book never says BW_network and β are the same thing", (269, 470), False),
    _C("α", ("network latency", "scaling-law exponent α_scale", "GEMM scalar in C = αAB + βC"),
       "only the learning-rate reading is flagged; α_scale carries a subscript but the GEMM α does not",
       (406, 468, 812), False),
    _C("β", ("link bandwidth", "GEMM scalar in C = αAB + βC"), "not flagged", (406, 470), False),
    _C("τ", ("drift threshold (degradation)", "checkpoint interval τ_opt (Ch. 28 writes a bare τ)"),
       "not flagged; τ_opt is subscripted, Ch. 28's τ is not", (320, 510), False),
    _C("p", ("pipeline stages (Vol. 2)", "distribution p(x)", "processes (Ch. 28 and collectives.py)"),
       "not flagged", (398, 532), False),
    _C("m", ("micro-batches (Vol. 2)", "message bytes (Ch. 28 and collectives.py)"), "not flagged", (536,), False),
    _C("M", ("message payload in bytes (Vol. 2)", "job MTBF (Ch. 28 and reliability.py)"), "not flagged",
       (540,), False),
    _C("C", ("loss floor C_ℒ", "the C³ dimensions C₁-C₃", "GEMM output", "compute budget C = 6PD (literature)",
             "checkpoint pause (Ch. 28)"), "subscripts separate the book's own uses; the others are not flagged",
       (406, 812, 974), False),
    _C("R", ("rates: R_peak, R_consumption", "reliability (a probability): R_system, R_component"),
       "line 382 says rates use R, yet R_system is a survival probability", (382, 504, 908, 1199), False),
    _C("N", ("devices (accelerators, not hosts)", "independent components or nodes in Eq. 1.1"),
       "line 608 says accelerators, not host nodes; lines 691 and 912 apply N to machines and nodes",
       (608, 691, 908, 912), False),
    _C("E", ("event in Pr(E)", "energy E_total, E_move"), "not flagged (subscripts keep them apart)",
       (300, 402), False),
    _C("Q", ("request count Q_req", "heat Q̇_limit, ΔQ"), "not flagged", (382, 1169), False),
    _C("ρ", ("communication-to-computation ratio", "energy productivity ρ_energy", "queue utilisation ρ_(…)"),
       "line 382 keeps bare ρ free for 'other ratio models'; line 454 then gives bare ρ one fixed meaning",
       (382, 454, 1010), False),
)

#: Symbols fleetcalc uses that the span does not define.
LIB_ONLY: tuple[Symbol, ...] = (
    _S("C (compute)", "C", "training compute budget, C ~= 6 P D", "FLOP", 0, "C", "lib",
       note="Kaplan 2020 / Hoffmann 2022 (6ND); the book's Ch. 2 uses 6 x P x D at line 2294"),
    _S("r", "r", "training tokens per parameter (Chinchilla: about 20)", "dimensionless", 0, "tokens_per_param",
       "lib", note="the book states 'about 20 tokens per parameter' (lines 790, 800)"),
    _S("o", "o", "LogGP per-message processor overhead", "s", 0, "o", "lib",
       note="standard LogGP; the book's table lists only g and G"),
    _S("k", "k", "LogGP message size in bytes", "byte", 0, "k", "lib"),
    _S("S(N)", "S(N)", "speed-up T_1 / T_N", "dimensionless", 0, "", "lib",
       note="not the book's S (sequence length)"),
)

PRECISIONS: tuple[Precision, ...] = (
    Precision("FP64", 64, 418),
    Precision("FP32", 32, 419),
    Precision("TF32", 32, 420, note="a 19-bit compute format usually stored as FP32 (4 bytes)"),
    Precision("FP16", 16, 421),
    Precision("BF16", 16, 422),
    Precision("FP8", 8, 423, note="E4M3 or E5M2"),
    Precision("FP4", 4, 424),
    Precision("INT8", 8, 425),
    Precision("INT4", 4, 426, note="lower integer formats follow INTn (INT3, INT2)"),
)


def lookup(symbol: str) -> list[Symbol]:
    """Every entry whose plain symbol is ``symbol`` or starts with ``symbol + ' ('`` (e.g. 'λ')."""
    return [s for s in SYMBOLS + LIB_ONLY if s.symbol == symbol or s.symbol.startswith(symbol + " (")]


def by_group() -> dict[str, list[Symbol]]:
    """Symbols grouped by the notation table they belong to, in the book's order."""
    out: dict[str, list[Symbol]] = {g: [] for g in GROUPS}
    for s in SYMBOLS:
        out[s.group].append(s)
    return out


def clashes(stated: bool | None = None) -> list[Clash]:
    """All clashes, or only those the book states (True) or leaves unsaid (False)."""
    return [c for c in CLASHES if stated is None or c.stated is stated]


def table_rows(group: str | None = None) -> list[dict]:
    """Rows for a generated notation page: symbol, latex, meaning, unit, line, lib name, Chinese."""
    rows = []
    for s in SYMBOLS:
        if group is None or s.group == group:
            rows.append({"symbol": s.symbol, "latex": s.latex, "meaning": s.meaning, "unit": s.unit,
                         "line": s.source_line, "lib": s.lib_name, "chinese": s.chinese, "note": s.note})
    return rows
