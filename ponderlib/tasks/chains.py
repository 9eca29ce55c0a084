"""Assignment chains: a task where every position needs a known number of ponder steps.

A sequence is a little program of assignments, one per position: ``c = 1; f = c; a = not f; e = 0; ...``.
Position ``i`` assigns to its own variable name either a bit (a *root*) or the name of a variable
assigned earlier, possibly negated. The target at every position is the bit its variable ends up
holding: the root's bit, flipped once per negation along the chain, so no position can know its
answer without the whole chain (without the negations, the root most chains share would give it
away: a one-step transformer reached 95 % on chains five hops deep by reading it). A root
reads its answer off its own input; any other position must follow its chain of names back to a
root, one hop per look-up: position ``i``'s **required depth** ``d_i`` is the number of hops
(0 for a root). A transformer layer can do one look-up per position (attend from the name on the
right of ``=`` to the position that assigns it), so ``d_i`` is the number of applications of the
block a position needs if it follows its chain hop by hop (fewer, about ``log2 d_i``, if it learns to
jump along chains, as pointer doubling does); either way more hops need more ponder steps.

Written in the order they are drawn (``order="topological"``), every assignment comes after the one it
reads, so a position's required depth is at most its index: depth and position are confounded.
``order="shuffled"`` writes each program's assignments in a random order instead (the program means
the same: a name is looked up wherever it is assigned), so the required depth no longer depends on the
position. Names are drawn afresh for every sequence from ``n_names`` symbols, so a model cannot memorise
values; sequences of different lengths share a batch with padding. The data is
:mod:`ponderlib.tasks.chains_data`; this module owns the models (:class:`ChainsModel`: embedding, a :class:`~ponderlib.mechanisms.universal_transformer.UniversalTransformer`,
a linear read-out), the loss of each halting method, the metrics, :class:`ChainsConfig` and
:func:`train_chains`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from ponderlib.core.config import ACT_ONLY, PONDERNET_ONLY, TrainConfig, default, option
from ponderlib.core.engine import PonderingResult, fit, start_run
from ponderlib.core.stats import pearson_correlation, round_or_none, within_group_correlation
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_LENGTH,
    MAX_WIDTH,
    check_choice,
    check_correlated,
    check_counts,
    check_finite,
    check_int,
    check_sizes,
)
from ponderlib.mechanisms.act import check_act_settings
from ponderlib.mechanisms.losses import KL_DIRECTIONS, ACTLoss, PonderNetLoss
from ponderlib.mechanisms.pondernet import HALTING_RULES, check_pondernet_settings
from ponderlib.mechanisms.universal_transformer import METHODS, UniversalTransformer, UTOutput
from ponderlib.tasks.chains_data import MAX_NAMES, ORDERS, ChainsBatch, chains_batch

DEFAULT_LR = 3e-3
"""Adam's learning rate when :class:`ChainsConfig` leaves ``lr`` unset."""


class ChainsModel(nn.Module):
    """Embedding, Universal Transformer encoder, linear read-out of the bit at every position.

    A position's input is ``[E(name); E(source) + F(negated)]``: one table ``E`` of ``n_names + 2``
    symbols (the names and the two bits) embeds both halves, so the name on the right of an ``=`` and
    the same name on the left of another look alike; ``F`` embeds the negation flag.
    """

    def __init__(self, encoder: UniversalTransformer, n_names: int) -> None:
        super().__init__()
        check_sizes(n_names=n_names)
        self.embedding = nn.Embedding(n_names + 2, encoder.d_model // 2)
        self.negation = nn.Embedding(2, encoder.d_model // 2)
        self.encoder = encoder
        self.read_out = nn.Linear(encoder.d_model, 2)

    def forward(
        self, batch: ChainsBatch, halting_rule: str | None = None, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, UTOutput]:
        """Logits ``(B, T, 2)`` read from the encoder's output state, and the encoder's :class:`UTOutput`."""
        right = self.embedding(batch.sources) + self.negation(batch.negated.long())  # (B, T, D/2)
        x = torch.cat([self.embedding(batch.names), right], dim=2)  # (B, T, D)
        out = self.encoder(x, batch.padding_mask, halting_rule, generator)
        return self.read_out(out.state), out


def build_chains_model(config: ChainsConfig) -> ChainsModel:
    """The model ``config`` names; every method has the same block and read-out (the fixed depth
    applies it ``config.depth`` times)."""
    encoder = UniversalTransformer(
        config.d_model, config.heads, config.d_transition, config.depth, config.method, config.eps, config.halting_bias_init
    )
    return ChainsModel(encoder, config.n_names)


def halting_loss(config: ChainsConfig, device: torch.device | str | None = None) -> ACTLoss | PonderNetLoss | None:
    """The halting method's loss, its settings checked once: ACT's (``tau``), PonderNet's
    (``lambda_p``, ``beta``, ``kl_direction``, the prior truncated at ``max_ponder_steps``), or None
    for the fixed depth."""
    if config.method == "act":
        return ACTLoss(config.tau)
    if config.method == "pondernet":
        return PonderNetLoss(config.lambda_p, config.beta, config.kl_direction, config.max_ponder_steps).to(device)
    return None


def chains_loss(model: ChainsModel, batch: ChainsBatch, config: ChainsConfig, loss: ACTLoss | PonderNetLoss | None) -> torch.Tensor:
    """The training loss of ``config.method`` on one batch, averaged over real positions.

    ACT: cross-entropy of the mean-field read-out plus ``tau * mean(rho)`` (Graves eq. 12).
    PonderNet: ``L_Rec + beta * KL`` (Banino eq. 3) over every position's ponder steps.
    Fixed depth: cross-entropy of the last step's read-out. ``loss``: :func:`halting_loss` of
    ``config``, built once per run.
    """
    logits, out = model(batch)
    real = ~batch.padding_mask  # (B, T)
    if config.method == "pondernet":
        step_logits = model.read_out(out.step_states)  # (B, T, n_run, 2)
        n_run = step_logits.shape[2]
        step_losses = nn.functional.cross_entropy(
            step_logits[real].reshape(-1, 2), batch.targets[real].repeat_interleave(n_run), reduction="none"
        ).reshape(-1, n_run)  # (positions, n_run): L(y, y_n)
        return loss(step_losses, out.halting_probs[real])[0]
    task = nn.functional.cross_entropy(logits[real], batch.targets[real])
    if config.method == "act":
        return loss(task, out.ponder_cost[real])
    return task


@dataclass
class ChainsEvaluation:
    """A model's predictions on a batch, at real positions unless stated.

    Attributes:
        accuracy: fraction of positions whose bit is right.
        correct: ``(B, T)`` bool (False at padding).
        ponder_steps: ``(B, T)`` int64 (0 at padding).
        depth: required depth ``(B, T)``.
        depth_correlation: Pearson correlation of ponder steps with required depth (NaN when
            either is constant).
        attention: attention weights at each position's last ponder step ``(B, T, T)``.
        padding_mask: ``(B, T)``.
        expected_ponder_steps: ``sum_n n p^n_i``, the ponder steps each position's halting distribution
            expects, ``(B, T)`` float (0 at padding): for PonderNet the mean of the steps its sampled
            halting runs; for ACT ``sum_n n p^n_i``, close to ``N_i``; for the fixed depth its depth.
    """

    accuracy: float
    correct: torch.Tensor
    ponder_steps: torch.Tensor
    depth: torch.Tensor
    depth_correlation: float
    attention: torch.Tensor
    padding_mask: torch.Tensor
    expected_ponder_steps: torch.Tensor | None = None

    @property
    def positions(self) -> torch.Tensor:
        """Each position's index in its program, ``(B, T)`` int64."""
        return torch.arange(self.depth.shape[1], device=self.depth.device).expand_as(self.depth)

    def correlations(self) -> dict[str, float]:
        """Over real positions, Pearson's ``r`` of:

        - ``"depth"``: ponder steps with required depth (:attr:`depth_correlation`);
        - ``"depth_given_position"``: the same, within each position (:func:`within_group_correlation`,
          position as the group): what is left when the position cannot explain it;
        - ``"position"``: ponder steps with the position's index;
        - ``"depth_position"``: required depth with the position's index, a property of the data
          (positive for topological order, about 0 when shuffled);
        - ``"expected_depth"``: :attr:`expected_ponder_steps` with required depth (NaN without them).

        NaN where a quantity is constant."""
        real = ~self.padding_mask
        steps, depth, position = self.ponder_steps[real].float(), self.depth[real].float(), self.positions[real]
        expected = float("nan")
        if self.expected_ponder_steps is not None:
            expected = pearson_correlation(self.expected_ponder_steps[real], depth)
        return {
            "depth": self.depth_correlation,
            "depth_given_position": within_group_correlation(steps, depth, position),
            "position": pearson_correlation(steps, position.float()),
            "depth_position": pearson_correlation(depth, position.float()),
            "expected_depth": expected,
        }

    def steps_histogram(self) -> dict[int, list[int]]:
        """Required depth -> how many real positions of that depth ran 1, 2, ..., ``M`` ponder steps
        (``M``: the most any position ran), the distribution behind :meth:`by_depth`'s mean."""
        real = ~self.padding_mask
        most = int(self.ponder_steps[real].max())
        table = {}
        for d in sorted(set(self.depth[real].tolist())):
            steps = self.ponder_steps[real & (self.depth == d)]
            table[d] = torch.bincount(steps - 1, minlength=most).tolist()
        return table

    @property
    def mean_ponder_steps(self) -> float:
        """Mean ponder steps per real position."""
        return self.ponder_steps[~self.padding_mask].float().mean().item()

    def by_depth(self) -> dict[int, tuple[float, float, int]]:
        """Required depth -> (accuracy, mean ponder steps, positions) over real positions."""
        real = ~self.padding_mask
        table = {}
        for d in sorted(set(self.depth[real].tolist())):
            at = real & (self.depth == d)
            table[d] = (self.correct[at].float().mean().item(), self.ponder_steps[at].float().mean().item(), int(at.sum()))
        return table

    def at_depths(self, minimum: int, maximum: int | None = None) -> tuple[float, float, int]:
        """(accuracy, mean ponder steps, positions) over the real positions whose required depth is
        ``minimum`` hops or more (and at most ``maximum``, when given), as one group; the two means are
        NaN when no position is that deep."""
        check_int("minimum", minimum, minimum=0)
        if maximum is not None:
            check_int("maximum", maximum, minimum=minimum)
        at = ~self.padding_mask & (self.depth >= minimum)
        if maximum is not None:
            at = at & (self.depth <= maximum)
        return self.correct[at].float().mean().item(), self.ponder_steps[at].float().mean().item(), int(at.sum())


@torch.no_grad()
def evaluate_chains(
    model: ChainsModel, batch: ChainsBatch, halting_rule: str = "sample", generator: torch.Generator | None = None
) -> ChainsEvaluation:
    """Accuracy, ponder steps per position and their correlation with the required depth.

    ACT predicts from its mean-field state after ``N_i`` ponder steps, the fixed depth after all of
    them, PonderNet from the state at the step each position halts (``halting_rule``: ``"sample"`` or
    ``"median"``).
    """
    rule = halting_rule if model.encoder.method == "pondernet" else None
    logits, out = model(batch, rule, generator)
    real = ~batch.padding_mask
    correct = (logits.argmax(dim=2) == batch.targets) & real
    # p^n_i: PonderNet's sampled pass keeps only the step it halted at, so its whole distribution comes
    # from the training pass, which runs every step
    probs = model(batch)[1].halting_probs if model.encoder.method == "pondernet" else out.halting_probs  # (B, T, n)
    steps = torch.arange(1, probs.shape[2] + 1, device=probs.device, dtype=probs.dtype)
    return ChainsEvaluation(
        accuracy=(correct.sum() / real.sum()).item(),
        correct=correct,
        ponder_steps=out.ponder_steps,
        depth=batch.depth,
        depth_correlation=pearson_correlation(out.ponder_steps[real].float(), batch.depth[real].float()),
        attention=out.attention,
        padding_mask=batch.padding_mask,
        expected_ponder_steps=torch.where(real, (probs * steps).sum(dim=2), 0.0),
    )


@dataclass
class ChainsConfig(TrainConfig):
    """Everything that defines an assignment-chains run; the defaults are chapter 4's CPU setting.

    ``method``: ``"act"`` (Universal Transformer with ACT per position), ``"pondernet"``
    (PonderNet-style halting per position) or ``"fixed"`` (the same block applied
    ``fixed_depth`` times, ``max_ponder_steps`` when unset). ``tau`` and ``eps`` are ACT's; ``lambda_p``,
    ``beta``, ``kl_direction`` and ``halting_rule`` PonderNet's. After training, the run is scored on
    ``test_size`` programs of each of three kinds (:attr:`ChainsResult.tests`): as trained, longer (up to
    ``test_max_len`` assignments) and longer and deeper (chains of up to ``test_max_depth`` hops).
    """

    method: str = option("act", "how many ponder steps each position gets", choices=METHODS)
    d_model: int = option(32, "state size of the shared block (even)")
    heads: int = option(2, "attention heads (divide d_model)")
    d_transition: int = option(64, "hidden size of the transition function")
    max_ponder_steps: int = option(6, "cap on ponder steps per position")
    fixed_depth: int | None = option(
        None, "fixed: how many times the block is applied (none: max-ponder-steps)", methods=("fixed",)
    )
    n_names: int = option(24, "variable names to draw from (>= the longest sequence evaluated)")
    min_len: int = option(4, "fewest assignments in a training program")
    max_len: int = option(10, "most assignments in a training program")
    max_depth: int = option(4, "longest chain of hops to a root in training programs")
    order: str = option("topological", "assignments after the one they read, or shuffled (depth independent of position)", choices=ORDERS)
    tau: float = option(0.01, "ACT's time penalty, >= 0", methods=ACT_ONLY)
    eps: float = option(0.01, "ACT's halting slack, in [0, 1)", methods=ACT_ONLY)
    halting_bias_init: float = option(
        1.0, "initial bias of the halting unit (1, as Graves: about 2 ponder steps at first; -3: the cap at first)",
        methods=("act", "pondernet"),
    )
    lambda_p: float = option(0.3, "PonderNet's geometric prior parameter, in (0, 1]", methods=PONDERNET_ONLY)
    beta: float = option(0.01, "PonderNet's KL weight, >= 0", methods=PONDERNET_ONLY)
    kl_direction: str = option(
        "paper", "KL(p||p_G) as the paper, or the reverse", choices=KL_DIRECTIONS, methods=PONDERNET_ONLY
    )
    halting_rule: str = option(
        "sample", "PonderNet's halting at evaluation", choices=HALTING_RULES, methods=PONDERNET_ONLY
    )
    batch_size: int = default("batch_size", 128)
    max_updates: int | None = default("max_updates", 400)
    eval_every: int = default("eval_every", 100)
    eval_size: int = default("eval_size", 256)
    test_size: int = option(512, "programs in each test set scored after training")
    test_max_len: int = option(20, "after training, also score programs of up to this many assignments (<= n-names)")
    test_max_depth: int = option(7, "...and, in them, chains of up to this many hops")

    def validate(self) -> None:
        check_choice("method", self.method, METHODS)
        check_choice("order", self.order, ORDERS)
        check_counts(MAX_WIDTH, d_model=self.d_model, heads=self.heads, d_transition=self.d_transition)
        check_counts(MAX_LENGTH, max_ponder_steps=self.max_ponder_steps)
        if self.d_model % 2:
            raise ValueError(f"d_model must be even (the embedding splits it in two halves), got {self.d_model}")
        if self.d_model % self.heads:
            raise ValueError(f"heads must divide d_model = {self.d_model}, got heads = {self.heads}")
        check_counts(MAX_LENGTH, min_len=self.min_len)
        check_int("max_len", self.max_len, minimum=self.min_len, maximum=MAX_LENGTH)
        check_int("n_names", self.n_names, minimum=self.max_len, maximum=MAX_NAMES)
        check_int("max_depth", self.max_depth, minimum=0, maximum=MAX_LENGTH)
        if self.fixed_depth is not None:
            check_counts(MAX_LENGTH, fixed_depth=self.fixed_depth)
        check_counts(MAX_BATCH, eval_size=self.eval_size, test_size=self.test_size)
        # the depth correlation of a held-out or test set needs two real positions
        check_correlated("eval_size", self.eval_size, self.min_len, f"min_len = {self.min_len}")
        check_correlated("test_size", self.test_size, self.min_len, f"min_len = {self.min_len}")
        check_int("test_max_len", self.test_max_len, minimum=self.max_len, maximum=self.n_names)
        check_int("test_max_depth", self.test_max_depth, minimum=self.max_depth, maximum=MAX_LENGTH)
        check_act_settings(self.tau, self.eps)
        check_finite("halting_bias_init", self.halting_bias_init)
        check_pondernet_settings(self.lambda_p, self.beta, self.kl_direction, self.halting_rule)
        super().validate()

    def default_lr(self) -> float:
        return DEFAULT_LR

    @property
    def depth(self) -> int:
        """Ponder steps the model may take: ``fixed_depth`` for the fixed depth when set, else ``max_ponder_steps``."""
        return self.fixed_depth if self.method == "fixed" and self.fixed_depth is not None else self.max_ponder_steps

    def batch(self, batch_size: int, generator: torch.Generator, max_len: int | None = None, max_depth: int | None = None) -> ChainsBatch:
        """A batch drawn as this config says (``max_len`` and ``max_depth`` overridable, for longer programs).

        With neither override (a training update of a validated run) nothing is re-checked."""
        if max_len is None and max_depth is None:
            return chains_batch(
                batch_size, self.min_len, self.max_len, self.max_depth, self.n_names, generator, self.order, check=False
            )
        return chains_batch(
            batch_size, self.min_len, max_len or self.max_len,
            self.max_depth if max_depth is None else max_depth, self.n_names, generator, self.order,
        )


@dataclass
class ChainsResult(PonderingResult):
    """A trained assignment-chains model with its history and its last held-out numbers."""

    task = "chains"

    tests: dict[str, ChainsEvaluation] | None = None
    """The trained model on its seed's test programs (:func:`score_chains`), measured by :func:`train_chains`:
    ``"trained"`` (as trained), ``"longer"`` (up to ``test_max_len`` assignments, chains as trained) and
    ``"deeper"`` (up to ``test_max_len`` assignments and ``test_max_depth`` hops)."""

    def metrics(self) -> dict:
        metrics = {
            "method": self.config.method,
            **super().metrics(),
            "depth_correlation": round_or_none(self.history.last("depth_correlation")),
        }
        if self.tests is None:
            return metrics
        trained, deeper = self.tests["trained"], self.tests["deeper"]
        by_depth = trained.by_depth()
        correlations = trained.correlations()
        unseen_accuracy, unseen_steps, unseen_positions = deeper.at_depths(self.config.max_depth + 1)
        return {
            **metrics,
            "test_accuracy": round_or_none(trained.accuracy),
            "test_ponder_steps": round_or_none(trained.mean_ponder_steps),
            "test_depth_correlation": round_or_none(trained.depth_correlation),
            "test_depth_correlation_given_position": round_or_none(correlations["depth_given_position"]),
            "test_position_correlation": round_or_none(correlations["position"]),
            "test_depth_position_correlation": round_or_none(correlations["depth_position"]),
            "test_expected_depth_correlation": round_or_none(correlations["expected_depth"]),
            "accuracy_by_depth": {str(d): round_or_none(row[0]) for d, row in by_depth.items()},
            "ponder_steps_by_depth": {str(d): round_or_none(row[1]) for d, row in by_depth.items()},
            "ponder_steps_histogram_by_depth": {str(d): counts for d, counts in trained.steps_histogram().items()},
            "longer_accuracy": round_or_none(self.tests["longer"].accuracy),
            "deeper_accuracy": round_or_none(deeper.accuracy),
            "unseen_depth_accuracy": round_or_none(unseen_accuracy) if unseen_positions else None,
            "unseen_depth_ponder_steps": round_or_none(unseen_steps) if unseen_positions else None,
        }


def train_chains(
    config: ChainsConfig | None = None, *, on_evaluate: Callable[[int, nn.Module], None] | None = None, **overrides
) -> ChainsResult:
    """Train ``config.method`` on assignment chains as ``config`` (or ``ChainsConfig(**overrides)``) says.

    History metrics: ``accuracy`` (per position), ``ponder_steps`` (mean per real position) and
    ``depth_correlation`` (Pearson, ponder steps against required depth) on a held-out set drawn
    once from its own seed. After training, the three test sets of :attr:`ChainsResult.tests`.
    ``on_evaluate(update, model)``: called after every held-out evaluation during training
    (:func:`~ponderlib.core.engine.fit`).
    """
    config = ChainsConfig.from_overrides(config, overrides)
    device = start_run(config)
    model = build_chains_model(config).to(device)
    data, sampling = config.generator("data", device), config.generator("sampling", device)
    held_out = config.batch(config.eval_size, config.generator("held_out", device))
    loss = halting_loss(config, device)

    def evaluate(model: ChainsModel) -> dict[str, float]:
        evaluation = evaluate_chains(model, held_out, config.halting_rule, sampling)
        return {
            "accuracy": evaluation.accuracy,
            "ponder_steps": evaluation.mean_ponder_steps,
            "depth_correlation": evaluation.depth_correlation,
        }

    fitted = fit(
        model, lambda: config.batch(config.batch_size, data), lambda model, batch: chains_loss(model, batch, config, loss),
        evaluate, config, target_metric="accuracy", desc=f"{config.method} chains-{config.max_len}",
        on_evaluate=on_evaluate,
    )
    result = ChainsResult(model=model, config=config, fit=fitted, device=device)
    shifts = {"trained": (None, None), "longer": (config.test_max_len, None), "deeper": (config.test_max_len, config.test_max_depth)}
    result.tests = {
        name: score_chains(model, config, config.test_size, max_len, max_depth, device)
        for name, (max_len, max_depth) in shifts.items()
    }
    return result


def score_chains(
    model: ChainsModel, config: ChainsConfig, batch_size: int, max_len: int | None = None, max_depth: int | None = None,
    device: torch.device | str | None = None,
) -> ChainsEvaluation:
    """``model`` (trained as ``config`` says) on ``batch_size`` programs from the test stream of ``config``'s
    seed (:func:`evaluation_batch`; longer or deeper ones with ``max_len``, ``max_depth``). PonderNet halts
    by ``config.halting_rule``, sampling from the seed's ``"sampling"`` stream afresh each call, so a call is
    repeatable and every method of one seed sees the same programs."""
    batch = evaluation_batch(config, batch_size, max_len, max_depth, device)
    return evaluate_chains(model, batch, config.halting_rule, config.generator("sampling", device))


def evaluation_batch(
    config: ChainsConfig, batch_size: int, max_len: int | None = None, max_depth: int | None = None,
    device: torch.device | str | None = None,
) -> ChainsBatch:
    """A batch from the run's test stream, optionally with longer (``max_len``) or deeper (``max_depth``) programs."""
    return config.batch(batch_size, config.generator("test", device), max_len, max_depth)
