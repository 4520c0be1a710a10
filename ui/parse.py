"""What a learner types into a text box, read as numbers."""

from __future__ import annotations

from ui.i18n import t


def parse_number(text: str, name: str, example: str) -> float:
    """A float from a text box ("10000", "1e4", "500_000", "nan"); ValueError names the box and shows `example`."""
    try:
        return float(str(text).strip().replace(",", "").replace("_", ""))
    except ValueError:
        raise ValueError(t("ui.not_a_number", name=name, text=text, example=example)) from None


def parse_indices(text: str, upper: int, *, most: int) -> tuple[list[int], list[str]]:
    """Distinct integers in [0, upper) from "4, 5, 6, 7", at most `most`; also the parts that were dropped."""
    kept: list[int] = []
    dropped: list[str] = []
    for part in str(text).replace(";", ",").replace(" ", ",").split(","):
        if not part:
            continue
        if part.lstrip("-").isdigit() and 0 <= int(part) < upper and int(part) not in kept and len(kept) < most:
            kept.append(int(part))
        else:
            dropped.append(part)
    return kept, dropped
