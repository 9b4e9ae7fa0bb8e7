"""Other names policyholders use for the facts they tell the insurer's desk.

The simulated user reads a fact's key, these names and the shared synonyms
alike: asked for "the number printed on your policy document", a user who
knows their ``policy number`` gives it. Each name is one a caller would really
say.
"""

from __future__ import annotations

ALIASES: dict[str, tuple[str, ...]] = {
    "policy number": (
        "policy no",
        "policy ID",
        "policy reference",
        "policy #",
        "insurance policy number",
        "number printed on your policy document",
        "number on your policy document",
        "number on your insurance card",
    ),
    "claim number": ("claim ID", "claim reference", "claim no", "claim #", "claim file number"),
    "VIN": ("vehicle identification number", "VIN number", "chassis number", "vehicle ID number"),
    "licence number": (
        "licence no",
        "driving licence number",
        "driver's licence number",
        "driver licence number",
        "DL number",
    ),
    "licence state": (
        "state that issued the licence",
        "issuing state",
        "state of the licence",
        "licence issuing state",
    ),
    "date of the loss": (
        "loss date",
        "date of loss",
        "date of the accident",
        "accident date",
        "date of the incident",
        "day of the accident",
        "date the accident happened",
    ),
    "invoice total": ("invoice amount", "amount on the invoice", "total on the invoice", "amount of the invoice"),
    "tow bill": ("towing bill", "tow invoice", "towing invoice", "towing cost", "cost of the tow", "towing charge"),
    "estimate": ("repair estimate", "repair quote", "damage estimate", "quote for the repair"),
    "new estimate": ("new repair estimate", "updated estimate", "revised estimate", "new quote"),
    "daily rate": ("rate per day", "daily rental rate", "price per day", "cost per day", "rental rate"),
    "who was driving": ("driver at the time", "who was behind the wheel", "who drove", "person driving"),
    "injuries": ("anyone hurt", "anyone injured", "anybody hurt", "anybody injured", "injured"),
    "drivable": ("driveable", "car drivable", "car driveable", "car still drives", "car can be driven"),
    "sale date": ("date of sale", "date the car was sold", "date you sold the car", "date you sold it"),
    "purchase date": ("date of purchase", "date you bought the car", "date you bought it"),
    "make": ("car make", "make of the car", "manufacturer", "brand of the car"),
    "model": ("car model", "model of the car", "vehicle model"),
    "payment method": ("method of payment", "payment type", "way you want to pay", "how you want to pay"),
    "new due date": ("due date", "new payment date", "date you want to pay by"),
    "cancellation date": ("date of cancellation", "cancel date", "cancellation effective date", "date to cancel from"),
    "pay today": ("amount you can pay today", "payment today", "how much you can pay today"),
    "rental pick-up date": ("rental start date", "date you picked up the rental", "pick-up date of the rental"),
    "rental return date": ("rental end date", "date you returned the rental", "return date of the rental"),
}
