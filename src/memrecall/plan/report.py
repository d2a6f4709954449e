"""Printing a plan: per stage what would run and why, the work and its figures, the totals,
and every assumption the figures rest on."""

from __future__ import annotations

from .work import CPU_TEXTS_PER_S, Plan


def _tok(n: float) -> str:
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else f"{n:.0f}"


def _dur(s: float) -> str:
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.1f} min" if s >= 60 else f"{s:.0f} s"


def _usd(c: float | None) -> str:
    return "unknown" if c is None else f"${c:,.4f}" if c < 1 else f"${c:,.2f}"


def format_plan(plan: Plan) -> str:
    lines = [f"plan: {plan.title}", ""]
    assumptions: dict[str, None] = {}
    for sp in plan.stages:
        head = f"{sp.stage:<10}" + (
            "would run: " + "; ".join(sp.why) if sp.runs else "up to date (nothing to do)"
        )
        lines.append(head)
        for t in sp.texts:
            if t.estimated and not t.total:
                lines.append(f"{'':<12}{t.label}: unknown until upstream runs")
            else:
                lines.append(
                    f"{'':<12}{t.label}: {t.total:,} unique, {t.cached:,} cached, "
                    f"{t.new:,} to embed{' (estimate)' if t.estimated else ''}"
                    f" (~{_dur(t.new / CPU_TEXTS_PER_S)} on 2 CPU threads)"
                )
                assumptions[
                    f"embedding time at {CPU_TEXTS_PER_S:g} texts/s: MiniLM at "
                    f"max_length 256 on two CPU threads (docs/performance.md); a GPU is "
                    f"far faster"
                ] = None
        for w in sp.llm:
            d = w.to_dict()
            est = f" ({w.estimated_calls:,} estimated)" if w.estimated_calls else ""
            lines.append(
                f"{'':<12}{w.label} [{w.model}]: {w.requests:,} requests rendered, "
                f"{len(w.cached):,} cached; {w.new_calls:,} new calls{est}"
            )
            if w.new_calls:
                lines.append(
                    f"{'':<14}tokens in {_tok(w.input_tokens)}, out "
                    f"~{_tok(w.output_tokens)}; cost {_usd(w.cost_usd)}; wall "
                    f"~{_dur(w.wall_s)} ({w.concurrency} in flight"
                    f"{f', {w.rpm:g} rpm' if w.rpm else ''})"
                )
                assumptions[f"{w.model}: input tokens by {d['tokenizer']}"] = None
                assumptions[
                    f"{w.model} ({w.stage}): output tokens per call "
                    f"{d['output_tokens_per_call']:.0f} = {d['output_basis']}"
                ] = None
                p = d["prices"]
                assumptions[
                    f"{w.model}: prices {p['source']}"
                    + (
                        f" (${p['input_per_mtok']:g} in / ${p['output_per_mtok']:g} out per Mtok)"
                        if p["input_per_mtok"] is not None
                        else ""
                    )
                ] = None
                assumptions[
                    f"{w.model} ({w.stage}): latency {d['latency_s']:.2f} s = "
                    f"{d['latency_basis']}; no retries counted"
                ] = None
            for n in w.notes:
                lines.append(f"{'':<14}{n}")
        for n in sp.notes:
            lines.append(f"{'':<12}{n}")
        for n in sp.not_counted:
            lines.append(f"{'':<12}not counted: {n}")
    cost = plan.cost_usd
    lines += [
        "",
        f"total: {plan.new_calls:,} new LLM calls, cost {_usd(cost)}, wall "
        f"~{_dur(sum(w.wall_s for w in plan.works()))} (stages one after another)",
    ]
    if plan.unknown:
        lines.append(f"       not counted: {', '.join(plan.unknown)} (calls unknown, see above)")
    if plan.not_counted:
        lines.append(
            f"       not counted: calls outside our LLM client ("
            f"{', '.join(s.stage for s in plan.stages if s.runs and s.not_counted)}, "
            f"see above)"
        )
    if assumptions:
        lines += ["", "assumptions:"] + [f"  - {a}" for a in assumptions]
    lines.append("The plan sends nothing and pays nothing.")
    return "\n".join(lines)


def format_sweep(plans: list[Plan], total: dict) -> str:
    """Every experiment's plan, then the sweep's total (sweep.sweep_total)."""
    parts = [format_plan(p) for p in plans]
    parts.append(
        f"sweep total: {total['experiments']} experiment(s), {total['new_calls']:,} new "
        f"LLM calls ({total['shared_calls_counted_once']:,} shared between experiments "
        f"counted once, {total['estimated_calls']:,} estimated), cost "
        f"{_usd(total['cost_usd'])}"
    )
    if total["not_counted"]:
        parts[-1] += (
            f"\nnot counted (calls outside our LLM client): {'; '.join(total['not_counted'])}"
        )
    return ("\n\n" + "=" * 78 + "\n").join(parts)
