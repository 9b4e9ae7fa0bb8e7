"""Base records every retail task starts from: the product catalogue, its stock and the promotions.

Tasks add their own customers, orders, tickets and after-sales records with the
factories; they refer to catalogue products through the constants below.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from domains.shared.seed import add_rows

from .models import Inventory, Product, Promotion

LAPTOP = "P-101"
HEADPHONES = "P-102"
TV = "P-103"
PHONE = "P-104"
BLENDER = "P-105"
FRIDGE = "P-106"
DISHWASHER = "P-107"
SOFA = "P-108"
DESK_CHAIR = "P-109"
HEATER = "P-110"
TENT = "P-111"
CLEARANCE_WATCH = "P-112"
DUVET = "P-113"
RAIN_JACKET = "P-114"
ESPRESSO = "P-115"
CLEARANCE_SPEAKER = "P-116"

# id, sku, name, category, price, final sale, restockable, warranty months, installable, on hand, reserved, restock date
_CATALOGUE = [
    (LAPTOP, "AUR-14-512", "Aurora 14 Laptop", "electronics", 129_900, False, True, 12, False, 14, 2, None),
    (
        HEADPHONES,
        "PLS-NC700",
        "Pulse NC700 Noise-Cancelling Headphones",
        "electronics",
        24_900,
        False,
        True,
        12,
        False,
        40,
        3,
        None,
    ),
    (TV, "VST-55Q", "Vista 55-inch 4K TV", "electronics", 89_900, False, True, 24, True, 6, 1, None),
    (
        PHONE,
        "NMB-X256",
        "Nimbus X Smartphone 256 GB",
        "electronics",
        79_900,
        False,
        True,
        12,
        False,
        0,
        0,
        date(2026, 4, 2),
    ),
    (BLENDER, "BRZ-BL2", "Breeze Countertop Blender", "kitchen", 8_900, False, True, 24, False, 25, 0, None),
    (
        FRIDGE,
        "FRL-FD36",
        "Frostline 36-inch French-Door Refrigerator",
        "appliances",
        189_900,
        False,
        True,
        24,
        True,
        3,
        1,
        None,
    ),
    (DISHWASHER, "CSC-DW24", "Cascade 24-inch Dishwasher", "appliances", 74_900, False, True, 24, True, 5, 0, None),
    (SOFA, "HRB-3S-GRY", "Harbor 3-Seat Sofa, Slate Grey", "furniture", 119_900, False, True, 12, False, 4, 0, None),
    (DESK_CHAIR, "OAK-DC1", "Oakline Ergonomic Desk Chair", "furniture", 27_900, False, True, 24, False, 12, 1, None),
    (HEATER, "EMB-CH15", "Ember Ceramic Space Heater", "home", 6_900, False, True, 12, False, 30, 0, None),
    (TENT, "TRH-2P", "Trailhead 2-Person Tent", "outdoor", 18_900, False, True, 12, False, 2, 2, date(2026, 3, 30)),
    (
        CLEARANCE_WATCH,
        "CLR-SW-S2",
        "Clearance: Tempo S2 Smartwatch",
        "electronics",
        9_900,
        True,
        False,
        12,
        False,
        9,
        0,
        None,
    ),
    (DUVET, "LNN-DV-Q", "Linen Duvet Set, Queen", "home", 12_900, False, True, 0, False, 18, 0, None),
    (RAIN_JACKET, "SMT-RJ-M", "Summit Rain Jacket", "apparel", 14_900, False, True, 0, False, 22, 0, None),
    (ESPRESSO, "DUO-ES2", "Duo Espresso Machine", "kitchen", 44_900, False, True, 24, False, 7, 0, None),
    (
        CLEARANCE_SPEAKER,
        "CLR-BT-MINI",
        "Clearance: Mini Bluetooth Speaker",
        "electronics",
        3_900,
        True,
        False,
        12,
        False,
        15,
        0,
        None,
    ),
]

# id, code, description, kind, value, minimum subtotal, cap, tier, starts, ends
_PROMOTION_COLUMNS = (
    "id",
    "code",
    "description",
    "kind",
    "value",
    "min_subtotal_cents",
    "max_discount_cents",
    "tier_required",
    "starts_on",
    "ends_on",
)
_PROMOTIONS = [
    (
        "PR-01",
        "SPRING15",
        "15% off orders of $100 or more (max $150 off)",
        "percent",
        15,
        10_000,
        15_000,
        None,
        date(2026, 3, 1),
        date(2026, 3, 31),
    ),
    (
        "PR-02",
        "WINTER20",
        "20% off orders of $50 or more (max $100 off)",
        "percent",
        20,
        5_000,
        10_000,
        None,
        date(2025, 12, 1),
        date(2026, 2, 28),
    ),
    (
        "PR-03",
        "PLUS25",
        "$25 off orders of $150 or more for Plus and Premium members",
        "fixed",
        2_500,
        15_000,
        None,
        "plus",
        date(2026, 1, 1),
        date(2026, 6, 30),
    ),
    (
        "PR-04",
        "PREMIUM50",
        "$50 off orders of $300 or more for Premium members",
        "fixed",
        5_000,
        30_000,
        None,
        "premium",
        date(2026, 2, 1),
        date(2026, 4, 30),
    ),
    (
        "PR-05",
        "HOME10",
        "10% off home and kitchen orders (max $30 off)",
        "percent",
        10,
        0,
        3_000,
        None,
        date(2026, 1, 15),
        date(2026, 12, 31),
    ),
]


def seed(db: Session) -> None:
    """Write the catalogue, its stock and the promotions."""
    for pid, sku, name, category, price, final, restock, months, install, on_hand, reserved, restock_on in _CATALOGUE:
        db.add(
            Product(
                id=pid,
                sku=sku,
                name=name,
                category=category,
                price_cents=price,
                final_sale=final,
                restockable=restock,
                warranty_months=months,
                installable=install,
            )
        )
        db.add(Inventory(product_id=pid, on_hand=on_hand, reserved=reserved, restock_expected_on=restock_on))
    add_rows(db, Promotion, _PROMOTION_COLUMNS, _PROMOTIONS)
    db.flush()
