"""Vehicle identification numbers: the ISO 3779 structure and the North-American check digit.

A VIN has 17 characters from 0-9 and A-Z without I, O and Q. Position 9 is a
check digit: each character is transliterated to a number, multiplied by its
position weight, and the sum modulo 11 is the digit (10 is written ``X``).
Position 10 encodes the model year. `complete_vin` lets seeds and tasks write
valid VINs without computing the digit by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

_VALUES = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMN", range(1, 6), strict=True)),
    "P": 7,
    "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
_YEAR_CODES = "ABCDEFGHJKLMNPRSTVWXY123456789"  # 30-year cycle starting 1980 (A) and again 2010 (A)

_MANUFACTURERS = {
    "1C4": "Jeep",
    "1FA": "Ford",
    "1FM": "Ford",
    "1FT": "Ford",
    "1G1": "Chevrolet",
    "1GC": "Chevrolet",
    "1HG": "Honda",
    "2HG": "Honda",
    "2T3": "Toyota",
    "3VW": "Volkswagen",
    "4T1": "Toyota",
    "5J6": "Honda",
    "5N1": "Nissan",
    "5YJ": "Tesla",
    "JF2": "Subaru",
    "JM3": "Mazda",
    "JN1": "Nissan",
    "JTD": "Toyota",
    "KM8": "Hyundai",
    "KNA": "Kia",
    "WBA": "BMW",
}


@dataclass(frozen=True)
class VinCheck:
    vin: str
    valid: bool
    problem: str | None
    model_year: int | None
    manufacturer: str | None


def check_digit(vin: str) -> str:
    """The check digit a 17-character VIN should carry at position 9 (its own position 9 is ignored)."""
    total = sum(_VALUES[c] * w for c, w in zip(vin, _WEIGHTS, strict=True))
    remainder = total % 11
    return "X" if remainder == 10 else str(remainder)


def complete_vin(vin: str) -> str:
    """`vin` with its check digit (position 9) set correctly."""
    vin = vin.upper()
    return vin[:8] + check_digit(vin) + vin[9:]


def model_year(code: str, latest: int) -> int | None:
    """The model year of position-10 `code`: the most recent year of its cycle that is not after `latest`."""
    if code not in _YEAR_CODES:
        return None
    index = _YEAR_CODES.index(code)
    for year in (2040 + index, 2010 + index, 1980 + index):
        if year <= latest:
            return year
    return None


def check_vin(raw: str, latest_year: int) -> VinCheck:
    """Check a VIN's structure and check digit; decode its model year and manufacturer when valid."""
    vin = raw.strip().upper().replace(" ", "").replace("-", "")
    problem = None
    if len(vin) != 17:
        problem = f"a VIN has 17 characters; this one has {len(vin)}"
    elif any(c in "IOQ" for c in vin):
        problem = "a VIN never contains the letters I, O or Q"
    elif any(c not in _VALUES for c in vin):
        problem = "a VIN contains only the digits 0-9 and the letters A-Z"
    elif vin[9] not in _YEAR_CODES:
        problem = f"position 10 ({vin[9]!r}) is not a model-year code"
    elif vin[8] != check_digit(vin):
        problem = f"the check digit (position 9) is {vin[8]!r} but the other characters give {check_digit(vin)!r}"
    if problem:
        return VinCheck(vin, False, problem, None, None)
    return VinCheck(vin, True, None, model_year(vin[9], latest_year), _MANUFACTURERS.get(vin[:3]))
