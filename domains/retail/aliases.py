"""Other names the shop's customers use for the facts they tell support.

The simulated user reads a fact's key, these names and the shared synonyms
alike (order number, ZIP code and postcode are shared by every domain). Each
name is one a customer would really say.
"""

from __future__ import annotations

ALIASES: dict[str, tuple[str, ...]] = {
    "order id": ("order confirmation number", "purchase number", "order code"),
    "return number": (
        "RMA number",
        "returns number",
        "return authorisation number",
        "return label number",
        "return reference number",
    ),
    "installation job": (
        "installation job number",
        "installation job ID",
        "installation reference",
        "installation booking",
        "installation appointment number",
        "job number",
    ),
    "new time": ("new appointment time", "new slot", "time you would like instead", "preferred time"),
    "new appointment": ("new appointment time", "new slot", "preferred appointment"),
    "condition": ("condition of the item", "state of the item", "item condition"),
    "what happened": ("how it broke", "how it was damaged", "what went wrong", "how the damage happened"),
    "when bought": ("purchase date", "date of purchase", "date you bought it", "when you bought it"),
    "serial number": ("serial", "serial no", "device serial number", "SN"),
}
